package index_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/zarrmeta"
)

// TestVirtualIndex: a small virtual dataset, which has no chunks of its
// own, is inlined with its values read from its sources (as lindi inlines
// one of fewer than 1000 elements), a larger one whose sources' chunks are
// its chunks is refs to them; shape, dtype and fill are kept, and the index
// reads as h5py reads the file.
func TestVirtualIndex(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"vds.h5", "vds_src0.h5", "vds_src1.h5", "vds_src2.h5"} {
		b, err := os.ReadFile(filepath.Join("../testdata/corners", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(dir, "vds.h5")
	out := index.DefaultOutput(src)
	if err := index.WriteFile(ctx, src, out); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Refs map[string]json.RawMessage }
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Refs["stacked/0.0"] == nil || strings.Contains(string(doc.Refs["stacked/.zattrs"]), zarrmeta.AttrExternalArrayLink) {
		t.Errorf("stacked: chunk %s, attributes %s: want its values inline", doc.Refs["stacked/0.0"], doc.Refs["stacked/.zattrs"])
	}
	// big's rows are vds_src2.h5's /long, chunked by 100: its chunks are
	// big's, but for the first of row 1, which no mapping reaches (fill).
	var ref []any
	if err := json.Unmarshal(doc.Refs["big/1.5"], &ref); err != nil || len(ref) != 3 || doc.Refs["big/1.0"] != nil {
		t.Errorf("big (1200 elements): chunk 1.5 %s (%v), chunk 1.0 %s: want refs to its source's chunks", doc.Refs["big/1.5"], err, doc.Refs["big/1.0"])
	}
	if _, err := base64Chunk(doc.Refs["shifted/0"]); err != nil {
		t.Errorf("shifted (off its source's chunk boundaries): chunk %.40s: %v, want it inline", doc.Refs["shifted/0"], err)
	}
	var zarray struct{ Chunks []int }
	if err := json.Unmarshal(doc.Refs["big/.zarray"], &zarray); err != nil || fmt.Sprint(zarray.Chunks) != "[1 100]" {
		t.Errorf("big/.zarray %s: want chunks [1, 100]", doc.Refs["big/.zarray"])
	}
	raw, err := os.ReadFile("../testdata/corners/vds.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Shape []int
		Fill  float64
		Value any
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	f, err := h5.Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for path, w := range want {
		d, err := f.Dataset(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		a, err := h5.Read[float64](ctx, d, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got, wv := fmt.Sprint(a.Data), fmt.Sprint(numbers(w.Value)); got != wv || fmt.Sprint(a.Shape) != fmt.Sprint(w.Shape) {
			t.Errorf("%s: %v %s, h5py reads %v %s", path, a.Shape, got, w.Shape, wv)
		}
		var zarray struct {
			FillValue float64 `json:"fill_value"`
		}
		if err := json.Unmarshal(doc.Refs[path[1:]+"/.zarray"], &zarray); err != nil || zarray.FillValue != w.Fill {
			t.Errorf("%s: fill_value %v (%v), want %v", path, zarray.FillValue, err, w.Fill)
		}
	}
}

// numbers lists the numbers of nested JSON lists in order.
func numbers(v any) []float64 {
	l, ok := v.([]any)
	if !ok {
		return []float64{v.(float64)}
	}
	var out []float64
	for _, x := range l {
		out = append(out, numbers(x)...)
	}
	return out
}

// TestVirtualIndexLink: a virtual dataset whose values cannot be read (an
// unsupported mapping) is a link to itself in the HDF5 file, its metadata
// kept.
func TestVirtualIndexLink(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../testdata/corners/vds_unlimited.h5")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "vds_unlimited.h5")
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := index.DefaultOutput(src)
	if err := index.WriteFile(ctx, src, out); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Refs map[string]json.RawMessage }
	if b, err = os.ReadFile(out); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc.Refs["printf/.zattrs"]), zarrmeta.AttrExternalArrayLink) || doc.Refs["printf/0"] != nil {
		t.Errorf("printf: attributes %s, chunk %s: want a link", doc.Refs["printf/.zattrs"], doc.Refs["printf/0"])
	}
	f, err := h5.Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "printf")
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(d.Shape()) != "[6]" || d.DType().String() != "<i4" {
		t.Errorf("printf: shape %v dtype %s", d.Shape(), d.DType())
	}
	if _, err := d.Read(ctx, nil); err == nil || !strings.Contains(err.Error(), "printf-style") {
		t.Errorf("printf read through the link: %v", err)
	}
}

// base64Chunk decodes an inline base64 ref.
func base64Chunk(ref json.RawMessage) ([]byte, error) {
	var s string
	if err := json.Unmarshal(ref, &s); err != nil {
		return nil, err
	}
	b, ok := strings.CutPrefix(s, "base64:")
	if !ok {
		return nil, fmt.Errorf("not base64: %.20q", s)
	}
	return base64.StdEncoding.DecodeString(b)
}
