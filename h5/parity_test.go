package h5_test

import (
	"testing"

	"github.com/lindigo/lindi/h5"
)

// TestLayout: an HDF5 dataset that is not chunked reports its layout and no
// chunks, as h5py's chunks=None; LINDI and Zarr arrays are chunked. Size
// counts elements, as h5py's size.
func TestLayout(t *testing.T) {
	for _, tc := range []struct {
		file, path string
		layout     h5.Layout
		chunks     []int
		size       int
	}{
		{"fixture.h5", "misc/contiguous_f8", h5.Contiguous, nil, 9220},
		{"fixture.h5", "misc/scalar_int", h5.Contiguous, nil, 1},
		{"fixture.h5", "acquisition/ElectricalSeries/data", h5.Chunked, []int{689, 24}, 5946 * 24},
		{"fixture-latest.h5", "misc/contiguous_f8", h5.Contiguous, nil, 9220},
		{"fixture.lindi.json", "misc/contiguous_f8", h5.Chunked, []int{922, 10}, 9220},
		{"fixture.lindi.json", "acquisition/ElectricalSeries/data", h5.Chunked, []int{689, 24}, 5946 * 24},
	} {
		t.Run(tc.file+"/"+tc.path, func(t *testing.T) {
			d, err := open(t, tc.file).Dataset(ctx, tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if d.Layout() != tc.layout {
				t.Errorf("Layout() = %v, want %v", d.Layout(), tc.layout)
			}
			if got := d.Chunks(); (got == nil) != (tc.chunks == nil) || !equalInts(got, tc.chunks) {
				t.Errorf("Chunks() = %#v, want %#v", got, tc.chunks)
			}
			if d.Size() != tc.size {
				t.Errorf("Size() = %d, want %d", d.Size(), tc.size)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
