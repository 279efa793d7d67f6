package nwb

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lindigo/lindi/h5"
)

// amendDir, when set, makes TestAmendWrite leave its amendments there, for
// testdata/amend/check.py to read with pynwb. go test never runs Python.
var amendDir = flag.String("amend", "", "write the amendments into this directory for testdata/amend/check.py")

const amendSource = "testdata/amend/source.nwb"

// The content the amendment test writes, and checks read back.
var (
	speedT     = []float64{0, 0.1, 0.25, 0.5, 0.75}
	speed      = []float32{1.5, 2, -0.25, 4, 8}
	scoreInts  = []int64{7, -3, 12}
	scoreNames = []string{"a", "é", ""}
	scoreHist  = [][]float64{{1, 2}, {}, {3, 4, 5}}
	scoreNest  = [][][]int32{{{1}, {2, 3}}, {}, {{}, {4, 5, 6}}}
	scoreElec  = []int{0, 5, 2}
	scoreElecs = [][]int{{0, 1}, {2}, {3, 4, 5}}
	scoreRefs  = []h5.Reference{{Path: "/acquisition/ElectricalSeries"}, {Path: "/processing/behavior/speed"}, {Path: "/units"}}
	newSpikes  = [][]float64{{0.5, 0.6}, {}, {0.01, 0.02, 0.03}}
	newSpElec  = [][]int{{3}, {4, 5}, {0}}
	// Per unit, per spike, per electrode, 3 samples.
	sortedWaveforms = [][][][]float32{
		{{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}}},
		{{{10, 11, 12}, {13, 14, 15}, {16, 17, 18}}},
	}
)

// positions is a 2-D series with a rate.
func positions() ([]float64, []int) {
	v := make([]float64, 6*2)
	for i := range v {
		v[i] = float64(i) * 0.5
	}
	return v, []int{6, 2}
}

// filtered is the source's ElectricalSeries in volts, halved.
func filtered(t *testing.T, ctx context.Context, f *File) ([]float64, []int) {
	t.Helper()
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	v, err := ts.ReadPhysical(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v.Data {
		v.Data[i] /= 2
	}
	return v.Data, v.Shape
}

// writeAmendment makes the amendment out of the source with one object of
// each kind.
func writeAmendment(t *testing.T, ctx context.Context, out string) {
	t.Helper()
	a, err := Amend(ctx, amendSource, out)
	if err != nil {
		t.Fatal(err)
	}
	beh, err := a.Processing(ctx, "behavior", "behavioural measures")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := beh.AddTimeSeries(ctx, "speed", SeriesSpec{Data: NewData(speed), Unit: "m/s", Timestamps: speedT, Description: "running speed"}); err != nil {
		t.Fatal(err)
	}
	pv, ps := positions()
	if _, err := beh.AddTimeSeries(ctx, "position", SeriesSpec{Data: NewData(pv, ps...), Unit: "cm", Rate: 50, StartingTime: 1.25, Conversion: 0.01, Continuity: "continuous"}); err != nil {
		t.Fatal(err)
	}
	if _, err := beh.AddTable(ctx, "scores", TableSpec{Description: "a table of every column kind", IDs: []int64{10, 11, 12}, Columns: []ColumnSpec{
		NewColumn("n", "integers", scoreInts),
		NewColumn("label", "strings", scoreNames),
		NewRaggedColumn("hist", "ragged floats", scoreHist),
		NewRagged2Column("nest", "doubly ragged ints", scoreNest),
		NewRegionColumn("electrode", "one electrode", "/general/extracellular_ephys/electrodes", scoreElec),
		NewRaggedRegionColumn("electrodes", "some electrodes", "general/extracellular_ephys/electrodes", scoreElecs),
		NewColumn("ref", "references", scoreRefs),
	}}); err != nil {
		t.Fatal(err)
	}
	ec, err := a.Processing(ctx, "ecephys", "filtered recordings")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := Open(ctx, amendSource)
	fv, fs := filtered(t, ctx, src)
	src.Close()
	if _, err := ec.AddElectricalSeries(ctx, "halved", ElectricalSeriesSpec{
		SeriesSpec: SeriesSpec{Data: NewData(fv, fs...), Rate: 1000, StartingTime: 0.5, Description: "the recording, halved"},
		Electrodes: []int{0, 1, 2, 3}, Filtering: "none",
	}); err != nil {
		t.Fatal(err)
	}
	wm := make([]float32, 2*5)
	for i := range wm {
		wm[i] = float32(i) / 4
	}
	if _, err := ec.AddUnits(ctx, "sorted", UnitsSpec{SpikeTimes: [][]float64{{1, 2}, {3}}, WaveformMean: NewData(wm, 2, 5), WaveformRate: 30000,
		Waveforms: sortedWaveforms}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddUnits(ctx, UnitsSpec{SpikeTimes: newSpikes, Electrodes: newSpElec}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddTrials(ctx, IntervalsSpec{Start: []float64{0.4, 0.6}, Stop: []float64{0.5, 0.7},
		Columns: []ColumnSpec{NewColumn("correct", "whether the trial was correct", []bool{true, true})}}); err != nil {
		t.Fatal(err)
	}
	shank := h5.Reference{Path: "/general/extracellular_ephys/shank0"}
	if _, err := a.AppendRows(ctx, "general/extracellular_ephys/electrodes", TableSpec{Columns: []ColumnSpec{
		NewColumn("location", "l", []string{"CA3", "DG"}),
		NewColumn("group", "g", []h5.Reference{shank, shank}),
		NewColumn("group_name", "n", []string{"shank0", "shank0"}),
		NewColumn("x", "x", []float64{6, 7}), NewColumn("y", "y", []float64{12, 14}), NewColumn("z", "z", []float64{0, 0}),
		NewColumn("imp", "i", []float64{-1, -1}), NewColumn("filtering", "f", []string{"none", "none"}),
	}}); err != nil {
		t.Fatal(err)
	}
	iv, err := a.Container(ctx, "intervals")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := iv.AddIntervals(ctx, "epochs", IntervalsSpec{Description: "epochs", Start: []float64{0, 1}, Stop: []float64{1, 2}, Tags: [][]string{{"rest"}, {"run", "fast"}}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkAmendment reads every new object back through our readers.
func checkAmendment(t *testing.T, ctx context.Context, f *File) {
	t.Helper()
	ts, err := f.TimeSeries(ctx, "processing/behavior/speed")
	if err != nil {
		t.Fatal(err)
	}
	if ts.Type() != "TimeSeries" || ts.Unit() != "m/s" || ts.Data().DType().String() != "<f4" {
		t.Errorf("speed: %s %s %s", ts.Type(), ts.Unit(), ts.Data().DType())
	}
	if got, err := ts.Timestamps(ctx, 0, ts.Len()); err != nil || !slices.Equal(got, speedT) {
		t.Errorf("speed timestamps %v, %v", got, err)
	}
	if lo, hi, err := ts.Window(ctx, 0.2, 0.6); err != nil || lo != 2 || hi != 4 {
		t.Errorf("speed window [0.2, 0.6) = [%d, %d), %v", lo, hi, err)
	}
	if v, err := ts.ReadPhysical(ctx, 0, ts.Len()); err != nil || !slices.Equal(v.Data, f64(speed)) {
		t.Errorf("speed data %v, %v", v, err)
	}
	pos, err := f.TimeSeries(ctx, "processing/behavior/position")
	if err != nil {
		t.Fatal(err)
	}
	pv, _ := positions()
	if rate, ok := pos.Rate(); !ok || rate != 50 || pos.Conversion() != 0.01 {
		t.Errorf("position rate %v %v conversion %v", rate, ok, pos.Conversion())
	}
	if st, _ := pos.StartingTime(ctx); st != 1.25 {
		t.Errorf("position starting time %v", st)
	}
	if v, err := pos.ReadPhysical(ctx, 2, 4); err != nil || !slices.Equal(v.Shape, []int{2, 2}) || v.Data[0] != pv[4]*0.01 {
		t.Errorf("position[2:4] = %v, %v", v, err)
	}
	tab, err := f.Table(ctx, "processing/behavior/scores")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Columns(), []string{"n", "label", "hist", "nest", "electrode", "electrodes", "ref"}) || tab.Len() != 3 {
		t.Errorf("scores: %v, %d rows", tab.Columns(), tab.Len())
	}
	type score struct {
		ID    int64          `nwb:"id"`
		N     int64          `nwb:"n"`
		Name  string         `nwb:"label"`
		Hist  []float64      `nwb:"hist"`
		Nest  [][]int32      `nwb:"nest"`
		Elec  int            `nwb:"electrode"`
		Elecs []int          `nwb:"electrodes"`
		Ref   h5.Reference   `nwb:"ref"`
		_     map[string]int // unused
	}
	rows, err := Rows[score](ctx, tab, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if r.ID != int64(10+i) || r.N != scoreInts[i] || r.Name != scoreNames[i] || !slices.Equal(r.Hist, scoreHist[i]) ||
			!reflect.DeepEqual(norm2(r.Nest), norm2(scoreNest[i])) || r.Ref != scoreRefs[i] || r.Elec != scoreElec[i] || !slices.Equal(r.Elecs, scoreElecs[i]) {
			t.Errorf("scores row %d = %+v", i, r)
		}
	}
	ec, _ := tab.Column("electrode")
	if idx, err := ec.Indices(ctx, 0, 3); err != nil || idx[1][0] != 5 {
		t.Errorf("electrode indices %v, %v", idx, err)
	}
	es, err := f.TimeSeries(ctx, "processing/ecephys/halved")
	if err != nil {
		t.Fatal(err)
	}
	if rows, et, err := es.Electrodes(ctx); err != nil || !slices.Equal(rows, []int{0, 1, 2, 3}) || et.Path() != "/general/extracellular_ephys/electrodes" {
		t.Errorf("halved electrodes %v, %v", rows, err)
	}
	src, err := Open(ctx, amendSource)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	want, _ := filtered(t, ctx, src)
	if v, err := es.ReadPhysical(ctx, 0, es.Len()); err != nil || !slices.Equal(v.Data, want) || es.Unit() != "volts" {
		t.Errorf("halved: %v (unit %s)", err, es.Unit())
	}
	units, err := f.Units(ctx)
	if err != nil {
		t.Fatal(err)
	}
	trains, err := units.SpikeTrains(ctx, 0, units.Len())
	if err != nil {
		t.Fatal(err)
	}
	wantTrains := append([][]float64{{0.1, 0.2, 0.35}, {0.05}}, newSpikes...)
	if !reflect.DeepEqual(norm(trains), norm(wantTrains)) {
		t.Errorf("units spike trains %v, want %v", trains, wantTrains)
	}
	if ids, _ := units.IDs(ctx, 0, units.Len()); !slices.Equal(ids, []int64{0, 1, 2, 3, 4}) {
		t.Errorf("unit ids %v", ids)
	}
	if e, err := units.Electrodes(ctx, 3); err != nil || !slices.Equal(e, newSpElec[1]) {
		t.Errorf("unit 3 electrodes %v, %v", e, err)
	}
	if e, err := units.Electrodes(ctx, 1); err != nil || !slices.Equal(e, []int{1, 2}) {
		t.Errorf("unit 1 electrodes %v, %v", e, err)
	}
	sorted, err := UnitsAt(ctx, f, "processing/ecephys/sorted")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := sorted.SpikeTimes(ctx, 1); err != nil || !slices.Equal(s, []float64{3}) {
		t.Errorf("sorted unit 1: %v, %v", s, err)
	}
	type wf struct {
		W [][][]float32 `nwb:"waveforms"`
	}
	if w, err := Rows[wf](ctx, sorted.Table, 0, 2); err != nil || !reflect.DeepEqual([][][][]float32{w[0].W, w[1].W}, sortedWaveforms) {
		t.Errorf("sorted waveforms %v, %v", w, err)
	}
	trials, err := f.Trials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if start, stop, err := trials.Times(ctx); err != nil || !slices.Equal(start, []float64{0, 0.2, 0.4, 0.6}) || !slices.Equal(stop, []float64{0.1, 0.3, 0.5, 0.7}) {
		t.Errorf("trials %v %v %v", start, stop, err)
	}
	epochs, err := f.Intervals(ctx, "intervals/epochs")
	if err != nil {
		t.Fatal(err)
	}
	if tags, err := epochs.Tags(ctx, 1); err != nil || !slices.Equal(tags, []string{"run", "fast"}) {
		t.Errorf("epoch 1 tags %v, %v", tags, err)
	}
	// The source's objects read as before.
	for _, p := range []string{"acquisition/ElectricalSeries", "general/extracellular_ephys/electrodes"} {
		if _, err := f.H5().Get(ctx, p); err != nil {
			t.Error(err)
		}
	}
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// norm makes empty rows nil, for comparing.
func norm(rows [][]float64) [][]float64 {
	out := make([][]float64, len(rows))
	for i, r := range rows {
		if len(r) > 0 {
			out[i] = r
		}
	}
	return out
}

func norm2(rows [][]int32) [][]int32 {
	out := make([][]int32, len(rows))
	for i, r := range rows {
		if len(r) > 0 {
			out[i] = r
		}
	}
	return out
}

func TestAmendWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if *amendDir != "" {
		dir = *amendDir
	}
	for _, name := range []string{"amended.lindi.tar", "amended.lindi.d"} {
		out := filepath.Join(dir, name)
		os.RemoveAll(out)
		writeAmendment(t, ctx, out)
		f, err := Open(ctx, out)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := f.H5().Root().Attrs().String(SourceAttr); !filepath.IsAbs(v) || filepath.Base(v) != "source.nwb" {
			t.Errorf("%s: %s = %q", name, SourceAttr, v)
		}
		checkAmendment(t, ctx, f)
		// A .lindi.json made from the amendment reads the same.
		js := filepath.Join(dir, name+".json.lindi.json")
		os.Remove(js)
		cp, err := h5.CreateFrom(ctx, js, f.H5())
		if err != nil {
			t.Fatal(err)
		}
		if err := cp.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		jf, err := Open(ctx, js)
		if err != nil {
			t.Fatal(err)
		}
		checkAmendment(t, ctx, jf)
		jf.Close()
	}
	// Open an amendment again to add more.
	out := filepath.Join(dir, "amended.lindi.tar")
	a, err := OpenAmendment(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	beh, err := a.Processing(ctx, "behavior", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := beh.AddTimeSeries(ctx, "licks", SeriesSpec{Data: NewData([]uint8{1, 0, 1}), Unit: "licks", Rate: 10}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkAmendment(t, ctx, f)
	if ts, err := f.TimeSeries(ctx, "processing/behavior/licks"); err != nil || ts.Len() != 3 {
		t.Errorf("licks: %v", err)
	}
}

// TestAmendErrors checks that each bad object is refused before anything
// is written, leaving the amendment at its last committed state.
func TestAmendErrors(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "x.lindi.tar")
	a, err := Amend(ctx, amendSource, out)
	if err != nil {
		t.Fatal(err)
	}
	beh, err := a.Processing(ctx, "behavior", "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := beh.AddTimeSeries(ctx, "speed", SeriesSpec{Data: NewData([]float64{1, 2}), Rate: 1}); err != nil {
		t.Fatal(err)
	}
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	before, err := a.Objects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	elec := "/general/extracellular_ephys/electrodes"
	for _, c := range []struct {
		name string
		want error
		add  func() error
	}{
		{"name clash", fs.ErrExist, func() error {
			_, err := beh.AddTimeSeries(ctx, "speed", SeriesSpec{Data: NewData([]float64{1}), Rate: 1})
			return err
		}},
		{"slash in name", ErrSpec, func() error {
			_, err := beh.AddTimeSeries(ctx, "a/b", SeriesSpec{Data: NewData([]float64{1}), Rate: 1})
			return err
		}},
		{"timestamps and data lengths", ErrSpec, func() error {
			_, err := beh.AddTimeSeries(ctx, "t", SeriesSpec{Data: NewData([]float64{1, 2, 3}), Timestamps: []float64{0, 1}})
			return err
		}},
		{"no timing", ErrSpec, func() error {
			_, err := beh.AddTimeSeries(ctx, "t", SeriesSpec{Data: NewData([]float64{1})})
			return err
		}},
		{"values and shape", ErrSpec, func() error {
			_, err := beh.AddTimeSeries(ctx, "t", SeriesSpec{Data: NewData([]float64{1, 2, 3}, 2, 2), Rate: 1})
			return err
		}},
		{"column length", ErrSpec, func() error {
			_, err := beh.AddTable(ctx, "t", TableSpec{Description: "d", Columns: []ColumnSpec{
				NewColumn("a", "a", []int64{1, 2, 3}), NewColumn("b", "b", []float64{1, 2}),
			}})
			return err
		}},
		{"ids length", ErrSpec, func() error {
			_, err := beh.AddTable(ctx, "t", TableSpec{Description: "d", IDs: []int64{1}, Columns: []ColumnSpec{NewColumn("a", "a", []int64{1, 2})}})
			return err
		}},
		{"region past the table", ErrSpec, func() error {
			_, err := beh.AddTable(ctx, "t", TableSpec{Description: "d", Columns: []ColumnSpec{NewRegionColumn("e", "e", elec, []int{0, 6})}})
			return err
		}},
		{"non-monotonic index", ErrSpec, func() error {
			_, err := beh.AddTable(ctx, "t", TableSpec{Description: "d", Columns: []ColumnSpec{
				{Name: "r", Description: "r", Data: NewData([]float64{1, 2, 3}), Index: [][]int{{2, 1, 3}}},
			}})
			return err
		}},
		{"index past its data", ErrSpec, func() error {
			_, err := beh.AddTable(ctx, "t", TableSpec{Description: "d", Columns: []ColumnSpec{
				{Name: "r", Description: "r", Data: NewData([]float64{1, 2, 3}), Index: [][]int{{1, 4}}},
			}})
			return err
		}},
		{"reserved column name", ErrSpec, func() error {
			_, err := beh.AddTable(ctx, "t", TableSpec{Description: "d", Columns: []ColumnSpec{NewColumn("description", "d", []int64{1})}})
			return err
		}},
		{"no column description", ErrSpec, func() error {
			_, err := beh.AddTable(ctx, "t", TableSpec{Description: "d", Columns: []ColumnSpec{NewColumn("a", "", []int64{1})}})
			return err
		}},
		{"dangling reference", ErrSpec, func() error {
			_, err := beh.AddTable(ctx, "t", TableSpec{Description: "d", Columns: []ColumnSpec{NewColumn("a", "a", []h5.Reference{{Path: "/nope"}})}})
			return err
		}},
		{"electrodes past the table", ErrSpec, func() error {
			_, err := beh.AddElectricalSeries(ctx, "e", ElectricalSeriesSpec{SeriesSpec: SeriesSpec{Data: NewData([]float64{1, 2}, 1, 2), Rate: 1}, Electrodes: []int{0, 9}})
			return err
		}},
		{"electrodes per channel", ErrSpec, func() error {
			_, err := beh.AddElectricalSeries(ctx, "e", ElectricalSeriesSpec{SeriesSpec: SeriesSpec{Data: NewData([]float64{1, 2}, 1, 2), Rate: 1}, Electrodes: []int{0}})
			return err
		}},
		{"units missing a column", ErrSpec, func() error {
			_, err := a.AddUnits(ctx, UnitsSpec{SpikeTimes: [][]float64{{1}}})
			return err
		}},
		{"units region past the table", ErrSpec, func() error {
			_, err := a.AddUnits(ctx, UnitsSpec{SpikeTimes: [][]float64{{1}}, Electrodes: [][]int{{7}}})
			return err
		}},
		{"trials stop before start", ErrSpec, func() error {
			_, err := a.AddTrials(ctx, IntervalsSpec{Start: []float64{1}, Stop: []float64{0}, Columns: []ColumnSpec{NewColumn("correct", "c", []bool{true})}})
			return err
		}},
		{"trials column length", ErrSpec, func() error {
			_, err := a.AddTrials(ctx, IntervalsSpec{Start: []float64{1}, Stop: []float64{2}, Columns: []ColumnSpec{NewColumn("correct", "c", []bool{true, false})}})
			return err
		}},
		{"units column without data", ErrSpec, func() error {
			_, err := a.AppendRows(ctx, "units", TableSpec{Columns: []ColumnSpec{{Name: "spike_times", Description: "s", Index: [][]int{{1}}}}})
			return err
		}},
		{"units column of another element shape", ErrSpec, func() error {
			_, err := a.AddUnits(ctx, UnitsSpec{SpikeTimes: [][]float64{{1}}, Electrodes: [][]int{{1}}, Columns: []ColumnSpec{}, WaveformMean: NewData([]float64{1, 2}, 1, 2)})
			return err
		}},
		{"waveforms of different lengths", ErrSpec, func() error {
			_, err := beh.AddUnits(ctx, "u", UnitsSpec{SpikeTimes: [][]float64{{1}}, Waveforms: [][][][]float32{{{{1, 2}, {3}}}}})
			return err
		}},
		{"module without description", ErrSpec, func() error {
			_, err := a.Processing(ctx, "new", "")
			return err
		}},
	} {
		err := c.add()
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
	after, err := a.Objects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("objects changed by refused additions:\n%v\n%v", before, after)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// Refusals in a file without /processing or /intervals make neither.
	bare := filepath.Join(t.TempDir(), "bare.lindi.tar")
	b, err := Amend(ctx, "../testdata/nwb/tables.nwb", bare)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.H5().Root().Delete(ctx, "intervals"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Processing(ctx, "p", ""); !errors.Is(err, ErrSpec) {
		t.Errorf("module without description: %v", err)
	}
	if _, err := b.AddTrials(ctx, IntervalsSpec{Start: []float64{1}, Stop: []float64{2}, IDs: []int64{1, 2}}); !errors.Is(err, ErrSpec) {
		t.Errorf("trials with 2 ids for 1 row: %v", err)
	}
	for _, g := range []string{"processing", "intervals"} {
		if _, ok := b.H5().Root().Link(g); ok {
			t.Errorf("a refused addition made /%s", g)
		}
	}
	if tr, err := b.AddTrials(ctx, IntervalsSpec{Start: []float64{1}, Stop: []float64{2}}); err != nil || tr.Len() != 1 || tr.Description() != "experimental trials" {
		t.Errorf("new trials: %v", err)
	}
	b.Discard()
	f, err := Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := f.Objects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, got) {
		t.Errorf("committed objects differ:\n%v\n%v", before, got)
	}
	u, err := f.Units(ctx)
	if err != nil || u.Len() != 2 {
		t.Errorf("units: %v rows, %v", u, err)
	}
}

func TestAdded(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "a.lindi.tar")
	writeAmendment(t, ctx, out)
	f, err := Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ad, err := f.Added(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range ad.Objects {
		if o.Group {
			got = append(got, o.Path+" "+o.Type)
		}
	}
	want := []string{
		"/intervals/epochs TimeIntervals",
		"/processing/behavior ProcessingModule", "/processing/behavior/position TimeSeries",
		"/processing/behavior/scores DynamicTable", "/processing/behavior/speed TimeSeries",
		"/processing/ecephys ProcessingModule", "/processing/ecephys/halved ElectricalSeries",
		"/processing/ecephys/sorted Units",
	}
	if !slices.Equal(got, want) {
		t.Errorf("added groups\n%v\nwant\n%v", got, want)
	}
	if g := ad.Grown; !reflect.DeepEqual(g, []Grown{{"/general/extracellular_ephys/electrodes", 6, 8}, {"/intervals/trials", 2, 4}, {"/units", 2, 5}}) {
		t.Errorf("grown %v", g)
	}
	src, err := Open(ctx, amendSource)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if ad, err := src.Added(ctx); ad != nil || err != nil {
		t.Errorf("the source: %v, %v", ad, err)
	}
}

// TestAmendLindiSources amends the LINDI forms of a file (a .lindi.json
// with relative refs, and a .lindi.tar made from it), and appends to a
// units table with 2-D ragged, 3-D and doubly ragged columns.
func TestAmendLindiSources(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tarSrc := filepath.Join(dir, "src.lindi.tar")
	js, err := h5.Open(ctx, "../testdata/nwb/tables.nwb.lindi.json")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := h5.CreateFrom(ctx, tarSrc, js)
	js.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Close(); err != nil {
		t.Fatal(err)
	}
	for i, src := range []string{"../testdata/nwb/tables.nwb.lindi.json", tarSrc, "../testdata/nwb/tables.nwb"} {
		out := filepath.Join(dir, "out"+string(rune('a'+i))+".lindi.tar")
		a, err := Amend(ctx, src, out)
		if err != nil {
			t.Fatal(err)
		}
		u0, err := a.Units(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n0 := u0.Len()
		wm := make([]float32, 2*20*3)
		for i := range wm {
			wm[i] = float32(i)
		}
		wf := [][][]float32{{{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}}, {}}
		var flatWF [][]float32
		for _, u := range wf {
			flatWF = append(flatWF, u...)
		}
		inner := []int{}
		outer := []int{}
		for _, u := range wf {
			for range u {
				inner = append(inner, len(inner)+1)
			}
			outer = append(outer, len(inner))
		}
		var wfv []float32
		for _, w := range flatWF {
			wfv = append(wfv, w...)
		}
		// Every waveform is one row of 5 samples: the index levels count rows.
		spec := UnitsSpec{
			SpikeTimes:   [][]float64{{100, 101}, {102}},
			Electrodes:   [][]int{{0, 12}, {3}},
			WaveformMean: NewData(wm, 2, 20, 3),
			Columns: []ColumnSpec{
				{Name: "obs_intervals", Description: "observed", Data: NewData([]float64{0, 1, 2, 3, 4, 5}, 3, 2), Index: [][]int{{2, 3}}},
				{Name: "waveforms", Description: "waveforms", Data: NewData(wfv, len(flatWF), 5), Index: [][]int{inner, outer}},
				NewColumn("quality", "quality", []float64{0.5, 0.25}),
			},
		}
		u, err := a.AddUnits(ctx, spec)
		if err != nil {
			t.Fatal(err)
		}
		if u.Len() != n0+2 {
			t.Errorf("%s: %d units after appending 2 to %d", src, u.Len(), n0)
		}
		if s, err := u.SpikeTimes(ctx, n0+1); err != nil || !slices.Equal(s, []float64{102}) {
			t.Errorf("%s: new unit spikes %v, %v", src, s, err)
		}
		if e, err := u.Electrodes(ctx, n0); err != nil || !slices.Equal(e, []int{0, 12}) {
			t.Errorf("%s: new unit electrodes %v, %v", src, e, err)
		}
		type unit struct {
			Obs  [][]float64     `nwb:"obs_intervals"`
			WM   [20][3]float32  `nwb:"waveform_mean"`
			WF   [][][]float32   `nwb:"waveforms"`
			Qual float64         `nwb:"quality"`
			Sp   []float64       `nwb:"spike_times"`
			_    struct{ x int } // unused
		}
		before, err := Open(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		old, err := Rows[unit](ctx, before.mustTable(t, ctx, "units"), 0, n0)
		before.Close()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := Rows[unit](ctx, u.Table, 0, u.Len())
		if err != nil {
			t.Fatal(err)
		}
		for i := range old {
			if fmt.Sprint(rows[i]) != fmt.Sprint(old[i]) { // quality holds NaN
				t.Errorf("%s: old row %d changed:\n%+v\n%+v", src, i, old[i], rows[i])
			}
		}
		if len(rows) != n0+2 {
			t.Fatalf("%d rows", len(rows))
		}
		if r := rows[n0]; !reflect.DeepEqual(r.Obs, [][]float64{{0, 1}, {2, 3}}) || r.WM[1][2] != 5 || len(r.WF) != 2 || r.WF[1][0][4] != 10 || r.Qual != 0.5 {
			t.Errorf("%s: new unit %+v", src, r)
		}
		if r := rows[n0+1]; len(r.WF) != 0 || !reflect.DeepEqual(r.Obs, [][]float64{{4, 5}}) || r.WM[0][0] != 60 {
			t.Errorf("%s: second new unit %+v", src, r)
		}
		// Trials grow with every column they have, the compound timeseries
		// column (TimeSeriesReferenceVectorData) included.
		if _, err := a.AddTrials(ctx, IntervalsSpec{Start: []float64{1}, Stop: []float64{2}}); !errors.Is(err, ErrSpec) {
			t.Errorf("%s: appending trials without their columns: %v", src, err)
		}
		trialsBefore, err := a.Intervals(ctx, "intervals/trials")
		if err != nil {
			t.Fatal(err)
		}
		k0 := trialsBefore.Len()
		oldSeries, err := trialsBefore.Series(ctx, k0-1)
		if err != nil {
			t.Fatal(err)
		}
		iv, err := a.AddTrials(ctx, IntervalsSpec{Start: []float64{10}, Stop: []float64{11}, Tags: [][]string{{"new"}},
			TimeSeries: [][]SeriesRef{{{Start: 0, Count: 5, Path: "/acquisition/ElectricalSeries"}, {Start: 7, Count: 2, Path: "/acquisition/ElectricalSeries"}}}})
		if err != nil {
			t.Fatalf("%s: appending trials: %v", src, err)
		}
		if iv.Len() != k0+1 {
			t.Errorf("%s: %d trials after the append, want %d", src, iv.Len(), k0+1)
		}
		got, err := iv.Series(ctx, k0)
		if err != nil || len(got) != 2 || got[1] != (SeriesRef{Start: 7, Count: 2, Path: "/acquisition/ElectricalSeries"}) {
			t.Errorf("%s: the new trial's series %v, %v", src, got, err)
		}
		if again, err := iv.Series(ctx, k0-1); err != nil || !reflect.DeepEqual(again, oldSeries) {
			t.Errorf("%s: the last old trial's series %v, was %v (%v)", src, again, oldSeries, err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := Open(ctx, out)
		if err != nil {
			t.Fatal(err)
		}
		if u, err := f.Units(ctx); err != nil || u.Len() != n0+2 {
			t.Errorf("%s: reopened units %v", src, err)
		}
		if ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries"); err != nil || ts.Len() != 1000 {
			t.Errorf("%s: the source's series through the amendment: %v", src, err)
		}
		f.Close()
	}
}

func (f *File) mustTable(t *testing.T, ctx context.Context, path string) *Table {
	t.Helper()
	tab, err := f.Table(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// extension reads the test extension's cached specification.
func extension(t *testing.T) Namespace {
	t.Helper()
	ns := Namespace{Name: "ndx-lindi-test", Version: "0.1.0", Files: map[string]string{}}
	for _, name := range []string{"namespace", "ndx-lindi-test.extensions"} {
		b, err := os.ReadFile(filepath.Join("testdata/amend/ndx-lindi-test", name))
		if err != nil {
			t.Fatal(err)
		}
		ns.Files[name] = string(b)
	}
	return ns
}

// TestAmendExtension adds a series of an extension type, its namespace
// cached under /specifications (testdata/amend/check.py has pynwb read it).
func TestAmendExtension(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if *amendDir != "" {
		dir = *amendDir
	}
	out := filepath.Join(dir, "extension.lindi.tar")
	os.RemoveAll(out)
	a, err := Amend(ctx, amendSource, out)
	if err != nil {
		t.Fatal(err)
	}
	beh, err := a.Processing(ctx, "behavior", "behaviour")
	if err != nil {
		t.Fatal(err)
	}
	spec := SeriesSpec{Data: NewData([]float64{1, 2, 3}), Unit: "au", Rate: 2, Type: "LabelledSeries", Namespace: "ndx-lindi-test", Attrs: map[string]any{"label": "hello"}}
	if _, err := beh.AddTimeSeries(ctx, "labelled", spec); !errors.Is(err, ErrSpec) {
		t.Errorf("a type of an uncached namespace: %v", err)
	}
	if _, err := beh.AddGroup(ctx, "g", "ndx-lindi-test", "LabelledSeries", nil); !errors.Is(err, ErrSpec) {
		t.Errorf("a group of an uncached namespace: %v", err)
	}
	ext := extension(t)
	for _, bad := range []Namespace{
		{Name: "core", Version: "2.7.0", Files: map[string]string{"namespace": `{"namespaces":[{"name":"core","version":"2.7.0"}]}`}},
		{Name: "ndx-lindi-test", Version: "0.2.0", Files: ext.Files},
		{Name: "ndx-lindi-test", Version: "0.1.0", Files: map[string]string{"namespace": ext.Files["namespace"]}},
		{Name: "ndx-lindi-test", Version: "0.1.0", Files: map[string]string{"namespace": "{", "ndx-lindi-test.extensions": "{}"}},
	} {
		if err := a.AddNamespace(ctx, bad); !errors.Is(err, ErrSpec) {
			t.Errorf("AddNamespace(%s %s, %d files): %v", bad.Name, bad.Version, len(bad.Files), err)
		}
	}
	if _, err := a.H5().Get(ctx, "specifications/ndx-lindi-test"); err == nil {
		t.Error("a refused namespace was written")
	}
	if err := a.AddNamespace(ctx, ext); err != nil {
		t.Fatal(err)
	}
	if err := a.AddNamespace(ctx, ext); err != nil {
		t.Errorf("the same namespace again: %v", err)
	}
	if _, err := beh.AddTimeSeries(ctx, "labelled", spec); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, "processing/behavior/labelled")
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := ts.Group().Attrs().String("label"); ts.Type() != "LabelledSeries" || l != "hello" {
		t.Errorf("labelled: %s, label %q", ts.Type(), l)
	}
	d, err := f.H5().Dataset(ctx, "specifications/ndx-lindi-test/0.1.0/namespace")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := textOf(ctx, d); err != nil || s != ext.Files["namespace"] {
		t.Errorf("cached namespace %q, %v", s, err)
	}
	var cores []string
	g, err := f.H5().Group(ctx, "specifications/core")
	if err != nil {
		t.Fatal(err)
	}
	cores = g.Members()
	if len(cores) != 1 {
		t.Errorf("core versions %v", cores)
	}
}

func TestFromDense(t *testing.T) {
	ctx := context.Background()
	a, err := Amend(ctx, amendSource, filepath.Join(t.TempDir(), "d.lindi.tar"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Discard()
	m := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	mod, err := a.Processing(ctx, "m", "matrix")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := mod.AddTimeSeries(ctx, "x", SeriesSpec{Data: FromDense(m.T()), Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	v, err := ts.ReadPhysical(ctx, 0, ts.Len())
	if err != nil || !slices.Equal(v.Shape, []int{2, 3}) || !slices.Equal(v.Data, []float64{1, 3, 5, 2, 4, 6}) {
		t.Errorf("FromDense(mᵀ) read back %v, %v", v, err)
	}
}

// BenchmarkAddTimeSeries writes a 2-D float32 series (64 MiB) into a
// .lindi.tar amendment and commits it.
func BenchmarkAddTimeSeries(b *testing.B) {
	ctx := context.Background()
	v := make([]float32, 1<<24)
	for i := range v {
		v[i] = float32(math.Sin(float64(i) / 100))
	}
	b.SetBytes(int64(len(v) * 4))
	for i := range b.N {
		a, err := Amend(ctx, amendSource, filepath.Join(b.TempDir(), fmt.Sprint(i, ".lindi.tar")))
		if err != nil {
			b.Fatal(err)
		}
		mod, err := a.Processing(ctx, "ecephys", "bench")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := mod.AddTimeSeries(ctx, "x", SeriesSpec{Data: NewData(v, len(v)/64, 64), Rate: 30000}); err != nil {
			b.Fatal(err)
		}
		if err := a.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAmendRemote amends a source read over HTTP: the amendment refers to
// its chunks by URL and records the URL as its source.
func TestAmendRemote(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata/amend")))
	defer srv.Close()
	url := srv.URL + "/source.nwb"
	out := filepath.Join(t.TempDir(), "r.lindi.d")
	a, err := Amend(ctx, url, out)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := a.Processing(ctx, "behavior", "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mod.AddTimeSeries(ctx, "speed", SeriesSpec{Data: NewData(speed), Timestamps: speedT}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if s, _ := f.H5().Root().Attrs().String(SourceAttr); s != url {
		t.Errorf("source %q, want %q", s, url)
	}
	local, err := Open(ctx, amendSource)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want, _ := filtered(t, ctx, local)
	got, _ := filtered(t, ctx, f)
	if !slices.Equal(got, want) {
		t.Error("the remote source's series reads differently through the amendment")
	}
	ad, err := f.Added(ctx)
	if err != nil || len(ad.Objects) != 2 || ad.Objects[1].Path != "/processing/behavior/speed" {
		t.Errorf("added %+v, %v", ad, err)
	}
}

// pyTar, when set, names a .lindi.tar Python lindi made of the source
// (testdata/amend/run.sh makes it), for TestAmendPythonTar to add to.
var pyTar = flag.String("pytar", "", "a .lindi.tar of the source written by Python lindi, to amend")

// TestAmendPythonTar adds to a .lindi.tar Python lindi wrote: a series in a
// new module and a unit appended to /units (check.py reads them back).
func TestAmendPythonTar(t *testing.T) {
	if *pyTar == "" {
		t.Skip("-pytar FILE amends a .lindi.tar Python lindi wrote (testdata/amend/run.sh)")
	}
	ctx := context.Background()
	a, err := OpenAmendment(ctx, *pyTar)
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.Processing(ctx, "behavior", "from go")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.AddTimeSeries(ctx, "speed", SeriesSpec{Data: NewData(speed), Unit: "m/s", Timestamps: speedT}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddUnits(ctx, UnitsSpec{SpikeTimes: [][]float64{{1}}, Electrodes: [][]int{{2}}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAppendWidensIndex appends past what the source's uint8 indexes hold.
func TestAppendWidensIndex(t *testing.T) {
	ctx := context.Background()
	a, err := Amend(ctx, amendSource, filepath.Join(t.TempDir(), "w.lindi.tar"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Discard()
	many := make([]float64, 300)
	for i := range many {
		many[i] = float64(i) / 100
	}
	u, err := a.AddUnits(ctx, UnitsSpec{SpikeTimes: [][]float64{many}, Electrodes: [][]int{{1}}})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := u.Column("spike_times")
	if dt := c.index[0].DType().String(); dt != "<u2" {
		t.Errorf("spike_times_index is %s, want <u2", dt)
	}
	trains, err := u.SpikeTrains(ctx, 0, 3)
	if err != nil || len(trains[2]) != 300 || trains[2][299] != 2.99 || !slices.Equal(trains[0], []float64{0.1, 0.2, 0.35}) {
		t.Errorf("trains %v, %v", len(trains), err)
	}
	if r, err := c.index[0].Attrs().Ref("target"); err != nil || r.Path != "/units/spike_times" {
		t.Errorf("target %v, %v", r, err)
	}
	src, err := h5.Open(ctx, amendSource)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	old, err := src.Dataset(ctx, "units/spike_times_index")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := old.Attrs().String("object_id")
	if id, _ := c.index[0].Attrs().String("object_id"); id != want || id == "" {
		t.Errorf("spike_times_index object_id %q, not the source's %q", id, want)
	}
}

// TestAppendElectrodes appends to the electrodes table: string and
// reference columns grow too.
func TestAppendElectrodes(t *testing.T) {
	ctx := context.Background()
	a, err := Amend(ctx, amendSource, filepath.Join(t.TempDir(), "e.lindi.tar"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Discard()
	shank := h5.Reference{Path: "/general/extracellular_ephys/shank0"}
	if _, err := a.AppendRows(ctx, "general/extracellular_ephys/electrodes", TableSpec{Columns: []ColumnSpec{
		NewColumn("location", "l", []string{"CA3", "DG"}),
		NewColumn("group", "g", []h5.Reference{shank, shank}),
		NewColumn("group_name", "n", []string{"shank0", "shank0"}),
		NewColumn("x", "x", []float64{6, 7}), NewColumn("y", "y", []float64{12, 14}), NewColumn("z", "z", []float64{0, 0}),
		NewColumn("imp", "i", []float64{-1, -1}), NewColumn("filtering", "f", []string{"none", "none"}),
	}}); err != nil {
		t.Fatal(err)
	}
	e, err := a.Electrodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	locs, err := e.Locations(ctx)
	if err != nil || len(locs) != 8 || locs[0] != "CA1" || locs[7] != "DG" {
		t.Errorf("locations %v, %v", locs, err)
	}
	groups, err := e.Groups(ctx)
	if err != nil || len(groups) != 8 || groups[6].Path() != shank.Path || groups[0].Path() != shank.Path {
		t.Errorf("groups %v, %v", groups, err)
	}
	// A region into the grown table reaches the new rows.
	beh, err := a.Processing(ctx, "b", "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := beh.AddElectricalSeries(ctx, "es", ElectricalSeriesSpec{SeriesSpec: SeriesSpec{Data: NewData([]float64{1, 2}, 1, 2), Rate: 1}, Electrodes: []int{6, 7}}); err != nil {
		t.Fatal(err)
	}
}

// TestAmendRerun: an amendment discarded before its first commit leaves no
// file, so that the same Amend runs again; an existing output is refused,
// naming h5.WithReplace, which replaces it. In every form.
func TestAmendRerun(t *testing.T) {
	ctx := context.Background()
	for _, ext := range []string{".lindi.json", ".lindi.tar", ".lindi.d"} {
		t.Run(ext, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x"+ext)
			a, err := Amend(ctx, amendSource, out)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Discard(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a discarded amendment left %s (%v)", out, err)
			}
			if a, err = Amend(ctx, amendSource, out); err != nil {
				t.Fatalf("rerun: %v", err)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := Amend(ctx, amendSource, out); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("Amend over an amendment: %v, want ErrExist", err)
			}
			if a, err = Amend(ctx, amendSource, out, h5.WithReplace()); err != nil {
				t.Fatal(err)
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := Open(ctx, out)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
		})
	}
}
