package docs_test

import (
	"go/format"
	"os"
	"strings"
	"testing"
)

// A snippet is a Go example a page shows, held to the example go test runs.
type snippet struct {
	page       string            // the Markdown page, from this directory
	start, end string            // the snippet: from start (kept) to end (dropped)
	names      *strings.Replacer // file names as the page writes them -> as the example does
	goFile     string            // the Go file with the example, between the markers below
	maxLines   int               // the page's snippet may not grow past this
}

var snippets = []snippet{
	{
		page:     "../README.md",
		start:    "ctx := context.Background()\nf, err := h5.Open(",
		end:      "\n```",
		names:    strings.NewReplacer(`"testdata/`, `"../testdata/`),
		goFile:   "example_test.go",
		maxLines: 12,
	},
	{
		page:     "nwb.md",
		start:    "\tctx := context.Background()\n\ta, err := nwb.Amend(",
		end:      "\n}\n",
		names:    strings.NewReplacer(`"nwb/testdata/`, `"testdata/`, `"amended.lindi.tar"`, "out"),
		goFile:   "../nwb/example_test.go",
		maxLines: 25,
	},
}

// TestExamples holds each Go snippet of the guide to an example that go
// test runs (and checks the output of): the same statements once gofmt has
// laid both out (the pages keep error checks on one line), file names
// aside.
func TestExamples(t *testing.T) {
	for _, s := range snippets {
		page, err := os.ReadFile(s.page)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := os.ReadFile(s.goFile)
		if err != nil {
			t.Fatal(err)
		}
		body := s.start + between(t, string(page), s.start, s.end)
		if n := strings.Count(body, "\n") + 1; n > s.maxLines {
			t.Errorf("%s: the example has %d lines, more than %d", s.page, n, s.maxLines)
		}
		body = s.names.Replace(body)
		want := between(t, string(ex), "// From here, the page's lines.\n", "\t// The page's lines end here.")
		if a, b := formatBody(t, body), formatBody(t, want); a != b {
			t.Errorf("%s's example:\n%s\n%s's:\n%s", s.page, a, s.goFile, b)
		}
	}
}

func between(t *testing.T, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("no %q", start)
	}
	s = s[i+len(start):]
	j := strings.Index(s, end)
	if j < 0 {
		t.Fatalf("no %q after %q", end, start)
	}
	return s[:j]
}

func formatBody(t *testing.T, body string) string {
	t.Helper()
	b, err := format.Source([]byte("package p\n\nfunc f() {\n" + strings.TrimSpace(body) + "\n}\n"))
	if err != nil {
		t.Fatalf("%v in\n%s", err, body)
	}
	return string(b)
}
