package h5_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// TestStringOrReference tells strings and references apart by dtype, as
// h5py's check_string_dtype and check_ref_dtype do, on both forms of a file.
func TestStringOrReference(t *testing.T) {
	ctx := context.Background()
	type want struct {
		str  bool
		info h5.StringInfo
		ref  h5.RefKind
	}
	cases := map[string]want{
		"misc/vlen_strings":                            {true, h5.StringInfo{Encoding: "utf-8"}, h5.NoRef},
		"misc/fixed_strings":                           {true, h5.StringInfo{Encoding: "ascii", Length: 8}, h5.NoRef},
		"session_description":                          {true, h5.StringInfo{Encoding: "utf-8"}, h5.NoRef},
		"general/extracellular_ephys/electrodes/group": {false, h5.StringInfo{}, h5.ObjectRef},
		"acquisition/ElectricalSeries/data":            {false, h5.StringInfo{}, h5.NoRef},
		"misc/compound":                                {false, h5.StringInfo{}, h5.NoRef},
	}
	for _, name := range []string{"fixture.h5", "fixture.lindi.json"} {
		f, err := h5.Open(ctx, filepath.Join("..", "testdata", "conformance", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for path, w := range cases {
			t.Run(name+"/"+path, func(t *testing.T) {
				d, err := f.Dataset(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				info, ok, err := d.StringInfo(ctx)
				if err != nil || ok != w.str || info != w.info {
					t.Errorf("StringInfo = %+v, %v, %v; want %+v, %v", info, ok, err, w.info, w.str)
				}
				if k, err := d.RefKind(ctx); err != nil || k != w.ref {
					t.Errorf("RefKind = %v, %v; want %v", k, err, w.ref)
				}
			})
		}
	}
	f, err := h5.Open(ctx, filepath.Join("..", "testdata", "parity", "features.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "regions")
	if err != nil {
		t.Fatal(err)
	}
	if k, err := d.RefKind(ctx); err != nil || k != h5.RegionRef {
		t.Errorf("regions: RefKind = %v, %v; want region", k, err)
	}
	if _, ok, _ := d.StringInfo(ctx); ok {
		t.Errorf("regions: StringInfo says strings")
	}
}
