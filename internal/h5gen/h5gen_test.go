package h5gen

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/lindigo/lindi/hdf5"
)

func TestNWBSize(t *testing.T) {
	b, err := NWB(120, 6000)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10<<20 {
		t.Errorf("%d bytes, want an NWB-sized file over 10 MB", len(b))
	}
	if _, err := NWB(0, 1); err == nil {
		t.Error("NWB(0, 1) did not fail")
	}
}

// TestNWBReads checks that the generated file is HDF5 the reader accepts,
// with the shapes, layouts, values and references NWB documents.
func TestNWBReads(t *testing.T) {
	ctx := context.Background()
	b, err := NWB(3, 250)
	if err != nil {
		t.Fatal(err)
	}
	f, err := hdf5.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.Dataset(ctx, "acquisition/series_002/data")
	if err != nil {
		t.Fatal(err)
	}
	if got := data.Shape(); !reflect.DeepEqual(got, []uint64{250, 8}) || data.Layout() != hdf5.LayoutChunked {
		t.Errorf("data: shape %v, layout %s; want [250 8] chunked", got, data.Layout())
	}
	loc, err := data.Locator(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ch, err := loc.Locate(ctx, []int{2, 0}); err != nil || ch.Missing || ch.Len == 0 {
		t.Errorf("Locate([2 0]) = %+v, %v; want a stored chunk", ch, err)
	}
	ts, err := f.Dataset(ctx, "acquisition/series_002/timestamps")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ts.ReadRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 8*250 || math.Float64frombits(binary.LittleEndian.Uint64(raw[8*249:])) != 0.249 {
		t.Errorf("timestamps: %d bytes, last %v", len(raw), math.Float64frombits(binary.LittleEndian.Uint64(raw[len(raw)-8:])))
	}
	g, err := f.Group(ctx, "acquisition/series_002")
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := g.Attrs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var prev any
	for _, a := range attrs {
		if a.Name == "previous" {
			prev = a.Value
		}
	}
	if r, ok := prev.(hdf5.ObjectRef); !ok || r.Path != "/acquisition/series_001" {
		t.Errorf("previous = %#v, want a reference to /acquisition/series_001", prev)
	}
}
