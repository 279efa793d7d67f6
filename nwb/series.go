package nwb

import (
	"context"
	"errors"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

// SeriesSummary describes one time series of a file, as lindi nwb prints
// it: where it is, what it holds and when.
type SeriesSummary struct {
	// Series is the time series itself, open for reading.
	Series *TimeSeries
	// Path is its absolute path; Type its neurodata_type.
	Path, Type string
	// Shape and DType are those of its data; Unit is the data's unit after
	// conversion ("" when not stated).
	Shape []int
	DType zarrmeta.DType
	Unit  string
	// Rate is the sampling rate in Hz, or 0 for a series timed by
	// timestamps.
	Rate float64
	// Start and End are its StartingTime and EndTime in seconds, and
	// Duration their difference (all 0 for a series without samples).
	Start, End, Duration float64
}

// AllTimeSeries lists every time series of the file in path order: every
// group with a neurodata_type and a data dataset that opens as a
// TimeSeries, subtypes (ElectricalSeries, SpatialSeries, TwoPhotonSeries,
// …) and series nested in other objects (the ElectricalSeries of an LFP,
// FilteredEphys or EventWaveform, the SpatialSeries of a Position, those of
// a processing module) included. It reads the first and last timestamps of
// the series timed by timestamps, and nothing else of their data.
func (f *File) AllTimeSeries(ctx context.Context) ([]SeriesSummary, error) {
	objs, err := f.Objects(ctx)
	if err != nil {
		return nil, err
	}
	var out []SeriesSummary
	for _, o := range objs {
		ts, err := f.seriesAt(ctx, o)
		if err != nil {
			return nil, err
		}
		if ts == nil {
			continue
		}
		s, err := ts.summary(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// seriesAt opens o as a time series, or gives nil when it is not one.
func (f *File) seriesAt(ctx context.Context, o Object) (*TimeSeries, error) {
	if !o.Group {
		return nil, nil
	}
	g, err := f.h.Group(ctx, o.Path)
	if err != nil {
		return nil, err
	}
	if _, err := g.Dataset(ctx, "data"); errors.Is(err, h5.ErrNotFound) {
		return nil, nil
	}
	ts, err := f.TimeSeries(ctx, o.Path)
	if errors.Is(err, ErrNotTimeSeries) {
		return nil, nil
	}
	return ts, err
}

// summary describes ts.
func (ts *TimeSeries) summary(ctx context.Context) (SeriesSummary, error) {
	s := SeriesSummary{
		Series: ts, Path: ts.Path(), Type: ts.Type(),
		Shape: ts.data.Shape(), DType: ts.data.DType(), Unit: ts.unit, Rate: ts.rate,
	}
	if ts.Len() == 0 {
		s.Start = ts.start
		s.End = s.Start
		return s, nil
	}
	var err error
	if s.Start, err = ts.StartingTime(ctx); err != nil {
		return s, err
	}
	if s.End, err = ts.EndTime(ctx); err != nil {
		return s, err
	}
	s.Duration = s.End - s.Start
	return s, nil
}

// EndTime is when the series ends, in seconds: for a series timed by a
// rate, the starting time plus Len samples of 1/rate seconds each (the last
// sample lasts one period, as pynwb's get_timestamps spaces them); for one
// with timestamps, its last timestamp (the length of the last sample is not
// known). A series timed by a rate without samples ends where it starts;
// one with timestamps and no samples has no end (an ErrRange error).
func (ts *TimeSeries) EndTime(ctx context.Context) (float64, error) {
	n := ts.Len()
	if ts.timestamps == nil {
		return ts.start + float64(n)/ts.rate, nil
	}
	t, err := ts.Timestamps(ctx, n-1, n)
	if err != nil {
		return 0, err
	}
	return t[0], nil
}

// Duration is EndTime minus StartingTime, in seconds (see EndTime): Len/rate
// for a series timed by a rate, the span of its timestamps otherwise.
func (ts *TimeSeries) Duration(ctx context.Context) (float64, error) {
	if ts.timestamps == nil {
		return float64(ts.Len()) / ts.rate, nil
	}
	start, err := ts.StartingTime(ctx)
	if err != nil {
		return 0, err
	}
	end, err := ts.EndTime(ctx)
	if err != nil {
		return 0, err
	}
	return end - start, nil
}
