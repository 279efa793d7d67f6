package nwb

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/h5"
)

// Units is a Units table of sorted spikes: the file's /units, or one
// elsewhere (a processing module's, say), opened with UnitsAt or NewUnits.
type Units struct {
	*Table
}

// Units opens the file's units table (/units).
func (f *File) Units(ctx context.Context) (*Units, error) {
	return UnitsAt(ctx, f, "units")
}

// UnitsAt opens the Units table at path, such as
// "/processing/ecephys/units", with the checks of File.Table.
func UnitsAt(ctx context.Context, f *File, path string) (*Units, error) {
	t, err := f.Table(ctx, path)
	if err != nil {
		return nil, err
	}
	return NewUnits(t), nil
}

// NewUnits reads t, an open table, as a Units table. It checks nothing more
// (every column of Units is optional): a method whose column t lacks fails
// with ErrNoColumn. t must not be nil.
func NewUnits(t *Table) *Units { return &Units{t} }

// SpikeTimes reads the spike times, in seconds, of the unit in row i.
func (u *Units) SpikeTimes(ctx context.Context, i int) ([]float64, error) {
	rows, err := u.SpikeTrains(ctx, i, i+1)
	if err != nil {
		return nil, err
	}
	return rows[0], nil
}

// SpikeTrains reads the spike times of the units in rows [start, stop), in
// one read of the index and one of the times.
func (u *Units) SpikeTrains(ctx context.Context, start, stop int) ([][]float64, error) {
	c, err := u.Column("spike_times")
	if err != nil {
		return nil, err
	}
	return Ragged[float64](ctx, c, start, stop)
}

// Electrodes reads the positions, in the electrodes table, of the
// electrodes of the unit in row i.
func (u *Units) Electrodes(ctx context.Context, i int) ([]int, error) {
	c, err := u.Column("electrodes")
	if err != nil {
		return nil, err
	}
	rows, err := c.Indices(ctx, i, i+1)
	if err != nil {
		return nil, err
	}
	return rows[0], nil
}

// Electrodes is an electrodes table: the file's
// general/extracellular_ephys/electrodes, or another table with its columns
// (location, group, x, y, …), opened with ElectrodesAt or NewElectrodes.
type Electrodes struct {
	*Table
}

// Electrodes opens the file's electrodes table
// (/general/extracellular_ephys/electrodes).
func (f *File) Electrodes(ctx context.Context) (*Electrodes, error) {
	return ElectrodesAt(ctx, f, "general/extracellular_ephys/electrodes")
}

// ElectrodesAt opens the electrodes table at path, with the checks of
// File.Table.
func ElectrodesAt(ctx context.Context, f *File, path string) (*Electrodes, error) {
	t, err := f.Table(ctx, path)
	if err != nil {
		return nil, err
	}
	return NewElectrodes(t), nil
}

// NewElectrodes reads t, an open table, as an electrodes table. It checks
// nothing more: a method whose column t lacks (Locations needs location,
// Groups needs group) fails with ErrNoColumn. t must not be nil.
func NewElectrodes(t *Table) *Electrodes { return &Electrodes{t} }

// Locations reads the location column: the brain area of each electrode.
func (e *Electrodes) Locations(ctx context.Context) ([]string, error) {
	c, err := e.Column("location")
	if err != nil {
		return nil, err
	}
	v, err := Values[string](ctx, c, 0, e.Len())
	if err != nil {
		return nil, err
	}
	return v.Data, nil
}

// Groups reads the group column and resolves each electrode's reference to
// its ElectrodeGroup.
func (e *Electrodes) Groups(ctx context.Context) ([]*h5.Group, error) {
	c, err := e.Column("group")
	if err != nil {
		return nil, err
	}
	objs, err := c.Objects(ctx, 0, e.Len())
	if err != nil {
		return nil, err
	}
	out := make([]*h5.Group, len(objs))
	for i, o := range objs {
		g, ok := o.(*h5.Group)
		if !ok {
			return nil, fmt.Errorf("nwb: %s row %d: %s is not an ElectrodeGroup: %w", c.Data().Path(), i, o.Path(), unprefixed{h5.ErrNotGroup})
		}
		out[i] = g
	}
	return out, nil
}

// Intervals is a TimeIntervals table: trials, epochs, invalid_times and
// the like, one interval per row.
type Intervals struct {
	*Table
}

// Intervals opens the TimeIntervals table at path ("intervals/trials",
// "intervals/epochs", …); it is IntervalsAt.
func (f *File) Intervals(ctx context.Context, path string) (*Intervals, error) {
	return IntervalsAt(ctx, f, path)
}

// IntervalsAt opens the TimeIntervals table at path, with the checks of
// File.Table and NewIntervals.
func IntervalsAt(ctx context.Context, f *File, path string) (*Intervals, error) {
	t, err := f.Table(ctx, path)
	if err != nil {
		return nil, err
	}
	return NewIntervals(t)
}

// NewIntervals reads t, an open table, as a TimeIntervals table. It fails
// with ErrNoColumn unless t has the start_time and stop_time columns every
// TimeIntervals table has. t must not be nil.
func NewIntervals(t *Table) (*Intervals, error) {
	for _, col := range []string{"start_time", "stop_time"} {
		if !t.Has(col) {
			return nil, fmt.Errorf("%w: %q: %s is not a TimeIntervals table", ErrNoColumn, col, t.Path())
		}
	}
	return &Intervals{t}, nil
}

// Trials opens the trials table (/intervals/trials).
func (f *File) Trials(ctx context.Context) (*Intervals, error) {
	return IntervalsAt(ctx, f, "intervals/trials")
}

// Times reads the start and stop times, in seconds, of every interval.
func (iv *Intervals) Times(ctx context.Context) (start, stop []float64, err error) {
	var cols [2][]float64
	for k, name := range []string{"start_time", "stop_time"} {
		c, err := iv.Column(name)
		if err != nil {
			return nil, nil, err
		}
		v, err := Values[float64](ctx, c, 0, iv.Len())
		if err != nil {
			return nil, nil, err
		}
		cols[k] = v.Data
	}
	return cols[0], cols[1], nil
}

// Tags reads the tags of interval i.
func (iv *Intervals) Tags(ctx context.Context, i int) ([]string, error) {
	c, err := iv.Column("tags")
	if err != nil {
		return nil, err
	}
	rows, err := Ragged[string](ctx, c, i, i+1)
	if err != nil {
		return nil, err
	}
	return rows[0], nil
}

// SeriesRef is one element of a TimeSeriesReferenceVectorData column: Count
// samples of the time series at Path from sample Start (-1 and -1 when the
// element refers to no data).
type SeriesRef struct {
	Start, Count int
	Path         string
}

// Series reads the time series references (the timeseries column) of
// interval i.
func (iv *Intervals) Series(ctx context.Context, i int) ([]SeriesRef, error) {
	c, err := iv.Column("timeseries")
	if err != nil {
		return nil, err
	}
	cells, err := c.Cells(ctx, i, i+1)
	if err != nil {
		return nil, err
	}
	var items []any
	switch c.Depth() {
	case 0:
		items = cells
	case 1:
		items = cells[0].([]any) // Cells gives a []any per row of a ragged column
	default:
		return nil, fmt.Errorf("nwb: %s: %w: %d index levels", c.Data().Path(), unprefixed{h5.ErrType}, c.Depth())
	}
	out := make([]SeriesRef, len(items))
	for k, it := range items {
		if out[k], err = seriesRef(it); err != nil {
			return nil, fmt.Errorf("nwb: %s row %d: %w", c.Data().Path(), i, unprefixed{err})
		}
	}
	return out, nil
}

// seriesRef reads a compound (idx_start, count, timeseries) cell.
func seriesRef(v any) (SeriesRef, error) {
	fields, ok := v.([]Field)
	if !ok {
		return SeriesRef{}, fmt.Errorf("%w: element %v is not compound", h5.ErrType, v)
	}
	var r SeriesRef
	var seen int
	for _, f := range fields {
		switch x := f.Value.(type) {
		case int64:
			switch f.Name {
			case "idx_start":
				r.Start, seen = int(x), seen|1
			case "count":
				r.Count, seen = int(x), seen|2
			}
		case h5.Reference:
			if f.Name == "timeseries" {
				r.Path, seen = x.Path, seen|4
			}
		}
	}
	if seen != 7 {
		return SeriesRef{}, fmt.Errorf("%w: element lacks idx_start, count or timeseries", h5.ErrType)
	}
	return r, nil
}
