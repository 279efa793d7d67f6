package nwb

import (
	"context"
	"errors"
	"fmt"

	"github.com/lindigo/lindi/h5"
)

// Electrodes reads the electrodes region of an ElectricalSeries (or of any
// series with one): the positions, in the electrodes table, of the
// electrodes its channels record, one per channel in the order of data's
// axis 1, and that table, found by the region's table reference wherever it
// is. Select the positions from the table for the electrodes' rows:
//
//	rows, table, err := ts.Electrodes(ctx)
//	electrodes, err := table.Select(ctx, rows) // or nwb.Select[MyElectrode]
//
// It fails wrapping h5.ErrNotFound when the series has no electrodes, and
// with ErrIndex when a position is outside the table or the region's length
// is not the number of channels.
func (ts *TimeSeries) Electrodes(ctx context.Context) ([]int, *Electrodes, error) {
	rows, t, err := ts.region(ctx, "electrodes")
	if err != nil {
		return nil, nil, err
	}
	return rows, NewElectrodes(t), nil
}

// region reads the series' DynamicTableRegion name (electrodes, rois): the
// rows it selects, one per channel of the data's second axis, and the
// table it selects them from.
func (ts *TimeSeries) region(ctx context.Context, name string) ([]int, *Table, error) {
	d, err := ts.g.Dataset(ctx, name)
	if errors.Is(err, h5.ErrNotFound) {
		return nil, nil, fmt.Errorf("nwb: %s has no %s region: %w", ts.Path(), name, unprefixed{h5.ErrNotFound})
	}
	if err != nil {
		return nil, nil, err // h5's error names the path
	}
	if d.NDim() != 1 {
		return nil, nil, fmt.Errorf("%w: region %s has shape %v, not 1-D", ErrIndex, d.Path(), d.Shape())
	}
	if sh := ts.data.Shape(); len(sh) >= 2 && sh[1] != d.Shape()[0] {
		return nil, nil, fmt.Errorf("%w: region %s has %d rows for data of shape %v", ErrIndex, d.Path(), d.Shape()[0], sh)
	}
	ref, err := d.Attrs().Ref("table")
	if err != nil {
		return nil, nil, fmt.Errorf("nwb: %s: region without a table: %w", d.Path(), unprefixed{err})
	}
	t, err := ts.f.Table(ctx, ref.Path)
	if err != nil {
		return nil, nil, err
	}
	v, err := h5.Read[int](ctx, d, nil)
	if err != nil {
		return nil, nil, err // h5's error names the region
	}
	for i, r := range v.Data {
		if r < 0 || r >= t.Len() {
			return nil, nil, fmt.Errorf("%w: %s: channel %d is row %d of %s, which has %d", ErrIndex, d.Path(), i, r, t.Path(), t.Len())
		}
	}
	return v.Data, t, nil
}
