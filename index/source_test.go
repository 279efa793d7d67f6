package index_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/index"
)

// sourceFixtures are the HDF5 files of the repository that TestSameAsSource
// indexes.
var sourceFixtures = []string{
	"../testdata/conformance/fixture.h5",
	"../testdata/conformance/fixture-latest.h5",
	"../testdata/nwb/tables.nwb",
	"../testdata/parity/parity.h5",
	"../testdata/parity/features.h5",
	"../testdata/parity/broken.h5",
	"../testdata/parity/ext-target.h5",
	"../testdata/corners/vds.h5",
	"../hdf5/internal/layout/testdata/indexes.h5",
	"testdata/shapes.h5",
}

// TestSameAsSource is lindi_dump.py's check (testdata/lindi_dump_check.sh)
// with our reader on both sides: every HDF5 fixture is indexed, with lindi's
// chunk threshold and with every chunk listed, and its JSON must read
// through h5 as the source reads through the HDF5 driver: the same groups,
// datasets and soft links, every attribute with the same Go type and value
// (a float stays a float64), every dataset with the same dtype, shape and
// values, or the same failure to read. What LINDI cannot hold is left out
// and must be what the source has: external links and the attributes lindi
// refuses (see refused).
func TestSameAsSource(t *testing.T) {
	for _, src := range sourceFixtures {
		for mode, opts := range map[string][]index.Option{"default": nil, "all chunks": {index.AllChunks()}} {
			t.Run(filepath.Base(src)+"/"+mode, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "x.lindi.json")
				if err := index.WriteFile(ctx, src, out, opts...); err != nil {
					t.Fatal(err)
				}
				want, err := h5.Open(ctx, src)
				if err != nil {
					t.Fatal(err)
				}
				defer want.Close()
				got, err := h5.Open(ctx, out)
				if err != nil {
					t.Fatal(err)
				}
				defer got.Close()
				if got.Format() == want.Format() {
					t.Fatalf("the index opened as %s, like its source", got.Format())
				}
				compareTrees(t, want, got)
			})
		}
	}
}

func compareTrees(t *testing.T, want, got *h5.File) {
	t.Helper()
	compareAttrs(t, "/", want.Root().Attrs(), got.Root().Attrs())
	n := 0
	err := want.Root().Walk(ctx, func(path string, l h5.Link, obj h5.Object, err error) error {
		n++
		parent, name := filepath.Dir(path), filepath.Base(path)
		g, gerr := got.Group(ctx, parent)
		if gerr != nil {
			t.Errorf("%s: %v", parent, gerr)
			return h5.SkipGroup
		}
		gl, ok := g.Link(name)
		switch {
		case l.Kind == h5.ExternalLink:
			if ok {
				t.Errorf("%s: an external link in the index: %+v", path, gl)
			}
			return nil
		case !ok:
			t.Errorf("%s: missing from the index", path)
			return h5.SkipGroup
		case gl.Kind != l.Kind || gl.Target != l.Target:
			t.Errorf("%s: link %+v, source %+v", path, gl, l)
			return nil
		case l.Kind == h5.SoftLink:
			return nil
		case err != nil:
			return nil // the source cannot follow it either
		}
		o, err := got.Get(ctx, path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return h5.SkipGroup
		}
		compareAttrs(t, path, obj.Attrs(), o.Attrs())
		switch w := obj.(type) {
		case *h5.Dataset:
			d, ok := o.(*h5.Dataset)
			if !ok {
				t.Errorf("%s: a %T in the index, a dataset in the source", path, o)
				return nil
			}
			compareDatasets(t, path, w, d)
		case *h5.Group:
			if _, ok := o.(*h5.Group); !ok {
				t.Errorf("%s: a %T in the index, a group in the source", path, o)
				return h5.SkipGroup
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("the source has no objects")
	}
}

// compareAttrs checks that the index has every attribute of the source that
// lindi can hold, with the same Go type and value, and no other.
func compareAttrs(t *testing.T, path string, want, got h5.Attrs) {
	t.Helper()
	for _, name := range want.Names() {
		w, werr := want.Get(name)
		g, gerr := got.Get(name)
		switch {
		case !got.Has(name):
			if !refused(w, werr) {
				t.Errorf("%s@%s: missing from the index (source: %T %v, %v)", path, name, w, w, werr)
			}
		case werr != nil || gerr != nil:
			t.Errorf("%s@%s: source %v, index %v", path, name, werr, gerr)
		case !sameValue(w, g):
			t.Errorf("%s@%s: index %T %#v, source %T %#v", path, name, g, g, w, w)
		}
	}
	for _, name := range got.Names() {
		if !want.Has(name) {
			t.Errorf("%s@%s: not in the source", path, name)
		}
	}
}

// refused reports whether lindi leaves an attribute out of its JSON (as
// h5_to_zarr_attr refuses it): one not decoded, empty, a compound element
// or array, a region reference, or a list that is not an N-d array of one
// simple type (h5py's dimension-scale lists of references).
func refused(v any, err error) bool {
	if err != nil || v == nil {
		return true
	}
	switch v := v.(type) {
	case map[string]any, h5.RegionReference:
		return true
	case []any:
		return !ndArray(v)
	case []int64:
		return len(v) == 0
	case []float64:
		return len(v) == 0
	case []string:
		return len(v) == 0
	}
	return false
}

// ndArray reports whether v is the rows of an N-d array of numbers, strings
// or booleans: lists of one type and length, nested alike.
func ndArray(v []any) bool {
	if len(v) == 0 {
		return false
	}
	first := reflect.TypeOf(v[0])
	n := reflect.ValueOf(v[0])
	for _, row := range v {
		r := reflect.ValueOf(row)
		if reflect.TypeOf(row) != first || r.Kind() != reflect.Slice || r.Len() != n.Len() {
			return false
		}
		switch row := row.(type) {
		case []any:
			if !ndArray(row) {
				return false
			}
		case []int64, []uint64, []float64, []string, []bool:
		default:
			return false
		}
	}
	return true
}

// sameValue is reflect.DeepEqual with NaN equal to NaN.
func sameValue(a, b any) bool {
	return reflect.DeepEqual(a, b) || fmt.Sprintf("%T %v", a, a) == fmt.Sprintf("%T %v", b, b)
}

func compareDatasets(t *testing.T, path string, want, got *h5.Dataset) {
	t.Helper()
	if w, g := want.DType(), got.DType(); !reflect.DeepEqual(w, g) {
		t.Errorf("%s: dtype %s in the index, %s in the source", path, g, w)
	}
	if w, g := want.Shape(), got.Shape(); !reflect.DeepEqual(w, g) || want.Scalar() != got.Scalar() {
		t.Errorf("%s: shape %v (scalar %v) in the index, %v (scalar %v) in the source", path, g, got.Scalar(), w, want.Scalar())
	}
	w, werr := want.Read(ctx, nil)
	g, gerr := got.Read(ctx, nil)
	switch {
	case werr != nil && gerr != nil:
		return // neither reads (a layout or filter the HDF5 driver does not read)
	case werr != nil || gerr != nil:
		t.Errorf("%s: read: index %v, source %v", path, gerr, werr)
	case !reflect.DeepEqual(w.Data, g.Data) && !(len(w.Data) == 0 && len(g.Data) == 0):
		t.Errorf("%s: the index reads other bytes than the source", path)
	case !sameValue(w.Objects, g.Objects):
		t.Errorf("%s: index %v, source %v", path, g.Objects, w.Objects)
	}
}
