package main

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

// want computes the smoothed samples and peaks the slow, obvious way.
func want(raw [][]float64, conv, off float64) (sm [][]float64, peak []int, val []float64) {
	m := min(len(raw), 10000)
	nc := len(raw[0])
	sm = make([][]float64, m)
	for i := range m {
		sm[i] = make([]float64, nc)
		for c := range nc {
			var s float64
			k := 0
			for j := i - 2; j <= i+2; j++ {
				if j >= 0 && j < m {
					s += raw[j][c]*conv + off
					k++
				}
			}
			sm[i][c] = s / float64(k)
		}
	}
	peak = make([]int, nc)
	val = make([]float64, nc)
	for c := range nc {
		val[c] = math.Inf(-1)
		for i := range m {
			if sm[i][c] > val[c] {
				peak[c], val[c] = i, sm[i][c]
			}
		}
	}
	return sm, peak, val
}

// rowsOf reads a series' data as rows of channels.
func rowsOf(t *testing.T, ctx context.Context, ts *nwb.TimeSeries) [][]float64 {
	t.Helper()
	v, err := h5.Read[float64](ctx, ts.Data(), nil)
	if err != nil {
		t.Fatal(err)
	}
	nc := 1
	if len(v.Shape) == 2 {
		nc = v.Shape[1]
	}
	rows := make([][]float64, ts.Len())
	for i := range rows {
		rows[i] = v.Data[i*nc : (i+1)*nc]
	}
	return rows
}

// check runs amend on src and compares what it wrote with want.
func check(t *testing.T, src, series, out string) *nwb.File {
	t.Helper()
	ctx := context.Background()
	line, err := run(ctx, src, out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, "processing/analysis/smoothed") || strings.Contains(line, "\n") {
		t.Errorf("printed %q", line)
	}
	orig, err := nwb.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	ots, err := orig.TimeSeries(ctx, series)
	if err != nil {
		t.Fatal(err)
	}
	sm, peak, val := want(rowsOf(t, ctx, ots), ots.Conversion(), ots.Offset())
	f, err := nwb.Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := f.TimeSeries(ctx, "processing/analysis/smoothed")
	if err != nil {
		t.Fatal(err)
	}
	if ts.Data().DType().String() != "<f8" || ts.Unit() != or(ots.Unit(), "unknown") || ts.Conversion() != 1 || ts.Offset() != 0 || ts.Len() != len(sm) {
		t.Errorf("smoothed: %s, unit %q, conversion %v, offset %v, %d samples", ts.Data().DType(), ts.Unit(), ts.Conversion(), ts.Offset(), ts.Len())
	}
	if want1 := ots.Data().NDim(); ts.Data().NDim() != want1 {
		t.Errorf("smoothed is %d-D, the source %d-D", ts.Data().NDim(), want1)
	}
	got := rowsOf(t, ctx, ts)
	for i := range sm {
		for c := range sm[i] {
			if math.Abs(got[i][c]-sm[i][c]) > 1e-9*math.Max(1, math.Abs(sm[i][c])) {
				t.Fatalf("smoothed[%d, %d] = %v, want %v", i, c, got[i][c], sm[i][c])
			}
		}
	}
	orate, oshared := ots.Rate()
	if rate, shared := ts.Rate(); rate != orate || shared != oshared {
		t.Errorf("rate %v %v, source %v %v", rate, shared, orate, oshared)
	}
	a, _ := ts.Timestamps(ctx, 0, ts.Len())
	b, _ := ots.Timestamps(ctx, 0, ts.Len())
	if !slices.Equal(a, b) {
		t.Errorf("timestamps %v, want %v", a[:3], b[:3])
	}
	mod, err := f.H5().Group(ctx, "processing/analysis")
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := mod.Attrs().String("description"); d != "lindi-go example" {
		t.Errorf("module description %q", d)
	}
	tab, err := f.Table(ctx, "processing/analysis/peaks")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Description() != "largest sample per channel" || tab.Len() != len(peak) {
		t.Errorf("peaks: %q, %d rows", tab.Description(), tab.Len())
	}
	type row struct {
		Channel int64   `nwb:"channel"`
		Sample  int64   `nwb:"sample"`
		Value   float64 `nwb:"value"`
	}
	rows, err := nwb.Rows[row](ctx, tab, 0, tab.Len())
	if err != nil {
		t.Fatal(err)
	}
	for c, r := range rows {
		if r.Channel != int64(c) || r.Sample != int64(peak[c]) || math.Abs(r.Value-val[c]) > 1e-9*math.Max(1, math.Abs(val[c])) {
			t.Errorf("peaks row %d = %+v, want sample %d value %v", c, r, peak[c], val[c])
		}
	}
	for _, col := range []string{"channel", "sample"} {
		c, _ := tab.Column(col)
		if c.Data().DType().String() != "<i8" {
			t.Errorf("%s is %s", col, c.Data().DType())
		}
	}
	return f
}

func TestAmendTables(t *testing.T) {
	out := filepath.Join(t.TempDir(), "amended.lindi.tar")
	f := check(t, filepath.Join("..", "..", "testdata", "nwb", "tables.nwb"), "acquisition/ElectricalSeries", out)
	defer f.Close()
	if f.H5().Format() != "LINDI tar" {
		t.Errorf("format %q", f.H5().Format())
	}
}

// TestAmendConversion uses a pynwb-written source whose data has a
// conversion and an offset, into a .lindi.d.
func TestAmendConversion(t *testing.T) {
	out := filepath.Join(t.TempDir(), "amended.lindi.d")
	f := check(t, filepath.Join("..", "..", "nwb", "testdata", "amend", "source.nwb"), "acquisition/ElectricalSeries", out)
	f.Close()
}

// source makes a variant of the pynwb source: its ElectricalSeries removed,
// and the series add puts in /acquisition.
func source(t *testing.T, add func(a *nwb.Amendment, c *nwb.Container)) string {
	t.Helper()
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "src.lindi.tar")
	a, err := nwb.Amend(ctx, filepath.Join("..", "..", "nwb", "testdata", "amend", "source.nwb"), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.H5().Root().Delete(ctx, "acquisition/ElectricalSeries"); err != nil {
		t.Fatal(err)
	}
	c, err := a.Acquisition(ctx)
	if err != nil {
		t.Fatal(err)
	}
	add(a, c)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAmendTimestamps: a 1-D series with timestamps, longer than 10000
// samples, after series amend cannot use (3-D, text).
func TestAmendTimestamps(t *testing.T) {
	ctx := context.Background()
	n := 12345
	v := make([]int32, n)
	ts := make([]float64, n)
	for i := range v {
		v[i] = int32((i * 7919) % 1013)
		ts[i] = 2 + float64(i)*0.001 + float64(i%3)*1e-5
	}
	src := source(t, func(a *nwb.Amendment, c *nwb.Container) {
		if _, err := c.AddTimeSeries(ctx, "A_cube", nwb.SeriesSpec{Data: nwb.NewData(make([]float64, 8), 2, 2, 2), Rate: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.AddTimeSeries(ctx, "B_text", nwb.SeriesSpec{Data: nwb.NewData([]string{"x"}), Rate: 1}); err != nil {
			t.Fatal(err)
		}
		// Inside a container, as a SpatialSeries sits in a Position.
		if _, err := c.AddGroup(ctx, "Box", "core", "Position", nil); err != nil {
			t.Fatal(err)
		}
		box, err := a.Container(ctx, "acquisition/Box")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := box.AddTimeSeries(ctx, "ramp", nwb.SeriesSpec{Data: nwb.NewData(v), Unit: "au", Conversion: 0.5, Offset: -3, Timestamps: ts}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.AddTimeSeries(ctx, "C_later", nwb.SeriesSpec{Data: nwb.NewData([]float64{1}), Rate: 1}); err != nil {
			t.Fatal(err)
		}
	})
	out := filepath.Join(t.TempDir(), "amended.lindi.tar")
	f := check(t, src, "acquisition/Box/ramp", out)
	defer f.Close()
	sm, err := f.TimeSeries(ctx, "processing/analysis/smoothed")
	if err != nil {
		t.Fatal(err)
	}
	if sm.Len() != 10000 {
		t.Errorf("%d samples smoothed, want 10000", sm.Len())
	}
}

// TestAmendNoSeries: a source without a usable series fails, naming why,
// and leaves no output.
func TestAmendNoSeries(t *testing.T) {
	ctx := context.Background()
	src := source(t, func(_ *nwb.Amendment, c *nwb.Container) {
		if _, err := c.AddTimeSeries(ctx, "empty", nwb.SeriesSpec{Data: nwb.NewData([]float64{}), Rate: 1}); err != nil {
			t.Fatal(err)
		}
	})
	out := filepath.Join(t.TempDir(), "amended.lindi.tar")
	_, err := run(ctx, src, out)
	if err == nil || !strings.Contains(err.Error(), "/acquisition/empty (no samples)") {
		t.Errorf("err = %v", err)
	}
	if _, err := h5.Open(ctx, out); err == nil {
		t.Error("an output was left")
	}
	src = source(t, func(*nwb.Amendment, *nwb.Container) {})
	if _, err := run(ctx, src, out); err == nil || !strings.Contains(err.Error(), "no TimeSeries under /acquisition") {
		t.Errorf("err = %v", err)
	}
}
