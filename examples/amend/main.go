// Command amend adds an analysis result to an NWB file without copying it:
// it makes a .lindi.tar that refers to the original's chunks (local or
// remote), computes the mean of every channel of an ElectricalSeries, and
// stores the means, with their unit and a description, in a new group
// processing/ecephys_means beside the original objects.
//
//	go run ./amend ../testdata/nwb/tables.nwb acquisition/ElectricalSeries /tmp/amended.lindi.tar
//
// The source may be an HDF5/NWB file or a LINDI file, local or an http(s)
// URL; it is never modified. Python lindi opens the result
// (lindi.LindiH5pyFile.from_lindi_file) and sees both.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: amend SOURCE SERIES OUT.lindi.tar")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1], os.Args[2], os.Args[3]); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, source, series, out string) error {
	src, err := h5.Open(ctx, source)
	if err != nil {
		return err
	}
	defer src.Close()
	means, unit, err := channelMeans(ctx, src, series)
	if err != nil {
		return err
	}
	// The amendable copy: every object of the source, by reference.
	f, err := h5.CreateFrom(ctx, out, src)
	if err != nil {
		return err
	}
	if err := addMeans(ctx, f, series, means, unit); err != nil {
		f.Discard() // nothing is committed: out stays as created
		return err
	}
	return f.Close() // commits, atomically
}

// channelMeans reads a series in physical units and averages each channel.
func channelMeans(ctx context.Context, src *h5.File, series string) ([]float64, string, error) {
	nf, err := nwb.New(src) // closing src closes it; nf needs no Close of its own
	if err != nil {
		return nil, "", err
	}
	ts, err := nf.TimeSeries(ctx, series)
	if err != nil {
		return nil, "", err
	}
	a, err := ts.ReadPhysical(ctx, 0, ts.Len())
	if err != nil {
		return nil, "", err
	}
	m, err := h5.Dense(a)
	if err != nil {
		return nil, "", err
	}
	rows, cols := m.Dims()
	means := make([]float64, cols)
	col := make([]float64, rows)
	for c := range cols {
		mat.Col(col, c, m)
		means[c] = stat.Mean(col, nil)
	}
	return means, ts.Unit(), nil
}

// addMeans writes the means into processing/ecephys_means, as an NWB
// ProcessingModule holding a dataset of one value per channel.
func addMeans(ctx context.Context, f *h5.File, series string, means []float64, unit string) error {
	g, err := f.Root().RequireGroup(ctx, "processing/ecephys_means")
	if err != nil {
		return err
	}
	for name, v := range map[string]any{
		"description":    "mean of every channel of " + series,
		"namespace":      "core",
		"neurodata_type": "ProcessingModule",
	} {
		if err := g.SetAttr(ctx, name, v); err != nil {
			return err
		}
	}
	d, err := h5.CreateDatasetFrom(ctx, g, "channel_means", means, nil, nil)
	if err != nil {
		return err
	}
	if err := d.SetAttr(ctx, "unit", unit); err != nil {
		return err
	}
	return d.SetAttr(ctx, "source", h5.Reference{Path: "/" + series})
}
