package h5_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// TestReadField reads one field of a compound dataset (h5py's ds[sel][name])
// and checks it against the field picked from a whole read, on every form of
// the fixture: packed elements (HDF5) and rows (LINDI JSON).
func TestReadField(t *testing.T) {
	for _, name := range []string{"fixture.h5", "fixture-latest.h5", "fixture.lindi.json"} {
		f := open(t, name)
		d, err := f.Dataset(ctx, "misc/compound")
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"...", "::-2", "[4, 0, 4]", "1:1", "vindex([5, 2])"} {
			for _, field := range []string{"x", "y"} {
				whole, err := d.Read(ctx, parse(t, text))
				if err != nil {
					t.Fatalf("%s %s: %v", name, text, err)
				}
				want, err := whole.Field(field)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.ReadField(ctx, field, parse(t, text))
				if err != nil {
					t.Fatalf("%s[%s][%q]: %v", name, text, field, err)
				}
				if got.DType.String() != want.DType.String() || !slices.Equal(got.Shape, want.Shape) || !bytes.Equal(got.Data, want.Data) {
					t.Errorf("%s[%s][%q]: got %s %v %x, want %s %v %x", name, text, field, got.DType, got.Shape, got.Data, want.DType, want.Shape, want.Data)
				}
			}
		}
		if _, err := d.ReadField(ctx, "nope", nil); !errors.Is(err, h5.ErrNotFound) {
			t.Errorf("%s: a field that does not exist: %v", name, err)
		}
	}
}
