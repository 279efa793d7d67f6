package nwb_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/nwb"
)

// TestAllTimeSeries: one call lists every series, the nested ones (LFP,
// Position, Fluorescence) included, with its timing, in both stored forms.
func TestAllTimeSeries(t *testing.T) {
	ctx := context.Background()
	type want struct {
		path, typ, unit string
		shape           string
		rate            float64
		start, end      float64
	}
	files := map[string][]want{
		"ecephys": {
			{"/acquisition/ElectricalSeries", "ElectricalSeries", "volts", "[1200 8]", 30000, 0.5, 0.5 + 1200.0/30000},
			{"/processing/ecephys/LFP/LFP", "ElectricalSeries", "volts", "[400 4]", 0, 0.5, 0.5399},
		},
		"ophys_behavior": {
			{"/acquisition/TwoPhotonSeries", "TwoPhotonSeries", "n.a.", "[20 16 12]", 30, 0, 20.0 / 30},
			{"/processing/behavior/Position/position", "SpatialSeries", "meters", "[50 2]", 0, 0.03, 1.01},
			{"/processing/behavior/speed", "TimeSeries", "m/s", "[50]", 0, 0.03, 1.01},
			{"/processing/ophys/Fluorescence/RoiResponseSeries", "RoiResponseSeries", "lumens", "[20 3]", 30, 0, 20.0 / 30},
		},
	}
	for base, ws := range files {
		for _, ext := range []string{".nwb", ".nwb.zarr"} {
			t.Run(base+ext, func(t *testing.T) {
				f, err := nwb.Open(ctx, filepath.Join("..", "testdata", "nwbzarr", base+ext))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				all, err := f.AllTimeSeries(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if len(all) != len(ws) {
					t.Fatalf("%d series, want %d: %v", len(all), len(ws), all)
				}
				nested := 0
				for i, s := range all {
					w := ws[i]
					// Nested: inside another object of /acquisition or of a
					// processing module.
					depth := strings.Count(s.Path, "/")
					if strings.HasPrefix(s.Path, "/processing/") {
						depth--
					}
					if depth > 2 {
						nested++
					}
					got := fmt.Sprintln(s.Path, s.Type, s.Unit, s.Shape, s.Rate)
					if got != fmt.Sprintln(w.path, w.typ, w.unit, w.shape, w.rate) {
						t.Errorf("series %d: %s", i, got)
					}
					if math.Abs(s.Start-w.start) > 1e-9 || math.Abs(s.End-w.end) > 1e-9 || math.Abs(s.Duration-(w.end-w.start)) > 1e-9 {
						t.Errorf("%s: %v–%v (%v), want %v–%v", s.Path, s.Start, s.End, s.Duration, w.start, w.end)
					}
					d, err := s.Series.Duration(ctx)
					if err != nil || math.Abs(d-s.Duration) > 1e-12 {
						t.Errorf("%s: Duration %v (%v), want %v", s.Path, d, err, s.Duration)
					}
				}
				if wantNested := map[string]int{"ecephys": 1, "ophys_behavior": 2}[base]; nested != wantNested {
					t.Errorf("%d nested series, want %d", nested, wantNested)
				}
			})
		}
	}
}
