package docs_test

import (
	"context"
	"fmt"
	"log"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// Example_readme is the README's example, run: TestExamples holds the
// README's lines to the ones between the markers.
func Example_readme() {
	// From here, the page's lines.
	ctx := context.Background()
	f, err := h5.Open(ctx, "../testdata/conformance/fixture.lindi.json") // or .nwb/.h5, a Zarr store, an http(s):// or s3:// URL
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data") // soft links are followed
	if err != nil {
		log.Fatal(err)
	}
	sel, err := selection.Parse("0:2, ::8") // numpy's syntax: rows 0 and 1, every 8th column
	if err != nil {
		log.Fatal(err)
	}
	a, err := h5.Read[float64](ctx, ds, sel) // any numeric T; h5.ReadExact[int16] shares the read's memory
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ds.Shape(), ds.DType(), a.Shape, a.Data) // [5946 24] <i2 [2 3] [1020 1476 -1658 -190 -467 -1752]
	// The page's lines end here.
	// Output: [5946 24] <i2 [2 3] [1020 1476 -1658 -190 -467 -1752]
}
