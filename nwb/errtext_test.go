package nwb_test

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

// failure is one way to make the package fail: the error it gives, the
// sentinel that error must wrap, and the object path it must name once.
type failure struct {
	name string
	err  error
	is   error
	path string
}

// failures provokes representative errors of every kind the package gives.
func failures(t *testing.T) []failure {
	t.Helper()
	f := open(t, filepath.Join("..", "testdata", "nwb", "tables.nwb"))
	units, err := f.Units(ctx)
	if err != nil {
		t.Fatal(err)
	}
	spikes, err := units.Column("spike_times")
	if err != nil {
		t.Fatal(err)
	}
	quality, err := units.Column("quality")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	var out []failure
	add := func(name string, is error, path string, err error) {
		out = append(out, failure{name, err, is, path})
	}
	_, err = nwb.Open(ctx, filepath.Join("..", "testdata", "conformance", "fixture.zarr"))
	add("not NWB", nwb.ErrNotNWB, "fixture.zarr", err)
	_, err = f.Table(ctx, "nowhere")
	add("no table", h5.ErrNotFound, "/nowhere", err)
	_, err = f.Table(ctx, "general")
	add("not a table", nwb.ErrNotTable, "/general", err)
	_, err = units.Column("nope")
	add("no column", nwb.ErrNoColumn, "/units", err)
	_, err = units.Rows(ctx, 0, 99)
	add("rows out of range", nwb.ErrRange, "/units", err)
	_, err = units.Select(ctx, []int{1, 99})
	add("select out of range", nwb.ErrRange, "/units", err)
	_, err = units.SpikeTrains(ctx, 3, 99)
	add("spike trains out of range", nwb.ErrRange, "/units", err)
	_, err = nwb.Values[float64](ctx, spikes, 0, 1)
	add("values of a ragged column", h5.ErrType, "/units/spike_times", err)
	_, err = nwb.Ragged[float64](ctx, quality, 0, 1)
	add("ragged of a plain column", h5.ErrType, "/units/quality", err)
	_, err = nwb.Values[h5.Reference](ctx, quality, 0, 1)
	add("values of the wrong type", h5.ErrType, "/units/quality", err)
	_, err = spikes.Indices(ctx, 0, 1)
	add("indices of a non-region", h5.ErrType, "/units/spike_times", err)
	_, err = f.TimeSeries(ctx, "units")
	add("not a time series", nwb.ErrNotTimeSeries, "/units", err)
	_, err = f.TimeSeries(ctx, "acquisition/nothing")
	add("no time series", h5.ErrNotFound, "/acquisition/nothing", err)
	_, err = ts.Timestamps(ctx, 0, 9999)
	add("timestamps out of range", nwb.ErrRange, "/acquisition/ElectricalSeries", err)
	_, err = ts.ReadPhysical(ctx, 5, 2)
	add("samples backwards", nwb.ErrRange, "/acquisition/ElectricalSeries", err)
	_, _, err = ts.Window(ctx, 2, 1)
	add("window backwards", nwb.ErrRange, "/acquisition/ElectricalSeries", err)
	_, err = f.Intervals(ctx, "units")
	add("not intervals", nwb.ErrNoColumn, "/units", err)
	type noColumn struct {
		X []float64 `nwb:"spike_time"`
	}
	type fraction struct {
		X []int `nwb:"spike_times"`
	}
	add("rows: tag naming no column", nwb.ErrNoColumn, "/units", rowsErr[noColumn](units.Table))
	add("rows: value that does not fit", h5.ErrType, "/units/spike_times", rowsErr[fraction](units.Table))
	_, err = nwb.Select[fraction](ctx, units.Table, []int{9})
	add("select: out of range", nwb.ErrRange, "/units", err)
	for _, r := range []struct {
		name   string
		region []int64
		is     error
	}{
		{"series without electrodes", nil, h5.ErrNotFound},
		{"electrode past its table", []int64{0, 1, 2, 13}, nwb.ErrIndex},
		{"electrodes short of the channels", []int64{0, 1}, nwb.ErrIndex},
	} {
		rf := open(t, withRegion(t, r.region))
		rts, err := rf.TimeSeries(ctx, "acquisition/ElectricalSeries")
		if err == nil {
			_, _, err = rts.Electrodes(ctx)
		}
		path := "/acquisition/ElectricalSeries/electrodes"
		if r.region == nil {
			path = "/acquisition/ElectricalSeries"
		}
		add(r.name, r.is, path, err)
	}
	for _, h := range []struct {
		name     string
		colnames []string
		ids      int
		idx      []uint64
		is       error
		path     string
	}{
		{"index backwards", []string{"spike_times"}, 3, []uint64{3, 2, 5}, nwb.ErrIndex, "/units/spike_times_index"},
		{"index past the data", []string{"spike_times"}, 3, []uint64{2, 4, 6}, nwb.ErrIndex, "/units/spike_times_index"},
		{"index short", []string{"spike_times"}, 4, []uint64{2, 4, 5}, nwb.ErrIndex, "/units/spike_times_index"},
		{"listed column missing", []string{"spike_times", "quality"}, 3, []uint64{2, 4, 5}, nwb.ErrNoColumn, "/units"},
	} {
		hf := open(t, hostile(t, h.colnames, h.ids, h.idx))
		u, err := hf.Units(ctx)
		if err == nil {
			_, err = u.SpikeTrains(ctx, 0, u.Len())
		}
		add(h.name, h.is, h.path, err)
	}
	return out
}

// pathToken matches an absolute object path in a message.
var pathToken = regexp.MustCompile(`/[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*`)

// TestErrorsSayItOnce: every error says one package prefix, names its object
// once, and still wraps its sentinel.
func TestErrorsSayItOnce(t *testing.T) {
	for _, c := range failures(t) {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil {
				t.Fatal("no error")
			}
			msg := c.err.Error()
			t.Log(msg)
			if !errors.Is(c.err, c.is) {
				t.Errorf("%q does not wrap %v", msg, c.is)
			}
			if n := strings.Count(msg, "nwb:") + strings.Count(msg, "h5:"); n != 1 {
				t.Errorf("%q has %d package prefixes, want 1", msg, n)
			}
			if n := strings.Count(msg, c.path); n != 1 {
				t.Errorf("%q names %s %d times, want once", msg, c.path, n)
			}
			seen := map[string]bool{}
			for _, p := range pathToken.FindAllString(msg, -1) {
				if seen[p] {
					t.Errorf("%q names %s twice", msg, p)
				}
				seen[p] = true
			}
		})
	}
}
