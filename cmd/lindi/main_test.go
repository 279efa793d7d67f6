package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/conformance"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const fixtures = "../../testdata/conformance"

// lindi runs a command line in-process and returns its exit status and
// output. It puts back the collector's settings, which a read changes for
// the rest of its process (readUnderLimit turns the collector off under a
// limit above what the process holds): run after run in one test process,
// that limit would ratchet up and the heap grow without end.
func lindi(args ...string) (int, string, string) {
	defer debug.SetGCPercent(testGCPercent)
	defer debug.SetMemoryLimit(testMemoryLimit)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// The collector's settings of the test process, before any run changed them.
var (
	testGCPercent   = debug.SetGCPercent(100)
	testMemoryLimit = debug.SetMemoryLimit(-1)
)

func init() { debug.SetGCPercent(testGCPercent) }

// TestCatConformance reads every conformance case through "lindi cat -o x.npy".
func TestCatConformance(t *testing.T) {
	cases, err := conformance.Load(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range cases {
		want, err := c.Expected(fixtures)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range c.Files {
			t.Run(name+"/"+c.ID, func(t *testing.T) {
				out := filepath.Join(dir, c.ID+".npy")
				code, _, stderr := lindi("cat", "-o", out, filepath.Join(fixtures, name), c.Dataset, c.Selection)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				got, err := conformance.ReadNPY(out)
				if err != nil {
					t.Fatal(err)
				}
				if err := conformance.Compare(got, want); err != nil {
					t.Fatalf("%s[%s]: %v", c.Dataset, c.Selection, err)
				}
			})
		}
	}
}

// TestGolden checks the output of ls, info and cat against testdata/*.golden.
func TestGolden(t *testing.T) {
	lindiJSON := filepath.Join(fixtures, "fixture.lindi.json")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ls", []string{"ls", "-a", lindiJSON}},
		{"ls-r-noattrs", []string{"ls", "-r", filepath.Join(fixtures, "fixture.h5")}},
		{"ls-r", []string{"ls", "-r", "-a", lindiJSON}},
		{"ls-r-hdf5", []string{"ls", "-r", "-a", filepath.Join(fixtures, "fixture.h5")}},
		{"ls-zarr", []string{"ls", "-r", "-a", filepath.Join(fixtures, "fixture.zarr"), "nested"}},
		{"info-dataset", []string{"info", lindiJSON, "acquisition/ElectricalSeries/data"}},
		{"info-group", []string{"info", lindiJSON, "misc"}},
		{"info-scalar", []string{"info", lindiJSON, "session_description"}},
		{"cat-text", []string{"cat", lindiJSON, "acquisition/ElectricalSeries/data", "0:3, ::6"}},
		{"cat-3d", []string{"cat", lindiJSON, "acquisition/TwoPhotonSeries/data", ":2, :2, :3"}},
		{"cat-strings", []string{"cat", lindiJSON, "misc/vlen_strings"}},
		{"cat-compound", []string{"cat", "-f", "json", lindiJSON, "misc/compound"}},
		{"cat-csv", []string{"cat", "-f", "csv", lindiJSON, "misc/u1", "-3:, ::3"}},
		{"cat-json-nan", []string{"cat", "-f", "json", filepath.Join(fixtures, "fixture.zarr"), "missing_chunks_nan", "8:12, 9:11"}},
		{"cat-refs", []string{"cat", "-f", "json", lindiJSON, "general/extracellular_ephys/electrodes/group", ":2"}},
		{"nwb-tables", []string{"nwb", "../../testdata/nwb/tables.nwb.lindi.json"}},
		{"cat-datetime", []string{"cat", "../../testdata/parity/dt.zarr", "times"}},
		{"cat-datetime-json", []string{"cat", "-f", "json", "../../testdata/parity/dt.zarr", "days"}},
		{"cat-timedelta-csv", []string{"cat", "-f", "csv", "../../testdata/parity/dt.zarr", "deltas"}},
		{"cat-complex", []string{"cat", "../../testdata/parity/features.h5", "complex128"}},
		{"cat-complex-json", []string{"cat", "-f", "json", "../../testdata/parity/features.h5", "complex64"}},
		{"info-compound-ref-hdf5", []string{"info", "../../testdata/nwb/tables.nwb", "intervals/trials/timeseries"}},
		{"info-compound-ref-lindi", []string{"info", "../../testdata/nwb/tables.nwb.lindi.json", "intervals/trials/timeseries"}},
		{"nwb-fixture", []string{"nwb", filepath.Join(fixtures, "fixture.h5")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lindi(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if stdout != string(want) {
				t.Errorf("output differs from %s:\n%s", golden, stdout)
			}
		})
	}
}

// TestErrors checks exit statuses and that a failure is one line naming what failed.
func TestErrors(t *testing.T) {
	lindiJSON := filepath.Join(fixtures, "fixture.lindi.json")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string // a part of the first line of stderr
	}{
		{"no command", nil, 2, "no command"},
		{"unknown command", []string{"frob"}, 2, `unknown command "frob"`},
		{"cat without dataset", []string{"cat", lindiJSON}, 2, "cat takes FILE DATASET"},
		{"bad selection", []string{"cat", lindiJSON, "misc/u4", "1:2:3:4"}, 2, "selection"},
		{"bad flag", []string{"cat", "--nope", lindiJSON, "misc/u4"}, 2, "nope"},
		{"bad format", []string{"cat", "-f", "xml", lindiJSON, "misc/u4"}, 2, "xml"},
		{"missing file", []string{"ls", "does/not/exist.json"}, 1, "does/not/exist.json"},
		{"missing dataset", []string{"cat", lindiJSON, "misc/nope"}, 1, "nope"},
		{"group as dataset", []string{"cat", lindiJSON, "misc"}, 1, "not a dataset"},
		{"out of range", []string{"cat", lindiJSON, "misc/u4", "90"}, 1, "out of bounds"},
		{"not a lindi file", []string{"ls", filepath.Join(fixtures, "cases.json")}, 1, "refs"},
		{"references to npy", []string{"cat", "-o", filepath.Join(t.TempDir(), "x.npy"), lindiJSON, "general/extracellular_ephys/electrodes/group"}, 1, "npy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := lindi(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			first, _, _ := strings.Cut(stderr, "\n")
			if !strings.HasPrefix(first, "lindi: ") || !strings.Contains(first, tc.msg) {
				t.Errorf("stderr %q: want one line starting with lindi: and naming %q", stderr, tc.msg)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr holds a panic trace: %s", stderr)
			}
			if tc.code == 1 && strings.Count(stderr, "\n") != 1 {
				t.Errorf("runtime errors are one line; got %q", stderr)
			}
		})
	}
}

// TestSelectionLikeFlags checks that a selection starting with "-" is not taken for a flag.
func TestSelectionLikeFlags(t *testing.T) {
	code, stdout, stderr := lindi("cat", filepath.Join(fixtures, "fixture.lindi.json"), "misc/u4", "-2:", "-f", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Count(stdout, "\n") != 2 {
		t.Errorf("got %q, want the last two elements", stdout)
	}
}

func TestProgress(t *testing.T) {
	if newProgress(&bytes.Buffer{}, "x") != nil {
		t.Error("a progress line on something that is not a terminal")
	}
	var buf bytes.Buffer
	p := &progress{w: &buf, label: "data", start: time.Now().Add(-2 * time.Second)}
	p.update(5, 10)
	p.update(6, 10) // too soon after the last: not drawn
	p.update(10, 10)
	p.finish()
	out := buf.String()
	if !strings.Contains(out, "data [###############               ]  50% 5/10 chunks") || strings.Contains(out, "6/10") ||
		!strings.Contains(out, "100% 10/10") || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("progress output %q", out)
	}
	quiet := &bytes.Buffer{}
	q := &progress{w: quiet, start: time.Now()}
	q.update(1, 2)
	q.finish()
	if quiet.Len() != 0 {
		t.Errorf("a read under a second drew %q", quiet.String())
	}
}

// TestCLIParity: ls lists attributes only with -a, info describes soft and
// external links and defaults to /, CMD -h prints that command's flags and
// exits 0, and --version answers.
func TestCLIParity(t *testing.T) {
	h5file := filepath.Join(fixtures, "fixture.h5")
	features := filepath.Join("..", "..", "testdata", "parity", "features.h5")
	for _, tc := range []struct {
		name     string
		args     []string
		want     []string
		unwanted []string
	}{
		// Attributes only with -a, as docs/reading.md shows: an NWB tree has several
		// per object, and a listing of the tree is for finding objects.
		{"ls without attributes", []string{"ls", "-r", h5file}, []string{"/misc/i1", "contiguous"}, []string{"@"}},
		{"ls -r -a", []string{"ls", "-r", "-a", h5file}, []string{"/misc/i1", "@rate = 30000.0", "@int_attr = 7"}, nil},
		{"ls -a", []string{"ls", "-a", h5file, "misc"}, []string{"@int_attr = 7"}, nil},
		{"info soft link", []string{"info", h5file, "misc/soft_link_to_data"},
			[]string{`"path": "/misc/soft_link_to_data"`, `"type": "soft"`, `"target": "/acquisition/ElectricalSeries/data"`, `"type": "dataset"`}, nil},
		{"info dangling external link", []string{"info", features, "ext_missing"},
			[]string{`"type": "external"`, `"file": "no-such-file.h5"`, `"error":`}, nil},
		{"info root", []string{"info", h5file}, []string{`"path": "/"`, `"type": "group"`}, nil},
		{"info layout", []string{"info", h5file, "misc/contiguous_f8"}, []string{`"layout": "contiguous"`}, []string{`"chunks"`}},
		{"info strings", []string{"info", h5file, "misc/vlen_strings"}, []string{`"string": {`, `"encoding": "utf-8"`, `"length": null`}, []string{`"reference"`}},
		{"info references", []string{"info", filepath.Join(fixtures, "fixture.lindi.json"), "general/extracellular_ephys/electrodes/group"}, []string{`"reference": "object"`}, []string{`"string"`}},
		{"ls -h", []string{"ls", "-h"}, []string{"lindi ls", "-a\tlist attributes"}, []string{"lindi cat"}},
		{"cat -h", []string{"cat", "-h"}, []string{"lindi cat", "-concurrency"}, nil},
		{"version", []string{"--version"}, []string{"lindi ", "go1."}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lindi(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			for _, u := range tc.unwanted {
				if strings.Contains(stdout, u) {
					t.Errorf("output has %q:\n%s", u, stdout)
				}
			}
		})
	}
}

// TestClosedPort: a URL to a port nobody listens on fails naming the URL the
// user gave, for every kind of file, and not what a guessing driver tried
// next (a Zarr store's .zmetadata). That it fails without backing off is
// source's TestErrorsSayItOnce.
func TestClosedPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	l.Close()
	for _, name := range []string{"x.nwb", "x.lindi.json", "x.lindi.tar"} {
		u := base + "/" + name
		code, _, stderr := lindi("ls", u)
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1", u, code)
		}
		if !strings.Contains(stderr, u+":") || strings.Contains(stderr, ".zmetadata") || !strings.Contains(stderr, "refused") {
			t.Errorf("%s: stderr %q should name the URL and the refusal, and nothing else tried", u, stderr)
		}
	}
}

// TestOutputErrorNamesPath: a file that cannot be written is named as the
// user gave it, never as the temporary file it is written through.
func TestOutputErrorNamesPath(t *testing.T) {
	out := filepath.Join(t.TempDir(), "no-such-dir", "x.npy")
	code, _, stderr := lindi("cat", "-o", out, filepath.Join(fixtures, "fixture.lindi.json"), "misc/u4")
	if code != 1 || !strings.Contains(stderr, out+":") || strings.Contains(stderr, ".tmp") {
		t.Errorf("exit %d, stderr %q: want 1 and the path %s, no temporary name", code, stderr, out)
	}
}

// brokenCopy writes a copy of the LINDI JSON src into a temporary directory
// with the chunk refs of keys pointing into a file that does not exist, its
// templates made absolute, and returns its path.
func brokenCopy(t *testing.T, src string, keys ...string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.h5")
	if tm, ok := doc["templates"].(map[string]any); ok {
		for k, v := range tm {
			if a, err := filepath.Abs(filepath.Join(filepath.Dir(src), v.(string))); err == nil {
				tm[k] = a
			}
		}
	}
	refs := doc["refs"].(map[string]any)
	for _, k := range keys {
		if _, ok := refs[k]; !ok {
			t.Fatalf("%s has no key %s", src, k)
		}
		refs[k] = []any{missing, 0, 64}
	}
	out := filepath.Join(dir, "broken.lindi.json")
	b, err = json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOutputWholeOrNothing: a command that fails part way writes nothing to
// stdout, only its error to stderr.
func TestOutputWholeOrNothing(t *testing.T) {
	tables := brokenCopy(t, "../../testdata/nwb/tables.nwb.lindi.json", "units/quality/0")
	data := brokenCopy(t, filepath.Join(fixtures, "fixture.lindi.json"), "acquisition/ElectricalSeries/data/8.0")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"table json", []string{"table", "-f", "json", tables, "units"}},
		{"table csv", []string{"table", "-f", "csv", tables, "units"}},
		{"cat npy", []string{"cat", "-f", "npy", data, "acquisition/ElectricalSeries/data"}},
		{"cat text", []string{"cat", data, "acquisition/ElectricalSeries/data"}},
		{"cat json", []string{"cat", "-f", "json", data, "acquisition/ElectricalSeries/data"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lindi(tc.args...)
			if code != 1 || stdout != "" || !strings.HasPrefix(stderr, "lindi: ") {
				t.Errorf("exit %d, %d bytes of stdout (%.60q), stderr %q: want 1, nothing, an error", code, len(stdout), stdout, stderr)
			}
		})
	}
}

// TestStagedOutputSpills: output past what is kept in memory goes through a
// temporary file, reaches the writer whole on commit and leaves no file.
func TestStagedOutputSpills(t *testing.T) {
	var dst bytes.Buffer
	s := &stagedOutput{w: &dst}
	piece := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	n := stageMemory/len(piece) + 2
	for range n {
		if _, err := s.Write(piece); err != nil {
			t.Fatal(err)
		}
	}
	if s.spill == nil {
		t.Fatal("no spill past stageMemory")
	}
	name := s.spill.Name()
	if dst.Len() != 0 {
		t.Fatal("output reached the writer before commit")
	}
	if err := s.commit(); err != nil {
		t.Fatal(err)
	}
	s.discard()
	if dst.Len() != n*len(piece) || !bytes.Equal(dst.Bytes()[:len(piece)], piece) {
		t.Errorf("committed %d bytes, want %d", dst.Len(), n*len(piece))
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("temporary file %s left: %v", name, err)
	}
}

// TestCommandHelp: CMD -h, CMD --help and help CMD print that command's
// usage, and only that, on stdout with status 0, opening no file.
func TestCommandHelp(t *testing.T) {
	cmds := []string{"ls", "info", "cat", "table", "nwb", "index"}
	for _, cmd := range cmds {
		for _, args := range [][]string{{cmd, "-h"}, {cmd, "--help"}, {cmd, "-help"}, {"help", cmd}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, stdout, stderr := lindi(args...)
				if code != 0 || stderr != "" {
					t.Fatalf("exit %d, stderr %q", code, stderr)
				}
				if !strings.Contains(stdout, "lindi "+cmd+" ") {
					t.Errorf("no usage of %s:\n%s", cmd, stdout)
				}
				for _, other := range cmds {
					if other != cmd && strings.Contains(stdout, "lindi "+other+" ") {
						t.Errorf("the usage of %s shows %s too:\n%s", cmd, other, stdout)
					}
				}
			})
		}
	}
}

// TestUsageErrorShowsOneCommand: a usage error prints the usage of the
// command that was wrong, not of every command; an unknown command gets the
// general usage.
func TestUsageErrorShowsOneCommand(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"cat", "x.json"}, "lindi cat [", "lindi ls ["},
		{[]string{"nwb"}, "lindi nwb FILE", "lindi cat ["},
		{[]string{"table", "-f", "xml", "x", "y"}, "lindi table [", "lindi nwb FILE"},
		{[]string{"ls", "--nope", "x"}, "-r\tlist the whole tree", "lindi cat ["},
		{[]string{"frob"}, "lindi nwb FILE", ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := lindi(tc.args...)
			if code != 2 || stdout != "" {
				t.Fatalf("exit %d, stdout %q", code, stdout)
			}
			if !strings.Contains(stderr, tc.want) || tc.not != "" && strings.Contains(stderr, tc.not) {
				t.Errorf("stderr should show %q, not %q:\n%s", tc.want, tc.not, stderr)
			}
		})
	}
}

// TestAttributeSpelling: float attributes print as floats and JSON-object
// attributes (Zarr and LINDI allow them) as JSON, in ls, info and cat.
func TestAttributeSpelling(t *testing.T) {
	doc := `{"version":1,"refs":{".zgroup":{"zarr_format":2},` +
		`".zattrs":{"meta":{"a":1,"b":[true,null,2.0]},"rate":30000.0,"n":30000,"bad":"NaN","tiny":1e-05}}}`
	src := filepath.Join(t.TempDir(), "attrs.lindi.json")
	if err := os.WriteFile(src, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"ls", "-a", src}, []string{`@meta = {"a":1,"b":[true,null,2.0]}`, "@rate = 30000.0", "@n = 30000\n", "@tiny = 1e-05"}},
		{[]string{"info", src}, []string{`"meta": {` + "\n" + `      "a": 1,`, `"rate": 30000.0`, `"n": 30000,`}},
		{[]string{"cat", src, "@meta"}, []string{`{"a":1,"b":[true,null,2.0]}` + "\n"}},
		{[]string{"cat", "-f", "json", src, "@meta"}, []string{`{"a":1,"b":[true,null,2.0]}` + "\n"}},
		{[]string{"cat", src, "@rate"}, []string{"30000.0\n"}},
		{[]string{"cat", "-f", "json", src, "@rate"}, []string{"30000.0\n"}},
	} {
		t.Run(strings.Join(tc.args[:len(tc.args)-1], " "), func(t *testing.T) {
			code, stdout, stderr := lindi(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			if strings.Contains(stdout, "map[") {
				t.Errorf("Go's map syntax in:\n%s", stdout)
			}
		})
	}
}

// TestLsAlignment: ls -r aligns its columns over the whole listing, with
// attributes or without, not group by group.
func TestLsAlignment(t *testing.T) {
	for _, args := range [][]string{
		{"ls", "-r", "../../testdata/nwb/tables.nwb"},
		{"ls", "-r", "-a", "../../testdata/nwb/tables.nwb.lindi.json"},
		{"ls", "-r", "-a", filepath.Join(fixtures, "fixture.h5")},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := lindi(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			// The columns after the path start at the same offsets on every
			// dataset line: kind, shape, dtype (chunks and codecs follow a
			// dtype too long to align).
			starts := map[int]map[int]bool{1: {}, 2: {}, 3: {}}
			lines := 0
			for _, line := range strings.Split(stdout, "\n") {
				if !strings.Contains(line, "  dataset  ") || strings.HasPrefix(line, " ") {
					continue
				}
				lines++
				col, inCell := 0, true
				for i := 0; i+1 < len(line); i++ {
					if line[i] == ' ' && line[i+1] == ' ' {
						inCell = false
					} else if !inCell && line[i] != ' ' {
						col, inCell = col+1, true
						if starts[col] != nil {
							starts[col][i] = true
						}
					}
				}
			}
			if lines < 10 {
				t.Fatalf("only %d dataset lines:\n%s", lines, stdout)
			}
			for col, at := range starts {
				if len(at) != 1 {
					t.Errorf("column %d starts at offsets %v:\n%s", col, at, stdout)
				}
			}
		})
	}
}

// TestVersion: --version names the module version, the git revision and
// time of a build from a checkout (and whether its tree was modified), and
// says when no revision was recorded rather than printing a bare (devel).
func TestVersion(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261202132504-e7c4f78d904d+dirty"},
			Settings: settings("GOOS", "linux", "GOARCH", "amd64", "vcs", "git", "vcs.revision", "e7c4f78d904d1783a0dd623094948c3fa1ad288c",
				"vcs.time", "2026-12-02T13:25:04Z", "vcs.modified", "true")},
			"v0.0.0-20261202132504-e7c4f78d904d+dirty, git e7c4f78d904d1783a0dd623094948c3fa1ad288c (2026-12-02T13:25:04Z, modified), go1.26.8 linux/amd64"},
		{"clean checkout", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: settings("GOOS", "darwin", "GOARCH", "arm64", "vcs", "git", "vcs.revision", "abc", "vcs.modified", "false")},
			"(devel), git abc, go1.26.8 darwin/arm64"},
		{"go install", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: settings("GOOS", "linux", "GOARCH", "amd64")},
			"v1.2.3, go1.26.8 linux/amd64"},
		{"no vcs", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: settings("GOOS", "linux", "GOARCH", "amd64")},
			"(devel), no VCS revision recorded (built with -buildvcs=false, or outside a git checkout, or in a git worktree), go1.26.8 linux/amd64"},
	} {
		if got := versionText(&tc.bi); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	code, stdout, _ := lindi("--version")
	if code != 0 || !strings.HasPrefix(stdout, "lindi ") || !strings.Contains(stdout, runtime.Version()) || strings.Count(stdout, "\n") != 1 {
		t.Errorf("--version: exit %d, %q", code, stdout)
	}
}

// TestListingOverflow: a listing whose first lines have cells too wide to
// align still aligns the columns after them.
func TestListingOverflow(t *testing.T) {
	var l listing
	long := strings.Repeat("x", maxAligned+1)
	l.object([]string{"/a", "dataset", "(1,)", long, "contiguous", "raw"})
	l.object([]string{"/bb", "dataset", "(10,)", "<f8", "chunks (5,)", "zlib"})
	l.object([]string{"/c", "group"})
	var b strings.Builder
	if err := l.write(&b); err != nil {
		t.Fatal(err)
	}
	want := "/a   dataset  (1,)   " + long + "  contiguous   raw\n" +
		"/bb  dataset  (10,)  <f8  chunks (5,)  zlib\n" +
		"/c   group\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
