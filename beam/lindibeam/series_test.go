package lindibeam

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lindigo/lindi/beam/internal/seriesref"
)

func runSeriesStats(t *testing.T, job StatsJob, out string, addrs ...string) (csvOut, failed []byte) {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	assets, unlisted := Assets(s, addrs...)
	rows, bad := Stats(s, job, assets)
	WriteStats(s, out, rows)
	WriteJSONL(s, out+".failed", beam.Flatten(s, unlisted, bad))
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	return readOut(t, out), readOut(t, out+".failed")
}

// near reports whether got is within a few units in the last place of
// want, or both NaN.
func near(got, want float64) bool {
	return got == want || math.Abs(got-want) <= 1e-12*math.Abs(want) || math.IsNaN(got) && math.IsNaN(want)
}

// TestStatsSeries reduces the ElectricalSeries of the test file over time
// windows, from a server that fails the first request of every range and
// locally, in chunk groups of several sizes: the CSV is the same bytes for
// every split and source, its values (in volts) equal the plain float64
// computation of package seriesref, its electrode columns are the table's,
// and a source without the series fails alone.
func TestStatsSeries(t *testing.T) {
	srv := newFaultyServer(t, readFiles(t))
	dir := t.TempDir()
	const file = "../../testdata/nwb/tables.nwb"
	for _, w := range [][2]float64{{0, 0}, {0.01, 0.025}, {5, 6}} {
		from, to := w[0], w[1]
		var first []byte
		for i, size := range []int64{1, 3000, 1 << 30} {
			srv.reset()
			src := srv.URL + "/tables.nwb"
			if i == 1 {
				src = file
			}
			job := StatsJob{Series: "acquisition/ElectricalSeries", From: from, To: to, GroupBytes: size, InFlight: 2}
			got, failed := runSeriesStats(t, job, filepath.Join(dir, fmt.Sprintf("s%d.csv", i)), src, srv.URL+"/broken.nwb")
			if first == nil {
				first = got
			} else if !bytes.Equal(got, first) {
				t.Errorf("window %v, groups of %d bytes:\n%s\nthe first:\n%s", w, size, got, first)
			}
			if strings.Count(string(failed), "\n") != 1 || !strings.Contains(string(failed), "broken.nwb") {
				t.Errorf("failures:\n%s", failed)
			}
		}
		t0, t1 := from, to
		if t0 == 0 && t1 == 0 {
			t0, t1 = math.Inf(-1), math.Inf(1)
		}
		ref, err := seriesref.Stats(context.Background(), file, "acquisition/ElectricalSeries", t0, t1)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(first)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if h := strings.Join(recs[0], ","); !strings.HasPrefix(h, "asset,column,count,mean,std,rms,min,max,") || !strings.Contains(h, ",location") {
			t.Errorf("header %s", h)
		}
		loc := strings.Index(strings.Join(recs[0], ",")+",", ",location,")
		locCol := strings.Count(strings.Join(recs[0], ",")[:loc+1], ",")
		if len(recs) != 1+len(ref) {
			t.Fatalf("window %v: %d rows, want %d", w, len(recs)-1, len(ref))
		}
		for c, r := range recs[1:] {
			v := make([]float64, 5)
			for k := range v {
				v[k], _ = strconv.ParseFloat(r[3+k], 64)
			}
			e := ref[c]
			if r[0] != "tables.nwb" || r[1] != strconv.Itoa(c) || r[2] != strconv.Itoa(e.Count) || r[locCol] != e.Location ||
				!near(v[0], e.Mean) || !near(v[1], e.Std) || !near(v[2], e.RMS) || !near(v[3], e.Min) || !near(v[4], e.Max) {
				t.Errorf("window %v: %v; want %+v", w, r, e)
			}
		}
	}
	if f := srv.injected(); f["503"] == 0 || f["cut"] == 0 {
		t.Errorf("faults injected: %v; want both kinds", f)
	}
}
