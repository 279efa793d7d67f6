package zarr_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
)

var ctx = context.Background()

// hdmfStores are the hdmf-zarr stores of testdata/nwbzarr, each beside the
// same NWB file written as HDF5 by pynwb.
var hdmfStores = []string{"ecephys", "ecephys_jsoncodec", "ecephys_exported", "ophys_behavior", "ophys_behavior_exported"}

func fixture(name string) string { return filepath.Join("..", "..", "..", "testdata", "nwbzarr", name) }

func openH5(t testing.TB, name string) *h5.File {
	t.Helper()
	f, err := h5.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// object is what the comparison sees of one link of a file.
type object struct {
	kind    string // "group", "dataset", "soft link → target", "external ..."
	attrs   map[string]any
	shape   []int
	scalar  bool
	dtype   string
	refKind h5.RefKind
	str     *h5.StringInfo
	values  any
	err     string
}

// describe walks a file into its objects by path, every dataset read whole.
func describe(t *testing.T, f *h5.File) map[string]object {
	t.Helper()
	out := map[string]object{}
	add := func(p string, l h5.Link, o h5.Object, err error) error {
		var ob object
		switch l.Kind {
		case h5.SoftLink:
			ob.kind = "soft link → " + l.Target
			if err != nil {
				ob.err = err.Error()
			}
			out[p] = ob
			return nil
		case h5.ExternalLink:
			ob.kind = "external link → " + l.File + ":" + l.Target
			out[p] = ob
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		ob, err = objectOf(o)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		out[p] = ob
		return nil
	}
	root := f.Root()
	if err := add("/", h5.Link{Name: "/"}, root, nil); err != nil {
		t.Fatal(err)
	}
	if err := root.Walk(ctx, add); err != nil {
		t.Fatal(err)
	}
	return out
}

// describeOne describes one group or dataset.
func describeOne(t *testing.T, o h5.Object) object {
	t.Helper()
	ob, err := objectOf(o)
	if err != nil {
		t.Fatalf("%s: %v", o.Path(), err)
	}
	return ob
}

// objectOf describes a group or a dataset, read whole.
func objectOf(o h5.Object) (object, error) {
	var ob object
	var attrs h5.Attrs
	var err error
	switch o := o.(type) {
	case *h5.Group:
		ob.kind, attrs = "group", o.Attrs()
	case *h5.Dataset:
		ob.kind, attrs = "dataset", o.Attrs()
		ob.shape, ob.scalar, ob.dtype = o.Shape(), o.Scalar(), o.DType().String()
		if ob.refKind, err = o.RefKind(ctx); err != nil {
			return ob, err
		}
		if s, ok, err := o.StringInfo(ctx); err != nil {
			return ob, err
		} else if ok {
			ob.str = &s
		}
		a, err := o.Read(ctx, nil)
		if err != nil {
			return ob, err
		}
		if a.Objects != nil {
			ob.values = a.Objects
		} else {
			ob.values = a.Data
		}
	}
	ob.attrs = map[string]any{}
	for _, n := range attrs.Names() {
		v, err := attrs.Get(n)
		if err != nil {
			return ob, fmt.Errorf("attribute %s: %w", n, err)
		}
		ob.attrs[n] = v
	}
	return ob, nil
}

// TestHDMFZarrLikeHDF5 compares each hdmf-zarr store with its HDF5 twin
// object by object through h5: the same paths, kinds, link targets,
// attributes (references included), shapes, dtypes, reference and string
// kinds and every value.
func TestHDMFZarrLikeHDF5(t *testing.T) {
	for _, name := range hdmfStores {
		t.Run(name, func(t *testing.T) {
			z := describe(t, openH5(t, fixture(name+".nwb.zarr")))
			h := describe(t, openH5(t, fixture(name+".nwb")))
			var paths []string
			for p := range h {
				paths = append(paths, p)
			}
			for p := range z {
				if _, ok := h[p]; !ok {
					t.Errorf("%s: only in the Zarr store", p)
				}
			}
			slices.Sort(paths)
			for _, p := range paths {
				zo, ok := z[p]
				if !ok {
					t.Errorf("%s: only in the HDF5 file", p)
					continue
				}
				ho := h[p]
				if !reflect.DeepEqual(zo.attrs, ho.attrs) {
					for k := range ho.attrs {
						if !reflect.DeepEqual(zo.attrs[k], ho.attrs[k]) {
							t.Errorf("%s: attribute %s = %#v, HDF5 %#v", p, k, zo.attrs[k], ho.attrs[k])
						}
					}
					for k := range zo.attrs {
						if _, ok := ho.attrs[k]; !ok {
							t.Errorf("%s: attribute %s only in the Zarr store", p, k)
						}
					}
				}
				zo.attrs, ho.attrs = nil, nil
				if strings.HasSuffix(name, "_exported") && zo.str != nil && ho.str != nil && *zo.str == (h5.StringInfo{Encoding: "utf-8"}) {
					// An exported store pickles string scalars, saying
					// nothing of their encoding: they read as UTF-8.
					zo.str = ho.str
				}
				if !reflect.DeepEqual(zo, ho) {
					t.Errorf("%s:\n Zarr %s\n HDF5 %s", p, show(zo), show(ho))
				}
			}
			if len(paths) < 40 {
				t.Errorf("only %d objects", len(paths))
			}
		})
	}
}

func show(o object) string {
	v := fmt.Sprintf("%v", o.values)
	if len(v) > 200 {
		v = v[:200] + "..."
	}
	s := fmt.Sprintf("%s shape %v scalar %v dtype %s ref %v", o.kind, o.shape, o.scalar, o.dtype, o.refKind)
	if o.str != nil {
		s += fmt.Sprintf(" string %+v", *o.str)
	}
	if o.err != "" {
		s += " error " + o.err
	}
	return s + " values " + strings.TrimSpace(v)
}
