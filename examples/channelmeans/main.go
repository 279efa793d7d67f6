// Command channelmeans reads a time window of an extracellular recording (an
// ElectricalSeries, or any TimeSeries of samples × channels) in physical
// units and prints the mean and the sample standard deviation of every
// channel (ddof 1, numpy's std(ddof=1); numpy's default is ddof 0), computed
// with gonum.
//
//	go run ./channelmeans ../testdata/conformance/fixture.lindi.json acquisition/ElectricalSeries 0 0.1
//
// The file may be a LINDI JSON file, a Zarr store or an HDF5/NWB file, local
// or an http(s) URL.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	_ "github.com/lindigo/lindi/dandi" // DANDI addresses (dandi://…) as FILE
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: channelmeans FILE SERIES T0 T1 (seconds)")
		os.Exit(2)
	}
	t0, err0 := strconv.ParseFloat(os.Args[3], 64)
	t1, err1 := strconv.ParseFloat(os.Args[4], 64)
	if err0 != nil || err1 != nil {
		log.Fatal("T0 and T1 are times in seconds")
	}
	if err := run(context.Background(), os.Stdout, os.Args[1], os.Args[2], t0, t1); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer, file, series string, t0, t1 float64) error {
	f, err := nwb.Open(ctx, file)
	if err != nil {
		return err
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, series)
	if err != nil {
		return err
	}
	start, stop, err := ts.Window(ctx, t0, t1) // a binary search over a few blocks of timestamps
	if err != nil {
		return err
	}
	a, err := ts.ReadPhysical(ctx, start, stop) // conversion and offset applied
	if err != nil {
		return err
	}
	m, err := h5.Dense(a)
	if err != nil {
		return fmt.Errorf("%s, samples %d–%d: %w", series, start, stop, err)
	}
	unit := ts.Unit()
	if unit == "" {
		unit = "stored units" // the file does not say
	}
	rows, cols := m.Dims()
	fmt.Fprintf(w, "%s [%g, %g) s: samples %d–%d, %d × %d channels, in %s\n", series, t0, t1, start, stop, rows, cols, unit)
	col := make([]float64, rows)
	for c := range cols {
		mat.Col(col, c, m)
		mean, std := stat.MeanStdDev(col, nil) // the sample SD: n-1 in the denominator
		fmt.Fprintf(w, "channel %2d  mean %12.5g  sd (ddof 1) %12.5g\n", c, mean, std)
	}
	return nil
}
