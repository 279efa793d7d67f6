package main

import (
	"bufio"
	"io"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/netsim"
	"github.com/lindigo/lindi/zarrmeta"
)

// writeDoc writes a LINDI document to a temporary file and returns its path.
func writeDoc(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.lindi.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// failsWith runs a command line that must exit 1 with one line on stderr
// holding msg, and no runtime trace.
func failsWith(t *testing.T, msg string, args ...string) {
	t.Helper()
	code, _, stderr := lindi(args...)
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, msg) {
		t.Errorf("lindi %v: exit %d, stderr %q; want exit 1 and one line naming %q", args, code, stderr, msg)
	}
}

// TestCatHugeShape is the regression test of issue 13 (3) for the command:
// a 200-byte .zarray of shape [1e12] made "lindi cat" die with "fatal
// error: runtime: out of memory". It fails with one line, and --max-bytes
// sets the limit.
func TestCatHugeShape(t *testing.T) {
	huge := writeDoc(t, `{"refs": {".zgroup": {"zarr_format": 2}, "x/.zarray": {"zarr_format": 2,
	"shape": [1000000000000], "chunks": [1000], "dtype": "<f8", "compressor": null, "fill_value": 0,
	"filters": null, "order": "C"}}}`)
	failsWith(t, "read limit", "cat", huge, "x")
	lindiJSON := filepath.Join(fixtures, "fixture.lindi.json")
	failsWith(t, "read limit", "cat", "--max-bytes", "10", lindiJSON, "misc/u4")
	if code, _, stderr := lindi("cat", "--max-bytes", "1000000", lindiJSON, "misc/u4"); code != 0 {
		t.Errorf("--max-bytes 1000000: exit %d: %s", code, stderr)
	}
	if code, _, _ := lindi("cat", "--max-bytes", "-1", lindiJSON, "misc/u4"); code != 2 {
		t.Errorf("--max-bytes -1: exit %d, want a usage error", code)
	}
}

// TestPasswordNotPrinted is the regression test of issue 13 (6) for the
// command: --stats and error lines printed http://user:pass@host/… whole.
func TestPasswordNotPrinted(t *testing.T) {
	doc := `{"refs": {".zgroup": {"zarr_format": 2}, "x/.zarray": {"zarr_format": 2, "shape": [4], "chunks": [4],
	"dtype": "|u1", "compressor": null, "fill_value": 0, "filters": null, "order": "C"}, "x/0": ["./blob", 0, 4],
	"y/.zarray": {"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "|u1", "compressor": null,
	"fill_value": 0, "filters": null, "order": "C"}, "y/0": ["./nope", 0, 4]}}`
	srv := httptest.NewServer(netsim.Blobs(map[string][]byte{"/d.lindi.json": []byte(doc), "/blob": {1, 2, 3, 4}}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)
	code, stdout, stderr := lindi("cat", "--stats", base+"/d.lindi.json", "x")
	if code != 0 || !strings.Contains(stdout, "4") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(stderr, "hunter2") || !strings.Contains(stderr, "user:xxxxx@") {
		t.Errorf("--stats printed %q", stderr)
	}
	for _, args := range [][]string{{"cat", base + "/d.lindi.json", "y"}, {"ls", base + "/missing.lindi.json"}} {
		code, _, stderr = lindi(args...)
		if code != 1 || strings.Contains(stderr, "hunter2") {
			t.Errorf("lindi %v: exit %d, stderr %q shows the password", args, code, stderr)
		}
	}
}

// TestNamesEscaped is the regression test of issue 13 (4): names printed
// raw by ls and info let a document retitle and clear the terminal.
func TestNamesEscaped(t *testing.T) {
	evil := `ev\u001b]0;PWNED\u0007il\u001b[2J\u202e\u009b`
	doc := writeDoc(t, `{"refs": {".zgroup": {"zarr_format": 2}, "`+evil+`/.zgroup": {"zarr_format": 2},
	"`+evil+`/.zattrs": {"`+evil+`": "`+evil+`", "x\\\\x1b": 1},
	"`+evil+`/d/.zarray": {"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": [["`+evil+`", "<i4"]],
	  "compressor": null, "fill_value": null, "filters": null, "order": "C"},
	"l/.zattrs": {"_SOFT_LINK": {"path": "/`+evil+`"}}}}`)
	for _, args := range [][]string{
		{"ls", "-r", doc},
		{"ls", doc, "/l"},
		{"info", doc, "/"},
		{"info", doc, "/ev\x1b]0;PWNED\x07il\x1b[2J\u202e\u009b"},
		{"info", doc, "/ev\x1b]0;PWNED\x07il\x1b[2J\u202e\u009b/d"},
		{"cat", doc, "/ev\x1b]0;PWNED\x07il\x1b[2J\u202e\u009b/d"},
		{"info", doc, "/nope\x1b[2J"},
		{"nwb", writeDoc(t, `{"refs": {".zgroup": {"zarr_format": 2}, ".zattrs": {"nwb_version": "`+evil+`", "neurodata_type": "NWBFile"},
	"session_description/.zarray": {"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "|O", "compressor": null,
	  "fill_value": 0, "filters": [{"id": "json2"}], "order": "C"},
	"session_description/.zattrs": {"_SCALAR": true},
	"session_description/0": "[\"`+strings.ReplaceAll(evil, `\`, `\\`)+`\", \"|O\", [1]]"}}`)},
	} {
		code, stdout, stderr := lindi(args...)
		for _, out := range []string{stdout, stderr} {
			for _, r := range out {
				if r == 0x1b || r == 0x07 || r == 0x202e || r == 0x9b {
					t.Errorf("lindi %q (exit %d) printed %U:\n%s", args, code, r, out)
					break
				}
			}
		}
		if code == 0 && !strings.Contains(stdout, `\x1b`) {
			t.Errorf("lindi %q: the name is not shown escaped:\n%s", args, stdout)
		}
	}
}

// heapWatcher is an io.Writer that discards what it is given and samples the
// heap every so many writes.
type heapWatcher struct {
	writes int
	peak   uint64
}

func (h *heapWatcher) Write(p []byte) (int, error) {
	if h.writes++; h.writes%256 == 1 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapAlloc)
	}
	return len(p), nil
}

// TestTextOutputStreams is the regression test of issue 13 (5): text, CSV
// and JSON output built a []any of every element first (a 1 GiB u1
// dataset asked for 17 GB). Writing 2 Mi elements must hold the array plus
// a block, not 16 bytes more per element.
func TestTextOutputStreams(t *testing.T) {
	const n = 2 << 20
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i)
	}
	a := &h5.Array{DType: zarrmeta.DType{Kind: zarrmeta.KindUint, Size: 1}, Shape: []int{n / 1024, 1024}, Data: data}
	// A command run in-process earlier (cat's readUnderLimit) may have
	// turned the collector off, and what earlier tests keep live lets
	// garbage pile up to as much again before a collection: collect at a
	// close pace, so the peak is what the writers hold.
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	for name, write := range map[string]func(io.Writer, *h5.Array) error{"text": writeText, "csv": writeCSV, "json": writeJSON} {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			w := &heapWatcher{}
			bw := bufio.NewWriterSize(w, 1<<12)
			if err := write(bw, a); err != nil {
				t.Fatal(err)
			}
			bw.Flush()
			grew := int64(w.peak) - int64(base.HeapAlloc)
			t.Logf("heap grew by %.1f MB writing %d elements", float64(grew)/1e6, n)
			if grew > 12<<20 {
				t.Errorf("heap grew by %d MB writing %d one-byte elements, want a few", grew>>20, n)
			}
		})
	}
}
