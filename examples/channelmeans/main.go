// Command channelmeans reads a block of an extracellular recording and prints
// the mean and standard deviation of every channel, computed with gonum.
//
//	go run ./examples/channelmeans testdata/conformance/fixture.lindi.json acquisition/ElectricalSeries/data 0:3000
//
// The file may be a LINDI JSON file, a Zarr store or an HDF5/NWB file, local
// or an http(s) URL.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: channelmeans FILE DATASET ROWS (e.g. 0:3000)")
		os.Exit(2)
	}
	ctx := context.Background()
	f, err := h5.Open(ctx, os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ds, err := f.Dataset(ctx, os.Args[2])
	if err != nil {
		log.Fatal(err)
	}
	sel, err := selection.Parse(os.Args[3] + ", :")
	if err != nil {
		log.Fatal(err)
	}
	a, err := h5.Read[float64](ctx, ds, sel) // touched chunks are fetched and decoded in parallel
	if err != nil {
		log.Fatal(err)
	}
	m, err := h5.Dense(a)
	if err != nil {
		log.Fatal(err)
	}
	rows, cols := m.Dims()
	fmt.Printf("%s[%s]: %d samples × %d channels\n", ds.Path(), sel, rows, cols)
	col := make([]float64, rows)
	for c := range cols {
		mat.Col(col, c, m)
		mean, std := stat.MeanStdDev(col, nil)
		fmt.Printf("channel %2d  mean %9.2f  sd %8.2f\n", c, mean, std)
	}
}
