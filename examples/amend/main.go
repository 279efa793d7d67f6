// Command amend adds an analysis result to an NWB file without copying it:
// it makes a .lindi.tar (or .lindi.d) that refers to the source's chunks,
// local or remote, and holds only what is new.
//
//	go run ./amend SRC OUT
//
// SRC is any NWB file package nwb reads (.nwb, .lindi.json, .lindi.tar,
// .lindi.d, an http(s) or DANDI URL); it is never modified. amend takes the
// first TimeSeries under /acquisition (any subtype, in path order) whose
// data is 1-D or 2-D numbers, time on axis 0 (channels on axis 1), with at
// least one sample, and writes a ProcessingModule processing/analysis
// holding
//   - a TimeSeries smoothed: the centred 5-sample moving average, along
//     time, of the first min(10000, n) samples in physical units
//     (data × conversion + offset; the window clipped to those samples at
//     both ends), float64, with the source's unit and timing (its rate and
//     starting_time, or its first timestamps), conversion 1 and offset 0;
//   - a DynamicTable peaks: a row per channel with its channel number, the
//     first sample at which the smoothed channel is largest, and that value.
//
// pynwb reads the result alongside the source's objects
// (NWBHDF5IO(file=lindi.LindiH5pyFile.from_lindi_file(OUT))). A source with
// no such series makes amend exit 1, saying why.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	_ "github.com/lindigo/lindi/dandi" // DANDI addresses (dandi://…) as FILE
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// maxSamples bounds the samples smoothed.
const maxSamples = 10000

// window is the moving average's width (centred: 2 samples each side).
const window = 5

func main() {
	log.SetFlags(0)
	log.SetPrefix("amend: ")
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: amend SRC OUT.lindi.tar|OUT.lindi.d")
		os.Exit(2)
	}
	line, err := run(context.Background(), os.Args[1], os.Args[2])
	if err != nil {
		log.Fatal(err) // exit status 1
	}
	fmt.Println(line)
}

// result is what amend computes from a series.
type result struct {
	smoothed []float64 // m × channels, C order
	shape    []int     // [m] or [m, channels]
	channels int
	peaks    []int // per channel, the first sample of the maximum
	values   []float64
}

// run writes the amendment and returns the line to print.
func run(ctx context.Context, src, out string) (string, error) {
	a, err := nwb.Amend(ctx, src, out)
	if err != nil {
		return "", err
	}
	line, err := amend(ctx, a)
	if err != nil {
		a.Discard()
		os.RemoveAll(out) // an empty amendment is no result
		return "", err
	}
	if err := a.Close(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: %s", out, line), nil
}

func amend(ctx context.Context, a *nwb.Amendment) (string, error) {
	ts, err := firstSeries(ctx, a.File)
	if err != nil {
		return "", err
	}
	m := min(maxSamples, ts.Len())
	r, err := smooth(ctx, ts, m)
	if err != nil {
		return "", err
	}
	spec := nwb.SeriesSpec{
		Data:        nwb.NewData(r.smoothed, r.shape...),
		Unit:        ts.Unit(),
		Conversion:  1,
		Offset:      0,
		Description: fmt.Sprintf("centred %d-sample moving average of %s", window, ts.Path()),
	}
	if rate, ok := ts.Rate(); ok {
		spec.Rate = rate
		if spec.StartingTime, err = ts.StartingTime(ctx); err != nil {
			return "", err
		}
	} else if spec.Timestamps, err = ts.Timestamps(ctx, 0, m); err != nil {
		return "", err
	}
	mod, err := a.Processing(ctx, "analysis", "lindi-go example")
	if err != nil {
		return "", err
	}
	if _, err := mod.AddTimeSeries(ctx, "smoothed", spec); err != nil {
		return "", err
	}
	ch := make([]int64, r.channels)
	at := make([]int64, r.channels)
	for c := range ch {
		ch[c], at[c] = int64(c), int64(r.peaks[c])
	}
	if _, err := mod.AddTable(ctx, "peaks", nwb.TableSpec{
		Description: "largest sample per channel",
		Columns: []nwb.ColumnSpec{
			nwb.NewColumn("channel", "channel number (axis 1 of the smoothed data)", ch),
			nwb.NewColumn("sample", "first sample at which the smoothed channel is largest", at),
			nwb.NewColumn("value", "the smoothed channel's largest value, in "+or(ts.Unit(), "the series' unit"), r.values),
		},
	}); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s/smoothed (%s, %d-sample moving average of %s) and %s/peaks (%d rows)",
		mod.Path(), shapeText(r.shape), window, ts.Path(), mod.Path(), r.channels), nil
}

// firstSeries finds the first usable TimeSeries under /acquisition, in path
// order (walking /acquisition only, not into a series), or says why there
// is none.
func firstSeries(ctx context.Context, f *nwb.File) (*nwb.TimeSeries, error) {
	acq, err := f.H5().Group(ctx, "acquisition")
	if errors.Is(err, h5.ErrNotFound) {
		return nil, fmt.Errorf("%s has no /acquisition", f.H5().Name())
	}
	if err != nil {
		return nil, err
	}
	var found *nwb.TimeSeries
	var seen []string
	errFound := errors.New("found")
	err = acq.Walk(ctx, func(path string, link h5.Link, obj h5.Object, err error) error {
		if _, isGroup := obj.(*h5.Group); err != nil || !isGroup || link.Kind != h5.HardLink {
			return nil
		}
		ts, err := f.TimeSeries(ctx, path)
		if errors.Is(err, nwb.ErrNotTimeSeries) || errors.Is(err, h5.ErrNotFound) {
			return nil // not a time series: look inside (a container such as Position)
		}
		if err != nil {
			return err
		}
		d := ts.Data()
		switch k := d.DType().Kind; {
		case k != zarrmeta.KindInt && k != zarrmeta.KindUint && k != zarrmeta.KindFloat:
			seen = append(seen, fmt.Sprintf("%s (%s data)", path, d.DType()))
		case d.NDim() > 2:
			seen = append(seen, fmt.Sprintf("%s (%d-D data)", path, d.NDim()))
		case ts.Len() == 0:
			seen = append(seen, path+" (no samples)")
		default:
			found = ts
			return errFound
		}
		return h5.SkipGroup
	})
	switch {
	case found != nil:
		return found, nil
	case err != nil:
		return nil, err
	case len(seen) == 0:
		return nil, fmt.Errorf("%s has no TimeSeries under /acquisition", f.H5().Name())
	}
	return nil, fmt.Errorf("%s has no TimeSeries under /acquisition with 1-D or 2-D numeric data and a sample: %s",
		f.H5().Name(), strings.Join(seen, ", "))
}

// smooth reads the first m samples in physical units and averages each
// channel over the centred window, then finds each channel's peak.
func smooth(ctx context.Context, ts *nwb.TimeSeries, m int) (*result, error) {
	v, err := h5.Read[float64](ctx, ts.Data(), selection.Selection{selection.Slice(0, m, 1)})
	if err != nil {
		return nil, err
	}
	conv, off := ts.Conversion(), ts.Offset()
	for i, x := range v.Data {
		v.Data[i] = x*conv + off
	}
	r := &result{shape: v.Shape, channels: 1}
	if len(v.Shape) == 2 {
		r.channels = v.Shape[1]
	}
	nc := r.channels
	r.smoothed = make([]float64, len(v.Data))
	r.peaks = make([]int, nc)
	r.values = make([]float64, nc)
	half := window / 2
	for c := range nc {
		for i := range m {
			lo, hi := max(0, i-half), min(m, i+half+1)
			sum := 0.0
			for j := lo; j < hi; j++ {
				sum += v.Data[j*nc+c]
			}
			y := sum / float64(hi-lo)
			r.smoothed[i*nc+c] = y
			if i == 0 || y > r.values[c] {
				r.peaks[c], r.values[c] = i, y
			}
		}
	}
	return r, nil
}

func shapeText(shape []int) string {
	s := make([]string, len(shape))
	for i, n := range shape {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, " × ")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
