package nwb_test

import (
	"go/format"
	"os"
	"strings"
	"testing"
)

// TestReadmeAmendExample holds the README's amendment example to
// Example_amend, which runs it: the same statements once gofmt has laid
// both out (the README keeps error checks on one line), the source and
// output names aside.
func TestReadmeAmendExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	body := between(t, string(readme), "func main() {\n\tctx := context.Background()\n\ta, err := nwb.Amend(", "\n}\n")
	body = "ctx := context.Background()\n\ta, err := nwb.Amend(" + body
	body = strings.NewReplacer(`"nwb/testdata/`, `"testdata/`, `"amended.lindi.tar"`, "out").Replace(body)
	if n := strings.Count(body, "\n") + 3; n > 25 {
		t.Errorf("the README example has %d lines, more than 25", n)
	}
	want := between(t, string(ex), "// From here, the README's lines.\n", "\t// The README's lines end here.")
	if a, b := formatBody(t, body), formatBody(t, want); a != b {
		t.Errorf("README example:\n%s\nExample_amend:\n%s", a, b)
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
