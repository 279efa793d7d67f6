package h5_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// An amendment: a .lindi.tar holding every object of an NWB file by
// reference, plus a new group, dataset and attribute.
func ExampleCreateFrom() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "amend")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "tables.amended.lindi.tar")

	src, err := h5.Open(ctx, "../testdata/nwb/tables.nwb") // any readable file, local or remote
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	f, err := h5.CreateFrom(ctx, out, src)
	if err != nil {
		log.Fatal(err)
	}
	g, err := f.Root().RequireGroup(ctx, "processing/ecephys")
	if err != nil {
		log.Fatal(err)
	}
	d, err := h5.CreateDatasetFrom(ctx, g, "means", []float64{0.5, 1.5, 2.5, 3.5}, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := d.SetAttr(ctx, "unit", "mV"); err != nil {
		log.Fatal(err)
	}
	if err := h5.Write(ctx, d, selection.Selection{selection.Slice(0, 2, 1)}, []float64{-1, -2}); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil { // commits
		log.Fatal(err)
	}

	r, err := h5.Open(ctx, out)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	means, err := r.Dataset(ctx, "processing/ecephys/means")
	if err != nil {
		log.Fatal(err)
	}
	v, err := h5.Read[float64](ctx, means, nil)
	if err != nil {
		log.Fatal(err)
	}
	unit, _ := means.Attrs().String("unit")
	orig, err := r.Dataset(ctx, "acquisition/ElectricalSeries/data") // the source's, by reference
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Format(), v.Data, unit, orig.Shape())
	// Output: LINDI tar [-1 -2 2.5 3.5] mV [1000 4]
}
