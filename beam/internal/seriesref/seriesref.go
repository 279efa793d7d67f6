// Package seriesref computes per-channel statistics of an NWB TimeSeries the
// plain way, for tests to check lindibeam against: it reads the stored data
// and the attributes with package h5 alone (not package nwb's conversions,
// windows or electrode lookups), converts each value to float64 as pynwb's
// get_data_in_units does (value × conversion × channel factor + offset), and
// sums in float64, two passes.
package seriesref

import (
	"context"
	"fmt"
	"math"

	"github.com/lindigo/lindi/h5"
)

// Channel is the statistics of one channel over a window.
type Channel struct {
	Count                    int
	Mean, Std, RMS, Min, Max float64
	Location                 string
}

// Stats computes the statistics of each channel of the series at path in
// file name over the samples whose times t satisfy t0 <= t < t1 (the series
// must have a rate; its electrodes give each channel's location).
func Stats(ctx context.Context, name, path string, t0, t1 float64) ([]Channel, error) {
	f, err := h5.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := f.Dataset(ctx, path+"/data")
	if err != nil {
		return nil, err
	}
	conv, offset := attr(d, "conversion", 1), attr(d, "offset", 0)
	st, err := f.Dataset(ctx, path+"/starting_time")
	if err != nil {
		return nil, err
	}
	start, err := h5.Read[float64](ctx, st, nil)
	if err != nil {
		return nil, err
	}
	rate := attr(st, "rate", math.NaN())
	x, err := h5.Read[float64](ctx, d, nil)
	if err != nil {
		return nil, err
	}
	ncol := 1
	if len(x.Shape) > 1 {
		ncol = x.Shape[1]
	}
	factors := make([]float64, ncol)
	for c := range factors {
		factors[c] = 1
	}
	if cc, err := f.Dataset(ctx, path+"/channel_conversion"); err == nil {
		v, err := h5.Read[float64](ctx, cc, nil)
		if err != nil {
			return nil, err
		}
		copy(factors, v.Data)
	}
	locs, err := locations(ctx, f, path, ncol)
	if err != nil {
		return nil, err
	}
	out := make([]Channel, ncol)
	for c := range out {
		var vals []float64
		for i := 0; i < x.Shape[0]; i++ {
			t := start.Data[0] + float64(i)/rate
			if t0 <= t && t < t1 {
				vals = append(vals, x.Data[i*ncol+c]*conv*factors[c]+offset)
			}
		}
		out[c] = summarize(vals)
		out[c].Location = locs[c]
	}
	return out, nil
}

func attr(d *h5.Dataset, name string, def float64) float64 {
	if v, err := d.Attrs().Float(name); err == nil {
		return v
	}
	return def
}

// locations reads the electrode location of each channel: the series'
// electrodes dataset holds rows of the file's electrodes table.
func locations(ctx context.Context, f *h5.File, path string, ncol int) ([]string, error) {
	e, err := f.Dataset(ctx, path+"/electrodes")
	if err != nil {
		return nil, err
	}
	rows, err := h5.Read[int64](ctx, e, nil)
	if err != nil {
		return nil, err
	}
	l, err := f.Dataset(ctx, "general/extracellular_ephys/electrodes/location")
	if err != nil {
		return nil, err
	}
	a, err := l.Read(ctx, nil)
	if err != nil {
		return nil, err
	}
	if len(rows.Data) != ncol {
		return nil, fmt.Errorf("seriesref: %d electrodes for %d channels", len(rows.Data), ncol)
	}
	out := make([]string, ncol)
	for c, r := range rows.Data {
		if r < 0 || int(r) >= len(a.Objects) {
			return nil, fmt.Errorf("seriesref: electrode %d of %d", r, len(a.Objects))
		}
		s, ok := a.Objects[r].(string)
		if !ok {
			return nil, fmt.Errorf("seriesref: location %T", a.Objects[r])
		}
		out[c] = s
	}
	return out, nil
}

func summarize(v []float64) Channel {
	if len(v) == 0 {
		nan := math.NaN()
		return Channel{Mean: nan, Std: nan, RMS: nan, Min: nan, Max: nan}
	}
	ch := Channel{Count: len(v), Min: math.Inf(1), Max: math.Inf(-1)}
	var s, q float64
	for _, x := range v {
		s += x
		q += x * x
		ch.Min, ch.Max = min(ch.Min, x), max(ch.Max, x)
	}
	n := float64(len(v))
	ch.Mean, ch.RMS = s/n, math.Sqrt(q/n)
	var d float64
	for _, x := range v {
		d += (x - ch.Mean) * (x - ch.Mean)
	}
	ch.Std = math.Sqrt(d / n)
	return ch
}
