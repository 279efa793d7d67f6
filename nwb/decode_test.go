package nwb_test

import (
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

type unit struct {
	ID           int64          `nwb:"id"`
	Spikes       []float64      `nwb:"spike_times"`
	Observed     [][2]float64   `nwb:"obs_intervals"`
	Electrodes   []int          `nwb:"electrodes"`
	WaveformMean [20][3]float64 `nwb:"waveform_mean"`
	Waveforms    [][][]float64  `nwb:"waveforms"`
	Quality      float64        `nwb:"quality"`
	Missing      string         `nwb:"no_such_column,optional"`
	Ignored      string
	//lint:ignore U1000 an unexported field, which decoding must skip
	skipped int
}

type seriesRef struct {
	Start  int32  `nwb:"idx_start" json:"idx_start"`
	Count  int    `nwb:"count" json:"count"`
	Series string `nwb:"timeseries" json:"timeseries"`
}

type trial struct {
	ID     uint16      `nwb:"id"`
	Start  float64     `nwb:"start_time"`
	Stop   float32     `nwb:"stop_time"`
	Tags   []string    `nwb:"tags"`
	Series []seriesRef `nwb:"timeseries"`
}

// trialRaw takes the column trial decodes into seriesRef as raw cells (a
// column goes into one field of a struct).
type trialRaw struct {
	Raw any `nwb:"timeseries"`
}

// electrodeAlt takes two columns of electrode in other types.
type electrodeAlt struct {
	GroupRef h5.Reference `nwb:"group"`
	Cell     any          `nwb:"location"`
}

type electrode struct {
	ID       int          `nwb:"id"`
	X        float64      `nwb:"x"`
	Location string       `nwb:"location"`
	Group    string       `nwb:"group"`
	Name     string       `nwb:"group_name"`
	Imp      float64      `nwb:"imp"`
	Other    electrodeAlt `nwb:"-"`
}

// sameJSON compares a decoded value with the expected cell written by Python.
func sameJSON(t *testing.T, got, want any) bool {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	return jsonClose(t, g, w)
}

func TestRowsIntoStructs(t *testing.T) {
	uw, tw, ew := expected(t, "units"), expected(t, "trials"), expected(t, "electrodes")
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			f := open(t, filepath.Join("..", "testdata", "nwb", name))
			u, err := f.Units(ctx)
			if err != nil {
				t.Fatal(err)
			}
			units, err := nwb.Rows[unit](ctx, u.Table, 0, u.Len())
			if err != nil {
				t.Fatal(err)
			}
			if len(units) != 8 {
				t.Fatalf("%d units", len(units))
			}
			for i, x := range units {
				for col, v := range map[string]any{"id": x.ID, "spike_times": x.Spikes, "obs_intervals": x.Observed, "electrodes": x.Electrodes, "waveform_mean": x.WaveformMean, "waveforms": x.Waveforms} {
					if !sameJSON(t, v, uw[col][i]) {
						t.Errorf("unit %d %s = %v, want %v", i, col, v, uw[col][i])
					}
				}
				if q, w := x.Quality, uw["quality"][i]; !(w == nil && math.IsNaN(q) || w == q) {
					t.Errorf("unit %d quality %v, want %v", i, q, w)
				}
			}
			tr, err := f.Trials(ctx)
			if err != nil {
				t.Fatal(err)
			}
			trials, err := nwb.Rows[trial](ctx, tr.Table, 0, tr.Len())
			if err != nil {
				t.Fatal(err)
			}
			raws, err := nwb.Rows[trialRaw](ctx, tr.Table, 0, tr.Len())
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range trials {
				tags := x.Tags
				if tags == nil {
					tags = []string{}
				}
				if x.Stop != float32(tw["stop_time"][i].(float64)) {
					t.Errorf("trial %d stop_time %v, want %v rounded", i, x.Stop, tw["stop_time"][i])
				}
				for col, v := range map[string]any{"id": x.ID, "start_time": x.Start, "tags": tags, "timeseries": x.Series} {
					if !sameJSON(t, v, tw[col][i]) {
						t.Errorf("trial %d %s = %v, want %v", i, col, v, tw[col][i])
					}
				}
				cells, err := tr.Column("timeseries")
				if err != nil {
					t.Fatal(err)
				}
				raw, err := cells.Cells(ctx, i, i+1)
				if err != nil || !reflect.DeepEqual(raws[i].Raw, raw[0]) {
					t.Errorf("trial %d raw timeseries %v, want %v (%v)", i, raws[i].Raw, raw[0], err)
				}
			}
			e, err := f.Electrodes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			els, err := nwb.Rows[electrode](ctx, e.Table, 0, e.Len())
			if err != nil {
				t.Fatal(err)
			}
			alts, err := nwb.Rows[electrodeAlt](ctx, e.Table, 0, e.Len())
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range els {
				x.Other = alts[i]
				for col, v := range map[string]any{"id": x.ID, "x": x.X, "location": x.Location, "group": x.Group, "group_name": x.Name} {
					if !sameJSON(t, v, ew[col][i]) {
						t.Errorf("electrode %d %s = %v, want %v", i, col, v, ew[col][i])
					}
				}
				if x.Other.GroupRef.Path != x.Group || x.Other.Cell != x.Location {
					t.Errorf("electrode %d: reference %+v, cell %v", i, x.Other.GroupRef, x.Other.Cell)
				}
				if w := ew["imp"][i]; !(w == nil && (math.IsNaN(x.Imp) || math.IsInf(x.Imp, 1)) || w == x.Imp) {
					t.Errorf("electrode %d imp %v, want %v", i, x.Imp, w)
				}
			}
		})
	}
}

// TestSelectIntoStructs: Select gives the rows asked for, in their order,
// repeats included, the same as Rows does.
func TestSelectIntoStructs(t *testing.T) {
	f := open(t, filepath.Join("..", "testdata", "nwb", "tables.nwb"))
	u, err := f.Units(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all, err := nwb.Rows[unit](ctx, u.Table, 0, u.Len())
	if err != nil {
		t.Fatal(err)
	}
	pick := []int{7, 0, 3, 3, 6}
	got, err := nwb.Select[unit](ctx, u.Table, pick)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range pick {
		if !sameJSON(t, got[i].Spikes, all[r].Spikes) || got[i].ID != all[r].ID {
			t.Errorf("Select row %d (%d): id %d, want %d", i, r, got[i].ID, all[r].ID)
		}
	}
	if none, err := nwb.Select[unit](ctx, u.Table, nil); err != nil || len(none) != 0 {
		t.Errorf("Select of no rows: %v, %v", none, err)
	}
	if _, err := nwb.Select[unit](ctx, u.Table, []int{1, 8}); !errors.Is(err, nwb.ErrRange) {
		t.Errorf("Select past the end: %v, want ErrRange", err)
	}
	// The electrodes of an ElectricalSeries, as structs.
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	rows, table, err := ts.Electrodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	els, err := nwb.Select[electrode](ctx, table.Table, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(els) != 4 || els[1].ID != 102 || els[1].Location != "DG" || els[3].Group != "/general/extracellular_ephys/shank0" {
		t.Errorf("series electrodes %+v", els)
	}
}

func TestRowsErrors(t *testing.T) {
	f := open(t, filepath.Join("..", "testdata", "nwb", "tables.nwb"))
	u, err := f.Units(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := f.Trials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type noColumn struct {
		X []float64 `nwb:"spike_time"`
	}
	type wrongKind struct {
		X []string `nwb:"spike_times"`
	}
	type notRagged struct {
		X float64 `nwb:"spike_times"`
	}
	type tooShallow struct {
		X [][]float64 `nwb:"waveforms"`
	}
	type fraction struct {
		X []int `nwb:"spike_times"`
	}
	type overflow struct {
		Refs []struct {
			Start int8 `nwb:"idx_start"`
		} `nwb:"timeseries"`
	}
	type badCompound struct {
		Refs []struct {
			Start int `nwb:"start"`
		} `nwb:"timeseries"`
	}
	type unexported struct {
		//lint:ignore U1000 an unexported tagged field, which decoding must refuse
		x []float64 `nwb:"spike_times"`
	}
	type badOption struct {
		X []float64 `nwb:"spike_times,omitempty"`
	}
	type idString struct {
		ID string `nwb:"id"`
	}
	type wrongLength struct {
		X [19][3]float64 `nwb:"waveform_mean"`
	}
	type duplicate struct {
		A []float64 `nwb:"spike_times"`
		B []float64 `nwb:"spike_times,optional"`
	}
	cases := []struct {
		name  string
		err   error
		is    error
		names []string
	}{
		{"no such column", rowsErr[noColumn](u.Table), nwb.ErrNoColumn, []string{"spike_time", "noColumn.X"}},
		{"wrong kind", rowsErr[wrongKind](u.Table), h5.ErrType, []string{"/units/spike_times", "wrongKind.X"}},
		{"ragged into a scalar", rowsErr[notRagged](u.Table), h5.ErrType, []string{"/units/spike_times", "notRagged.X"}},
		{"too few levels", rowsErr[tooShallow](u.Table), h5.ErrType, []string{"/units/waveforms", "tooShallow.X"}},
		{"fraction into an int", rowsErr[fraction](u.Table), h5.ErrType, []string{"row 0 of /units/spike_times", "fraction.X", "not a whole number"}},
		{"overflow", rowsErr[overflow](tr.Table), h5.ErrType, []string{"row 1 of /intervals/trials/timeseries", "200", "int8"}},
		{"compound field missing", rowsErr[badCompound](tr.Table), h5.ErrType, []string{"/intervals/trials/timeseries", `"start"`}},
		{"unexported", rowsErr[unexported](u.Table), nil, []string{"unexported.x", "not exported"}},
		{"bad option", rowsErr[badOption](u.Table), nil, []string{"omitempty"}},
		{"id into a string", rowsErr[idString](u.Table), h5.ErrType, []string{"ids of /units", "idString.ID"}},
		{"array length", rowsErr[wrongLength](u.Table), h5.ErrType, []string{"row 0 of /units/waveform_mean", "[19][3]float64"}},
		{"not a struct", rowsErr[float64](u.Table), h5.ErrType, []string{"struct", "/units"}},
		{"duplicate tag", rowsErr[duplicate](u.Table), nil, []string{"duplicate.A", "duplicate.B", `"spike_times"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil {
				t.Fatal("no error")
			}
			msg := c.err.Error()
			if c.is != nil && !errors.Is(c.err, c.is) {
				t.Errorf("%q does not wrap %v", msg, c.is)
			}
			for _, n := range c.names {
				if !strings.Contains(msg, n) {
					t.Errorf("%q does not say %q", msg, n)
				}
			}
			if n := strings.Count(msg, "nwb:") + strings.Count(msg, "h5:"); n != 1 {
				t.Errorf("%q has %d package prefixes", msg, n)
			}
		})
	}
}

// rowsErr decodes every row of tab into T and returns the error.
func rowsErr[T any](tab *nwb.Table) error {
	_, err := nwb.Rows[T](ctx, tab, 0, tab.Len())
	return err
}
