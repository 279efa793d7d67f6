package nwb

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// TimeSeries is an NWB TimeSeries (or a subtype: ElectricalSeries,
// TwoPhotonSeries, SpatialSeries, …): samples along the first axis of data,
// timed by explicit timestamps or by a starting time and a rate.
type TimeSeries struct {
	f           *File
	g           *h5.Group
	data        *h5.Dataset
	timestamps  *h5.Dataset // nil when timed by starting_time and rate
	start       float64
	rate        float64
	conversion  float64
	offset      float64
	resolution  float64
	unit        string
	channelConv []float64 // ElectricalSeries' per-channel factors, or nil
}

// TimeSeries opens the time series at path. It fails with ErrNotTimeSeries
// when the group has no data, or neither timestamps nor a starting_time with
// a rate.
func (f *File) TimeSeries(ctx context.Context, path string) (*TimeSeries, error) {
	g, err := f.group(ctx, path, "time series")
	if err != nil {
		return nil, err
	}
	ts := &TimeSeries{f: f, g: g, conversion: 1, resolution: -1}
	if ts.data, err = g.Dataset(ctx, "data"); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotTimeSeries, unprefixed{err})
	}
	if ts.data.NDim() == 0 {
		return nil, fmt.Errorf("%w: %s is a scalar", ErrNotTimeSeries, ts.data.Path())
	}
	a := ts.data.Attrs()
	ts.unit, _ = a.String("unit")
	for _, x := range []struct {
		dst  *float64
		name string
	}{{&ts.conversion, "conversion"}, {&ts.offset, "offset"}, {&ts.resolution, "resolution"}} {
		if a.Has(x.name) {
			if *x.dst, err = a.Float(x.name); err != nil {
				return nil, fmt.Errorf("nwb: %s: %w", ts.data.Path(), unprefixed{err})
			}
		}
	}
	if err := ts.timing(ctx); err != nil {
		return nil, err
	}
	if err := ts.readChannelConversion(ctx); err != nil {
		return nil, err
	}
	return ts, nil
}

// timing finds the timestamps, or the starting time and rate.
func (ts *TimeSeries) timing(ctx context.Context) error {
	d, err := ts.g.Dataset(ctx, "timestamps")
	if err == nil {
		if d.NDim() != 1 || d.Shape()[0] < ts.Len() {
			return fmt.Errorf("%w: %s has shape %v for %d samples", ErrIndex, d.Path(), d.Shape(), ts.Len())
		}
		ts.timestamps = d
		return nil
	}
	if !errors.Is(err, h5.ErrNotFound) {
		return err // h5's error names the timestamps
	}
	st, err := ts.g.Dataset(ctx, "starting_time")
	if err != nil {
		return fmt.Errorf("%w: %s has neither timestamps nor starting_time", ErrNotTimeSeries, ts.g.Path())
	}
	v, err := h5.Read[float64](ctx, st, nil)
	if err != nil {
		return err // h5's error names starting_time
	}
	if len(v.Data) != 1 {
		return fmt.Errorf("%w: %s has shape %v, not one value", ErrNotTimeSeries, st.Path(), v.Shape)
	}
	ts.start = v.Data[0]
	if ts.rate, err = st.Attrs().Float("rate"); err != nil {
		return fmt.Errorf("nwb: %s: %w", st.Path(), unprefixed{err})
	}
	if !(ts.rate > 0) || math.IsInf(ts.rate, 0) {
		return fmt.Errorf("%w: %s: rate %v is not a positive number", ErrNotTimeSeries, st.Path(), ts.rate)
	}
	return nil
}

// readChannelConversion reads an ElectricalSeries' channel_conversion.
func (ts *TimeSeries) readChannelConversion(ctx context.Context) error {
	d, err := ts.g.Dataset(ctx, "channel_conversion")
	if errors.Is(err, h5.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err // h5's errors name channel_conversion
	}
	v, err := h5.Read[float64](ctx, d, nil)
	if err != nil {
		return err
	}
	if sh := ts.data.Shape(); len(sh) < 2 || sh[1] != len(v.Data) {
		return fmt.Errorf("%w: %s: %d factors for data of shape %v", ErrIndex, d.Path(), len(v.Data), sh)
	}
	ts.channelConv = v.Data
	return nil
}

// Path is the series' absolute path.
func (ts *TimeSeries) Path() string { return ts.g.Path() }

// Type is the series' neurodata_type ("TimeSeries" when it has none).
func (ts *TimeSeries) Type() string {
	if t := typeOf(ts.g); t != "" {
		return t
	}
	return "TimeSeries"
}

// Group is the series' group, for members this type does not cover.
func (ts *TimeSeries) Group() *h5.Group { return ts.g }

// Data is the dataset of samples; its first axis is time.
func (ts *TimeSeries) Data() *h5.Dataset { return ts.data }

// Len is the number of samples.
func (ts *TimeSeries) Len() int { return ts.data.Shape()[0] }

// Unit is the physical unit of data after conversion ("" when not stated).
func (ts *TimeSeries) Unit() string { return ts.unit }

// Conversion is the factor that turns stored values into Unit (default 1).
func (ts *TimeSeries) Conversion() float64 { return ts.conversion }

// Offset is added to stored values after Conversion (default 0).
func (ts *TimeSeries) Offset() float64 { return ts.offset }

// Resolution is the smallest meaningful difference in Unit (-1 when unknown).
func (ts *TimeSeries) Resolution() float64 { return ts.resolution }

// Rate is the sampling rate in Hz and true when the series is timed by a
// starting time and a rate; 0 and false when it has explicit timestamps.
func (ts *TimeSeries) Rate() (float64, bool) { return ts.rate, ts.timestamps == nil }

// StartingTime is the time of sample 0, in seconds: the starting_time, or the
// first timestamp (read from the file). It fails for an empty series with
// timestamps.
func (ts *TimeSeries) StartingTime(ctx context.Context) (float64, error) {
	if ts.timestamps == nil {
		return ts.start, nil
	}
	t, err := ts.Timestamps(ctx, 0, 1)
	if err != nil {
		return 0, err
	}
	return t[0], nil
}

// Timestamps returns the times in seconds of samples [start, stop), reading
// only those timestamps (or computing them from the starting time and rate).
func (ts *TimeSeries) Timestamps(ctx context.Context, start, stop int) ([]float64, error) {
	if start < 0 || stop < start || stop > ts.Len() {
		return nil, fmt.Errorf("%w: samples [%d, %d) of %s, which has %d", ErrRange, start, stop, ts.Path(), ts.Len())
	}
	if ts.timestamps == nil {
		out := make([]float64, stop-start)
		for i := range out {
			out[i] = ts.start + float64(start+i)/ts.rate
		}
		return out, nil
	}
	v, err := h5.Read[float64](ctx, ts.timestamps, selection.Selection{selection.Slice(start, stop, 1)})
	if err != nil {
		return nil, err // h5's error names the timestamps
	}
	return v.Data, nil
}

// Read reads a selection of the data as stored (see h5.Dataset.Read).
func (ts *TimeSeries) Read(ctx context.Context, sel selection.Selection) (*h5.Array, error) {
	return ts.data.Read(ctx, sel)
}

// ReadPhysical reads samples [start, stop) of the data (every channel) in
// Unit: each stored value times Conversion (and, for an ElectricalSeries with
// channel_conversion, its channel's factor) plus Offset, as pynwb's
// get_data_in_units computes it.
func (ts *TimeSeries) ReadPhysical(ctx context.Context, start, stop int) (*h5.Typed[float64], error) {
	if start < 0 || stop < start || stop > ts.Len() {
		return nil, fmt.Errorf("%w: samples [%d, %d) of %s, which has %d", ErrRange, start, stop, ts.Path(), ts.Len())
	}
	v, err := h5.Read[float64](ctx, ts.data, selection.Selection{selection.Slice(start, stop, 1)})
	if err != nil {
		return nil, err // h5's error names the data
	}
	if ts.channelConv == nil {
		for i, x := range v.Data {
			v.Data[i] = x*ts.conversion + ts.offset
		}
		return v, nil
	}
	// Axis 1 is the channel: element i belongs to channel (i / inner) % channels.
	inner := 1
	for _, n := range v.Shape[2:] {
		inner *= n
	}
	for i, x := range v.Data {
		v.Data[i] = x*ts.conversion*ts.channelConv[(i/inner)%len(ts.channelConv)] + ts.offset
	}
	return v, nil
}
