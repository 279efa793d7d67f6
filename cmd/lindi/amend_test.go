package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/nwb"
)

// TestNWBShowsAmendment: lindi nwb on an amendment names its source, the
// objects it added and the tables it appended to.
func TestNWBShowsAmendment(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join("..", "..", "testdata", "nwb", "tables.nwb")
	out := filepath.Join(t.TempDir(), "amended.lindi.tar")
	a, err := nwb.Amend(ctx, src, out)
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.Processing(ctx, "analysis", "lindi-go test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddTimeSeries(ctx, "smoothed", nwb.SeriesSpec{Data: nwb.NewData([]float64{1, 2, 3}), Unit: "mV", Rate: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddTrials(ctx, nwb.IntervalsSpec{Start: []float64{9}, Stop: []float64{9.5}, Tags: [][]string{{"late"}},
		TimeSeries: [][]nwb.SeriesRef{{{Start: 0, Count: 4, Path: "/acquisition/ElectricalSeries"}}}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := lindi("nwb", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"amends", "tables.nwb", "added", "processing/analysis", "ProcessingModule", "appended", "intervals/trials"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("lindi nwb of an amendment lacks %q:\n%s", want, stdout)
		}
	}
}
