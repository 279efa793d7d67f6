package h5_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

func readF64(t *testing.T, f *h5.File, path string) []float64 {
	t.Helper()
	d, err := f.Dataset(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.Read[float64](context.Background(), d, selection.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	return a.Data
}

// openBytes opens the bytes of the file at path with OpenReaderAt.
func openBytes(t *testing.T, path string) *h5.File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := h5.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestOpenReaderAt opens the bytes of an HDF5 file and of a LINDI document
// from an io.ReaderAt, through the same drivers as Open.
func TestOpenReaderAt(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "testdata", "conformance")
	named, err := h5.Open(ctx, filepath.Join(dir, "fixture.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer named.Close()
	want := readF64(t, named, "misc/f4_2d_edge")

	f := openBytes(t, filepath.Join(dir, "fixture.h5"))
	defer f.Close()
	if f.Format() != "HDF5" {
		t.Errorf("Format = %q", f.Format())
	}
	if got := readF64(t, f, "misc/f4_2d_edge"); !slices.Equal(got, want) {
		t.Errorf("read from the ReaderAt differs from the named file")
	}

	// A LINDI document from bytes has no location: its inline data reads,
	// its refs to ./fixture.h5 fail rather than open a local file.
	lf := openBytes(t, filepath.Join(dir, "fixture.lindi.json"))
	defer lf.Close()
	if lf.Format() != "LINDI JSON" {
		t.Errorf("Format = %q", lf.Format())
	}
	if got := readF64(t, lf, "general/extracellular_ephys/electrodes/x"); len(got) != 24 {
		t.Errorf("inline dataset read %d elements, want 24", len(got))
	}
	d, err := lf.Dataset(ctx, "misc/f4_2d_edge")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, selection.Selection{}); err == nil || !strings.Contains(err.Error(), "no location") {
		t.Errorf("a relative ref from bytes: err = %v, want one saying it has no location", err)
	}

	if _, err := h5.OpenReaderAt(ctx, bytes.NewReader(nil), -1); err == nil {
		t.Error("a negative size opened")
	}
	if _, err := h5.OpenReaderAt(ctx, bytes.NewReader([]byte("neither")), 7); !errors.Is(err, h5.ErrFormat) {
		t.Errorf("junk bytes: err = %v, want ErrFormat", err)
	}
}

// TestOpenReaderAtExternalLink: an HDF5 file from bytes has no location, so
// a relative external link fails instead of opening a local file.
func TestOpenReaderAtExternalLink(t *testing.T) {
	ctx := context.Background()
	f := openBytes(t, filepath.Join("..", "testdata", "parity", "features.h5"))
	defer f.Close()
	if _, err := f.Get(ctx, "ext"); err == nil || !strings.Contains(err.Error(), "no location") {
		t.Fatalf("a relative external link from bytes: err = %v, want one saying it has no location", err)
	}
}

// TestOpenRefs opens a reference document given as a Go value: the whole
// document or its refs alone, relative to a base or with none.
func TestOpenRefs(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join("..", "testdata", "conformance", "fixture.lindi.json")
	named, err := h5.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer named.Close()
	want := readF64(t, named, "misc/f4_2d_edge")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	f, err := h5.OpenRefs(ctx, doc, path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := readF64(t, f, "misc/f4_2d_edge"); !slices.Equal(got, want) {
		t.Errorf("OpenRefs read differs from Open")
	}

	// The refs alone, with no base: metadata opens, relative refs fail.
	refs := doc["refs"].(map[string]any)
	delete(doc, "refs")
	g, err := h5.OpenRefs(ctx, map[string]any{"refs": refs, "templates": doc["templates"]}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	d, err := g.Dataset(ctx, "misc/f4_2d_edge")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, selection.Selection{}); err == nil {
		t.Error("a relative ref with no base was read")
	}
	if _, err := h5.OpenRefs(ctx, map[string]any{".zgroup": `{"zarr_format":2}`}, ""); err != nil {
		t.Errorf("bare refs: %v", err)
	}
	if _, err := h5.OpenRefs(ctx, map[string]any{"x": func() {}}, ""); !errors.Is(err, h5.ErrFormat) {
		t.Errorf("unencodable refs: err = %v, want ErrFormat", err)
	}
}
