package nwb

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// TestAddColumn adds a plain, a ragged, a region and a reference column to
// existing tables of a pynwb-written file (units, trials, electrodes) in an
// amendment, and reads them back with their colnames; a column of the
// wrong length or of a taken name writes nothing.
func TestAddColumn(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "a.lindi.tar")
	if *amendDir != "" { // left for pynwb_dump.py and pynwb.validate
		out = filepath.Join(*amendDir, "addcolumn.lindi.tar")
	}
	a, err := Amend(ctx, "../testdata/nwbzarr/ecephys.nwb", out)
	if err != nil {
		t.Fatal(err)
	}
	rate := []float64{1.5, 2, 0, 7.25}
	tags := [][]string{{"a"}, {}, {"b", "c"}}
	steps := []struct {
		table string
		col   ColumnSpec
	}{
		{"/units", NewColumn("mean_rate", "mean firing rate (Hz)", rate)},
		{"/intervals/trials", NewRaggedColumn("notes", "free notes", tags)},
		{"/units", NewRegionColumn("peak_electrode", "the electrode of the largest waveform", "/general/extracellular_ephys/electrodes", []int{0, 5, 2, 7})},
		{"/general/extracellular_ephys/electrodes", NewColumn("depth", "depth (um)", []float64{0, 10, 20, 30, 40, 50, 60, 70})},
		{"/units", NewColumn("series", "a series per unit", []h5.Reference{{Path: "/acquisition/ElectricalSeries"}, {Path: "/acquisition/ElectricalSeries"}, {Path: "/units"}, {Path: "/units"}})},
	}
	trials, err := a.Table(ctx, "/intervals/trials")
	if err != nil {
		t.Fatal(err)
	}
	if trials.Len() != len(tags) {
		t.Fatalf("trials has %d rows; the test assumes %d", trials.Len(), len(tags))
	}
	for _, s := range steps {
		if _, err := a.AddColumn(ctx, s.table, s.col); err != nil {
			t.Fatalf("%s: %v", s.table, err)
		}
	}
	if _, err := a.AddColumn(ctx, "/units", NewColumn("short", "too short", []float64{1})); !errors.Is(err, ErrSpec) {
		t.Errorf("a column of 1 row for 4 units: %v", err)
	}
	if _, err := a.AddColumn(ctx, "/units", NewColumn("mean_rate", "again", rate)); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a column of a taken name: %v", err)
	}
	if _, err := a.AddColumn(ctx, "/units", NewColumn("spike_times_index", "an index's name", rate)); !errors.Is(err, fs.ErrExist) {
		t.Errorf("a column named as a member: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	units := f.mustTable(t, ctx, "/units")
	if cols := units.Columns(); !slices.Contains(cols, "mean_rate") || !slices.Contains(cols, "series") || slices.Contains(cols, "short") {
		t.Errorf("units columns %v", cols)
	}
	c, _ := units.Column("mean_rate")
	if v, err := Values[float64](ctx, c, 0, 4); err != nil || !reflect.DeepEqual(v.Data, rate) {
		t.Errorf("mean_rate %v %v", v, err)
	}
	if c.Type() != "VectorData" || !c.Data().Attrs().Has("object_id") {
		t.Errorf("mean_rate is a %q", c.Type())
	}
	tr := f.mustTable(t, ctx, "/intervals/trials")
	c, _ = tr.Column("notes")
	if got, err := Ragged[string](ctx, c, 0, 3); err != nil || !reflect.DeepEqual(got, [][]string{{"a"}, nil, {"b", "c"}}) && !reflect.DeepEqual(got, [][]string{{"a"}, {}, {"b", "c"}}) {
		t.Errorf("notes %q %v", got, err)
	}
	c, _ = units.Column("peak_electrode")
	if !c.Region() {
		t.Error("peak_electrode is not a region")
	}
	if rows, err := c.Indices(ctx, 0, 4); err != nil || !reflect.DeepEqual(rows, [][]int{{0}, {5}, {2}, {7}}) {
		t.Errorf("peak_electrode: %v %v", rows, err)
	}
	el := f.mustTable(t, ctx, "/general/extracellular_ephys/electrodes")
	if !el.Has("depth") {
		t.Errorf("electrodes columns %v", el.Columns())
	}
}
