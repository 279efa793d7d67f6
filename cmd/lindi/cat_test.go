package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// closedPipe fails every write as a pipe whose reader has gone does.
type closedPipe struct{}

func (closedPipe) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
}

// TestCatClosedPipe: "lindi cat … | head -2" ends quietly with status 0.
func TestCatClosedPipe(t *testing.T) {
	var stderr strings.Builder
	code := run(context.Background(), []string{"cat", filepath.Join(fixtures, "fixture.lindi.json"), "acquisition/ElectricalSeries/data"}, closedPipe{}, &stderr)
	if code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr.String())
	}
}

// TestCatOutputFile: -o - is standard output, and a file appears only
// complete: a write that fails halfway leaves nothing behind.
func TestCatOutputFile(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := lindi("cat", "-o", "-", filepath.Join(fixtures, "fixture.lindi.json"), "misc/compound")
	if code != 0 || !strings.Contains(stdout, "{x: 1, y: 0.2}") {
		t.Fatalf("-o -: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A compound with a unicode field (which HDF5 cannot hold) cannot be
	// written as text; a subarray field can.
	doc := `{"version":1,"refs":{".zgroup":"{\"zarr_format\":2}",` +
		`"s/.zarray":"{\"zarr_format\":2,\"shape\":[2],\"chunks\":[2],\"dtype\":[[\"a\",\"<i4\",[2]]],\"compressor\":null,\"fill_value\":null,\"filters\":null,\"order\":\"C\"}",` +
		`"s/0":"base64:AQAAAAIAAAADAAAABAAAAA==",` +
		`"u/.zarray":"{\"zarr_format\":2,\"shape\":[2],\"chunks\":[2],\"dtype\":[[\"a\",\"<U1\"]],\"compressor\":null,\"fill_value\":null,\"filters\":null,\"order\":\"C\"}",` +
		`"u/0":"base64:YQAAAGIAAAA="}}`
	src := filepath.Join(dir, "sub.lindi.json")
	if err := os.WriteFile(src, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := lindi("cat", src, "s"); code != 0 || !strings.Contains(stdout, "{a: [1, 2]}\n{a: [3, 4]}") {
		t.Fatalf("subarray: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	out := filepath.Join(dir, "out.txt")
	if code, _, stderr := lindi("cat", "-o", out, src, "u"); code != 1 || !strings.Contains(stderr, "cannot show") {
		t.Fatalf("exit %d, stderr %q; want a failure naming the dtype", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("a failed write left %v", entries)
	}
	if code, _, stderr := lindi("cat", "-o", out, filepath.Join(fixtures, "fixture.lindi.json"), "misc/compound"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "{x: 5, y: 1.0}") {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
}

// TestCatValues: compound field names in every format, one field alone,
// float32's shortest form, one attribute.
func TestCatValues(t *testing.T) {
	lj := filepath.Join(fixtures, "fixture.lindi.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"csv header", []string{"cat", "-f", "csv", lj, "misc/compound", ":2"}, "x,y\n0,0.0\n1,0.2\n"},
		{"json objects", []string{"cat", "-f", "json", lj, "misc/compound", ":2"}, `[{"x":0,"y":0.0},{"x":1,"y":0.2}]` + "\n"},
		{"field", []string{"cat", "--field", "y", lj, "misc/compound", "1:3"}, "# shape (2,), dtype <f8\n0.2\n0.4\n"},
		{"float32 text", []string{"cat", lj, "general/extracellular_ephys/electrodes/x", ":2"}, "# shape (2,), dtype <f4\n99.47444\n0.49294135\n"},
		{"float32 json", []string{"cat", "-f", "json", lj, "general/extracellular_ephys/electrodes/x", ":2"}, "[99.47444,0.49294135]\n"},
		{"attribute", []string{"cat", lj, "misc@int_attr"}, "7\n"},
		{"root attribute json", []string{"cat", "-f", "json", filepath.Join(fixtures, "fixture.h5"), "/@nwb_version"}, "\"2.7.0\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lindi(tc.args...)
			if code != 0 || stdout != tc.want {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, tc.want)
			}
		})
	}
	if code, _, stderr := lindi("cat", "--field", "nope", lj, "misc/compound"); code != 1 || !strings.Contains(stderr, "nope") {
		t.Errorf("unknown field: exit %d, stderr %q", code, stderr)
	}
}

// TestCatNoRange: a server that ignores Range is refused naming --max-whole,
// which then allows the whole download, and --stats counts all of it.
func TestCatNoRange(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtures, "fixture.h5"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/fixture.h5" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data)
	}))
	defer srv.Close()
	url := srv.URL + "/fixture.h5"
	code, _, stderr := lindi("cat", url, "misc/compound")
	if code != 1 || !strings.Contains(stderr, "--max-whole") {
		t.Fatalf("exit %d, stderr %q; want a failure naming --max-whole", code, stderr)
	}
	code, stdout, stderr := lindi("cat", "--stats", "--max-whole", fmt.Sprint(len(data)), url, "misc/compound")
	if code != 0 || !strings.Contains(stdout, "{x: 5, y: 1.0}") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if want := fmt.Sprintf("%d bytes", len(data)); !strings.Contains(stderr, want) {
		t.Errorf("--stats %q does not count the %s sent", stderr, want)
	}
}

// TestCatCache: --cache DIR keeps the ranges read from a URL in DIR, and a
// second run reads the same output.
func TestCatCache(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtures, "fixture.h5"))
	if err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	dir := t.TempDir()
	args := []string{"cat", "--cache", dir, srv.URL + "/fixture.h5", "misc/f4_2d_edge", ":2, :3"}
	code, first, stderr := lindi(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	n := requests.Load()
	code, second, stderr := lindi(args...)
	if code != 0 || second != first {
		t.Fatalf("second run: exit %d, %q, %s", code, second, stderr)
	}
	if again := requests.Load() - n; again != 1 {
		t.Errorf("second run made %d requests, want 1", again)
	}
}

// TestCatFormatFromExtension: without -f the format is the extension's;
// a -f that contradicts it is refused and writes nothing.
func TestCatFormatFromExtension(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(fixtures, "fixture.lindi.json")
	for _, tc := range []struct {
		out, f, want string
	}{
		{"x.npy", "", "\x93NUMPY"},
		{"x.csv", "", "\n"},
		{"x.json", "", "["},
		{"x.dat", "csv", "\n"},
		{"x.npy", "npy", "\x93NUMPY"},
	} {
		out := filepath.Join(dir, tc.out)
		args := []string{"cat", "-o", out}
		if tc.f != "" {
			args = append(args, "-f", tc.f)
		}
		if code, _, stderr := lindi(append(args, src, "misc/f4_2d_edge", "0:2, 0:2")...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		b, _ := os.ReadFile(out)
		if !strings.HasPrefix(string(b), tc.want) && !(tc.want == "\n" && strings.Count(string(b), "\n") == 2 && !strings.HasPrefix(string(b), "[")) {
			t.Errorf("%v wrote %q", args, b)
		}
		os.Remove(out)
	}
	out := filepath.Join(dir, "y.npy")
	code, _, stderr := lindi("cat", "-o", out, "-f", "csv", src, "misc/f4_2d_edge")
	if code != 2 || !strings.Contains(stderr, "-f csv") || !strings.Contains(stderr, "npy") {
		t.Fatalf("-f csv -o y.npy: exit %d, %q; want a usage error naming both", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the refused command wrote y.npy")
	}
}
