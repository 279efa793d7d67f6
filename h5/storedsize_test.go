package h5_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/netsim"
)

// refsSize sums the lengths of the chunk refs of the array key in a LINDI
// JSON document: what StoredSize must find without reading a chunk.
func refsSize(t *testing.T, doc, key string) int64 {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Refs map[string]json.RawMessage }
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	var total int64
	for k, raw := range d.Refs {
		rest, ok := strings.CutPrefix(k, key+"/")
		if !ok || strings.Contains(rest, "/") || strings.HasPrefix(rest, ".z") {
			continue
		}
		var ref []any
		if err := json.Unmarshal(raw, &ref); err != nil || len(ref) != 3 {
			t.Fatalf("%s: not a range ref: %s", k, raw)
		}
		total += int64(ref[2].(float64))
	}
	return total
}

// TestStoredSize: the stored size of a dataset is the sum of its chunks'
// sizes in every local form, and unknown for a remote Zarr store.
func TestStoredSize(t *testing.T) {
	ctx := context.Background()
	const key = "acquisition/ElectricalSeries/data"
	dir := filepath.Join("..", "testdata", "conformance")
	want := refsSize(t, filepath.Join(dir, "fixture.lindi.json"), key)
	if want == 0 {
		t.Fatal("no chunk refs")
	}
	for _, name := range []string{"fixture.h5", "fixture.lindi.json", "fixture.lindi.tar", "fixture.lindi.d"} {
		f, err := h5.Open(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.Dataset(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		n, known, err := d.StoredSize(ctx)
		if err != nil || !known || n != want {
			t.Errorf("%s: StoredSize %d, %v (%v), want %d", name, n, known, err, want)
		}
		f.Close()
	}
	// A local Zarr store: the files' sizes.
	f, err := h5.Open(ctx, filepath.Join(dir, "fixture.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "big_endian_i2")
	if err != nil {
		t.Fatal(err)
	}
	var files int64
	ents, _ := os.ReadDir(filepath.Join(dir, "fixture.zarr", "big_endian_i2"))
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			st, _ := e.Info()
			files += st.Size()
		}
	}
	if n, known, err := d.StoredSize(ctx); err != nil || !known || n != files {
		t.Errorf("Zarr directory: StoredSize %d, %v (%v), want %d", n, known, err, files)
	}
	// Over HTTP each chunk's size would be a request: unknown.
	srv := serve(t, netsim.Config{})
	rf, err := h5.Open(ctx, srv.URL+"/fixture.zarr")
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	rd, err := rf.Dataset(ctx, "big_endian_i2")
	if err != nil {
		t.Fatal(err)
	}
	if n, known, err := rd.StoredSize(ctx); err != nil || known {
		t.Errorf("remote Zarr: StoredSize %d, %v (%v), want unknown", n, known, err)
	}
}
