package h5_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// TestCompoundWithReferences reads a compound column whose rows hold an
// object reference (hdmf's TimeSeriesReferenceVectorData): from the HDF5
// file and from its LINDI JSON, the numeric fields convert and the reference
// field holds references, not file addresses.
func TestCompoundWithReferences(t *testing.T) {
	for _, name := range []string{"tables.nwb", "tables.nwb.lindi.json"} {
		t.Run(name, func(t *testing.T) {
			f, err := h5.Open(ctx, filepath.Join("..", "testdata", "nwb", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := f.Dataset(ctx, "intervals/trials/timeseries")
			if err != nil {
				t.Fatal(err)
			}
			a, err := d.Read(ctx, parse(t, "1:4"))
			if err != nil {
				t.Fatal(err)
			}
			start, err := a.Field("idx_start")
			if err != nil {
				t.Fatal(err)
			}
			sv, err := h5.As[int32](start)
			if err != nil || !slices.Equal(sv.Data, []int32{100, 200, 300}) {
				t.Errorf("idx_start = %v, %v; want [100 200 300]", sv, err)
			}
			count, err := a.Field("count")
			if err != nil {
				t.Fatal(err)
			}
			cv, err := h5.AsExact[int32](count)
			if err != nil || !slices.Equal(cv.Data, []int32{100, 100, 100}) {
				t.Errorf("count = %v, %v; want [100 100 100]", cv, err)
			}
			ts, err := a.Field("timeseries")
			if err != nil {
				t.Fatal(err)
			}
			rv, err := h5.As[h5.Reference](ts)
			if err != nil || len(rv.Data) != 3 || rv.Data[2].Path != "/acquisition/ElectricalSeries" {
				t.Errorf("timeseries = %v, %v", rv, err)
			}
		})
	}
}
