package h5

import (
	"reflect"
	"testing"
)

// TestTypes: the HDF5 types of datasets, committed datatypes and
// attributes are what h5py's TypeID says of them (the sizes and classes
// h5grove's own server gives for testdata/corners, h5grove/testdata/oracle.json),
// attribute shapes are their dataspaces', and filter pipelines carry the
// ids and names the file gives.
func TestTypes(t *testing.T) {
	ctx := t.Context()
	f := openCorner(t, "tagged.h5")
	d, err := f.Dataset(ctx, "/s21")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Type(); got.Class != ClassOpaque || got.Size != 21 || got.Tag != "NUMPY:|S21" {
		t.Errorf("opaque tagged NUMPY:|S21: %+v", got)
	}
	f = openCorner(t, "vlencompound.h5")
	d, err = f.Dataset(ctx, "/padded")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Type(); got.Class != ClassCompound || got.Size != 46 || got.Members[1].Type.Class != ClassString || !got.Members[1].Type.VlenString {
		t.Errorf("compound with a variable-length string: %+v", got)
	}
	f = openCorner(t, "committed.h5")
	root := f.Root().Attrs()
	want := &Type{Class: ClassEnum, Size: 1, Base: &Type{Class: ClassInteger, Size: 1}, Enum: map[string]int64{"RED": 0, "GREEN": 1, "BLUE": 2}}
	if got := root.Type("color"); !reflect.DeepEqual(got, want) {
		t.Errorf("enum attribute type %+v, want %+v", got, want)
	}
	if shape, ok := root.Shape("color"); !ok || len(shape) != 0 || shape == nil {
		t.Errorf("scalar attribute shape %v %v, want [] true", shape, ok)
	}
	lindi, err := Open(ctx, "../testdata/conformance/fixture.lindi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer lindi.Close()
	if ty := lindi.Root().Attrs().Type("nwb_version"); ty != nil {
		t.Errorf("LINDI attribute with an HDF5 type %+v", ty)
	}
	if _, ok := lindi.Root().Attrs().Shape("nwb_version"); ok {
		t.Error("LINDI attribute with a dataspace shape")
	}
	if d, err = lindi.Dataset(ctx, "/acquisition/ElectricalSeries/data"); err != nil {
		t.Fatal(err)
	}
	if d.Type() != nil {
		t.Errorf("LINDI dataset with an HDF5 type %+v", d.Type())
	}
	f = openCorner(t, "filters.h5")
	d, err = f.Dataset(ctx, "/lz4_shuffle")
	if err != nil {
		t.Fatal(err)
	}
	p := d.Filters().Pipeline
	if len(p) != 2 || p[0] != (Filter{2, "shuffle"}) || p[1].ID != 32004 || p[1].Name == "" {
		t.Errorf("pipeline %+v, want shuffle then HDF5-LZ4 by its name", p)
	}
}

func openCorner(t *testing.T, name string) *File {
	t.Helper()
	f, err := Open(t.Context(), "../testdata/corners/"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
