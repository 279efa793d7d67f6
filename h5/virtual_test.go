package h5

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/selection"
)

// vdsCase is h5py's reading of one virtual dataset of
// testdata/corners/vds.h5 (gen_vds.py).
type vdsCase struct {
	Shape  []int
	DType  string
	Fill   float64
	Value  any
	Slices map[string]any
}

// TestVirtual reads the virtual datasets of testdata/corners/vds.h5 whole
// and sliced, as h5py reads them: sources in other files and in the same
// one, strided and blocked hyperslabs, a 2-D block, overlapping mappings
// (the later wins), elements no mapping covers and a missing source file
// (both the fill value).
func TestVirtual(t *testing.T) {
	raw, err := os.ReadFile("../testdata/corners/vds.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]vdsCase
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	f := openCorner(t, "vds.h5")
	for path, w := range want {
		t.Run(path, func(t *testing.T) {
			d, err := f.Dataset(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			if !d.IsVirtual() || d.Chunks() != nil || fmt.Sprint(d.Shape()) != fmt.Sprint(w.Shape) || d.DType().String() != w.DType {
				t.Errorf("virtual %v chunks %v shape %v dtype %s, want virtual, no chunks, %v %s", d.IsVirtual(), d.Chunks(), d.Shape(), d.DType(), w.Shape, w.DType)
			}
			checkVirtualRead(t, d, nil, w.Value)
			for text, v := range w.Slices {
				sel, err := selection.Parse(text)
				if err != nil {
					t.Fatal(err)
				}
				checkVirtualRead(t, d, sel, v)
			}
		})
	}
}

func checkVirtualRead(t *testing.T, d *Dataset, sel selection.Selection, want any) {
	t.Helper()
	a, err := Read[float64](t.Context(), d, sel)
	if err != nil {
		t.Fatalf("read %v: %v", sel, err)
	}
	if got, w := fmt.Sprint(nest(a.Data, a.Shape)), fmt.Sprint(want); got != w {
		t.Errorf("read %v: %s, h5py reads %s", sel, got, w)
	}
}

// nest turns C-order data into nested slices of the shape, as JSON holds
// h5py's arrays.
func nest(data []float64, shape []int) any {
	if len(shape) == 0 {
		return data[0]
	}
	out := []any{}
	step := len(data) / max(shape[0], 1)
	for i := range shape[0] {
		out = append(out, nest(data[i*step:(i+1)*step], shape[1:]))
	}
	return out
}

// TestVirtualCopied: the source files are found beside the virtual
// dataset's file wherever it is; without them, their elements are fill.
func TestVirtualCopied(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"vds.h5", "vds_src0.h5"} {
		b, err := os.ReadFile(filepath.Join("../testdata/corners", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Open(t.Context(), filepath.Join(dir, "vds.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(t.Context(), "stacked")
	if err != nil {
		t.Fatal(err)
	}
	checkVirtualRead(t, d, nil, []any{
		[]any{10, 11, 12, 13, 14, 15}, []any{-1, -1, -1, -1, -1, -1}, []any{-1, -1, -1, -1, -1, -1}})
}

// TestVirtualConfined: a source named outside the virtual dataset's
// directory is read when nothing confines the file, and refused, never
// read nor taken for missing, under WithRoot.
func TestVirtualConfined(t *testing.T) {
	dir := t.TempDir()
	served := filepath.Join(dir, "served")
	if err := os.Mkdir(served, 0o755); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{"vds_up.h5": filepath.Join(served, "vds_up.h5"), "vds_src0.h5": filepath.Join(dir, "vds_src0.h5")} {
		b, err := os.ReadFile(filepath.Join("../testdata/corners", from))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(opts ...Option) ([]float64, error) {
		f, err := Open(t.Context(), filepath.Join(served, "vds_up.h5"), opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		d, err := f.Dataset(t.Context(), "up")
		if err != nil {
			t.Fatal(err)
		}
		a, err := Read[float64](t.Context(), d, nil)
		if err != nil {
			return nil, err
		}
		return a.Data, nil
	}
	if got, err := read(); err != nil || fmt.Sprint(got) != "[10 11 12 13 14 15]" {
		t.Errorf("unconfined: %v, %v", got, err)
	}
	root, err := os.OpenRoot(served)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if got, err := read(WithRoot(root)); !errors.Is(err, ErrOutside) {
		t.Errorf("confined to %s: read %v, %v; want ErrOutside", served, got, err)
	}
}

// TestVirtualMaterialize: a large virtual dataset an index links to its
// HDF5 file materializes into chunks of its values (it has no chunks of
// its own to ref) and is written like any other.
func TestVirtualMaterialize(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	for _, name := range []string{"vds.h5", "vds_src2.h5"} {
		b, err := os.ReadFile(filepath.Join("../testdata/corners", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := Open(ctx, filepath.Join(dir, "vds.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := CreateFrom(ctx, t.Name()+".mem.lindi", src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read[float64](ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Materialize(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := Read[float64](ctx, d, nil)
	if err != nil || fmt.Sprint(got.Data) != fmt.Sprint(want.Data) || want.Data[5] != 10 || want.Data[600] != -3 {
		t.Fatalf("after Materialize: %v (%d values), want %v", err, len(got.Data), want.Data[:10])
	}
	if err := Write(ctx, d, selection.Selection{selection.Index(1), selection.Index(0)}, []float64{5}); err != nil {
		t.Fatal(err)
	}
}

// TestVirtualLeftOut: mappings this module does not read (a printf-style
// source name, an unlimited block; h5py reads both) and a dataset mapped
// from itself (h5py crashes) fail the read with an error naming the
// dataset and what is unsupported, never wrong data; the file and the
// datasets' metadata open.
func TestVirtualLeftOut(t *testing.T) {
	f := openCorner(t, "vds_unlimited.h5")
	for path, what := range map[string]string{"/printf": `printf-style source name "vds_src%b.h5"`, "/unlimited": "unlimited hyperslab",
		"/self": "more than 8 virtual datasets mapped from one another"} {
		d, err := f.Dataset(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsVirtual() || d.Err() != nil {
			t.Errorf("%s: virtual %v, Err %v", path, d.IsVirtual(), d.Err())
		}
		_, err = d.Read(t.Context(), nil)
		if err == nil || !strings.Contains(err.Error(), "unsupported") || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: read: %v, want an unsupported feature naming %s and %q", path, err, path, what)
		}
	}
}

// TestVirtualRemote: a virtual dataset read over HTTP finds its sources
// beside it on the server, and a missing one reads as fill (a 404).
func TestVirtualRemote(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir("../testdata/corners")))
	defer srv.Close()
	f, err := Open(t.Context(), srv.URL+"/vds.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for path, want := range map[string]any{
		"stacked": []any{[]any{10, 11, 12, 13, 14, 15}, []any{20, 21, 22, 23, 24, 25}, []any{30, 31, 32, 33, 34, 35}},
		"missing": []any{7, 7, 14, 15},
	} {
		d, err := f.Dataset(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		checkVirtualRead(t, d, nil, want)
	}
}
