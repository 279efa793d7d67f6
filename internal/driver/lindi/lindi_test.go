package lindi_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/store"
)

var ctx = context.Background()

// chunkRefs names the blobs of x's two chunks.
var chunkRefs = map[string]string{"x/0": `["./blobs/x/0", 0, 16]`, "x/1": `["./blobs/x/1", 0, 16]`}

// blobs are x's two chunks.
var blobs = []file{{"blobs/x/0", ints(0, 1, 2, 3)}, {"blobs/x/1", ints(4, 5, 6, 7)}}

// readX opens name and reads x, which must be 0…7.
func readX(t *testing.T, name string) *h5.File {
	t.Helper()
	f, err := h5.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	d, err := f.Dataset(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.Read[int32](ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{0, 1, 2, 3, 4, 5, 6, 7}; !slices.Equal(a.Data, want) {
		t.Fatalf("x = %v, want %v", a.Data, want)
	}
	return f
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTarLayouts reads tars laid out as lindi leaves them, from disk and over
// HTTP, where the entry, the index and lindi.json must take at most two
// requests (each a round trip: every one depends on the one before).
func TestTarLayouts(t *testing.T) {
	stale := doc(map[string]string{"x/0": `["./blobs/x/0.old", 0, 16]`, "x/1": `["./blobs/x/1", 0, 16]`})
	big := make([]byte, 200<<10) // pushes lindi.json out of the first 64 KiB
	for _, tc := range []struct {
		name string
		l    layout
	}{
		{"fresh", layout{files: append([]file{{"lindi.json", doc(chunkRefs)}}, blobs...)}},
		{"index moved to the end", layout{files: append(append([]file{{"lindi.json", doc(chunkRefs)}}, blobs...), file{"pad", big}), indexLast: true}},
		{"lindi.json rewritten after the blobs", layout{files: append(append([]file{{"pad", big}}, blobs...), file{"lindi.json", doc(chunkRefs)})}},
		{"stale copies in .trash", layout{
			files: append([]file{{".trash/lindi.json.abcdef", stale}, {".trash/blobs/x/0.qwerty", ints(9, 9, 9, 9)}, {"lindi.json", doc(chunkRefs)}}, blobs...),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := buildTar(t, tc.l)
			f := readX(t, writeTemp(t, "x.lindi.tar", data))
			if f.Format() != "LINDI tar" {
				t.Errorf("Format = %q", f.Format())
			}
			url, c := serveBytes(t, "x.lindi.tar", data)
			g, err := h5.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if n := c.total.Load(); n > 2 {
				t.Errorf("opening took %d requests, want at most 2", n)
			}
			readX(t, url)
		})
	}
}

// TestTarFixtureRequests opens the conformance tar, written by Python lindi,
// over HTTP in at most two requests.
func TestTarFixtureRequests(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/conformance/fixture.lindi.tar")
	if err != nil {
		t.Fatal(err)
	}
	url, c := serveBytes(t, "fixture.lindi.tar", data)
	f, err := h5.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := c.total.Load(); n > 2 {
		t.Errorf("opening took %d requests, want at most 2", n)
	}
	if _, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data"); err != nil {
		t.Error(err)
	}
}

// TestTarHostile opens tars whose entry or index lie: each must fail with
// h5.ErrFormat, naming what is wrong.
func TestTarHostile(t *testing.T) {
	files := append([]file{{"lindi.json", doc(chunkRefs)}}, blobs...)
	for _, tc := range []struct {
		name, want string
		l          layout
	}{
		{"entry not JSON", "tar_entry.json", layout{files: files, editEntry: func(indexFile) string { return "{" }}},
		{"entry without index", "no \"index\"", layout{files: files, editEntry: func(indexFile) string { return `{"x": 1}` }}},
		{"entry names another file", "as the index", layout{files: files, editEntry: func(i indexFile) string {
			return fmt.Sprintf(`{"index": {"n": "lindi.json", "o": %d, "d": %d, "s": %d}}`, i.O, i.D, i.S)
		}}},
		{"index past the end", "outside the file", layout{files: files, editEntry: func(i indexFile) string {
			return fmt.Sprintf(`{"index": {"n": ".tar_index.json", "o": 0, "d": %d, "s": 100}}`, 1<<40)
		}}},
		{"negative size", "of -5 bytes", layout{files: files, editEntry: func(i indexFile) string {
			return fmt.Sprintf(`{"index": {"n": ".tar_index.json", "o": 0, "d": %d, "s": -5}}`, i.D)
		}}},
		{"index lists itself elsewhere", "lists itself", layout{files: files, editIndex: func(f []indexFile) []indexFile {
			f[1].D += 512
			return f
		}}},
		{"member past the end", "outside the file", layout{files: files, editIndex: func(f []indexFile) []indexFile {
			f[2].S = 1 << 40
			return f
		}}},
		{"no lindi.json", "no lindi.json", layout{files: blobs}},
		{"lindi.json not JSON", "lindi.json", layout{files: []file{{"lindi.json", []byte("{")}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h5.Open(ctx, writeTemp(t, "x.lindi.tar", buildTar(t, tc.l)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
			if !errors.Is(err, h5.ErrFormat) && !errors.Is(err, store.ErrFormat) { // a bad lindi.json is the store's to report, as for a .lindi.json
				t.Errorf("%v does not wrap h5.ErrFormat", err)
			}
		})
	}
}

// TestTarBadRefs opens a tar whose refs are broken: the file opens, and the
// read of a broken chunk fails, saying why, rather than reading fill values.
func TestTarBadRefs(t *testing.T) {
	for _, tc := range []struct{ name, ref, want string }{
		{"past the member", `["./blobs/x/0", 8, 16]`, "outside member"},
		{"huge offset", `["./blobs/x/0", 9007199254740991, 1]`, "outside member"},
		{"absent member", `["./blobs/x/9", 0, 16]`, "does not hold"},
		{"trashed member", `["./.trash/blobs/x/0.qwerty", 0, 16]`, "does not hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refs := map[string]string{"x/0": tc.ref, "x/1": chunkRefs["x/1"]}
			files := append([]file{{"lindi.json", doc(refs)}, {".trash/blobs/x/0.qwerty", ints(9, 9, 9, 9)}}, blobs...)
			f, err := h5.Open(ctx, writeTemp(t, "x.lindi.tar", buildTar(t, layout{files: files})))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := f.Dataset(ctx, "x")
			if err != nil {
				t.Fatal(err)
			}
			a, err := h5.Read[int32](ctx, d, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error saying %q", a, err, tc.want)
			}
		})
	}
}

// TestDir reads a .lindi.d and refuses refs that leave it or name absent files.
func TestDir(t *testing.T) {
	root := filepath.Join(t.TempDir(), "x.lindi.d")
	refs := map[string]string{"x/0": chunkRefs["x/0"], "x/1": chunkRefs["x/1"], "y/0": `["./../secret", 0, 4]`, "z/0": `["./blobs/none", 0, 4]`}
	body := strings.Replace(string(doc(refs)), `"x/.zarray"`, `"y/.zarray": {"chunks": [1], "compressor": null, "dtype": "<i4", "fill_value": 0, "filters": null, "order": "C", "shape": [1], "zarr_format": 2},
	"z/.zarray": {"chunks": [1], "compressor": null, "dtype": "<i4", "fill_value": 0, "filters": null, "order": "C", "shape": [1], "zarr_format": 2},
	"x/.zarray"`, 1)
	for name, data := range map[string][]byte{"lindi.json": []byte(body), "blobs/x/0": blobs[0].data, "blobs/x/1": blobs[1].data, "../secret": ints(42)} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := readX(t, root)
	if f.Format() != "LINDI directory" {
		t.Errorf("Format = %q", f.Format())
	}
	for ds, want := range map[string]string{"y": "leaves the directory", "z": "does not hold"} {
		d, err := f.Dataset(ctx, ds)
		if err != nil {
			t.Fatal(err)
		}
		if a, err := h5.Read[int32](ctx, d, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, %v; want an error saying %q", ds, a, err, want)
		}
	}
}
