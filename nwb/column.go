package nwb

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// Column is one column of a DynamicTable: its VectorData (or
// DynamicTableRegion, or a compound dataset) and the chain of VectorIndex
// datasets that make it ragged.
type Column struct {
	t     *Table
	name  string
	data  *h5.Dataset
	index []*h5.Dataset // index[0] indexes data, index[k] indexes index[k-1]
}

// Name is the column's name.
func (c *Column) Name() string { return c.name }

// Description is the description attribute of the column's data.
func (c *Column) Description() string {
	s, _ := c.data.Attrs().String("description")
	return s
}

// Type is the neurodata_type of the column's data ("VectorData",
// "DynamicTableRegion", "TimeSeriesReferenceVectorData", …; "" when none).
func (c *Column) Type() string { return typeOf(c.data) }

// Data is the dataset that holds the column's elements.
func (c *Column) Data() *h5.Dataset { return c.data }

// Depth is the number of VectorIndex levels over the data: 0 for a plain
// column, 1 for a ragged one, 2 for a doubly ragged one.
func (c *Column) Depth() int { return len(c.index) }

// Region reports whether the column is a DynamicTableRegion: its elements
// are row positions in the table Target returns.
func (c *Column) Region() bool {
	_, err := c.data.Attrs().Ref("table")
	return c.Type() == "DynamicTableRegion" || err == nil
}

// Target opens the table a region column points into.
func (c *Column) Target(ctx context.Context) (*Table, error) {
	r, err := c.data.Attrs().Ref("table")
	if err != nil {
		return nil, fmt.Errorf("nwb: %s: region without a table: %w", c.data.Path(), unprefixed{err})
	}
	return c.t.f.Table(ctx, r.Path)
}

// top is the dataset with one element per row: the last index, or the data.
func (c *Column) top() *h5.Dataset {
	if len(c.index) == 0 {
		return c.data
	}
	return c.index[len(c.index)-1]
}

// Cells reads rows [start, stop) of the column, one value per row: for a
// plain column an element of the data (int64, uint64, float64, bool,
// string, h5.Reference, []Field for a compound element, or nested []any
// for a data row with more than one dimension); for a ragged column a []any
// of such elements per row (nested once more per index level).
func (c *Column) Cells(ctx context.Context, start, stop int) ([]any, error) {
	if err := c.t.checkRange(start, stop); err != nil {
		return nil, err
	}
	bounds, lo, hi, err := c.spans(ctx, start, stop)
	if err != nil {
		return nil, err
	}
	a, err := c.data.Read(ctx, rowSel(lo, hi))
	if err != nil {
		return nil, err // h5's error names the column's data
	}
	vals, err := elements(a)
	if err != nil {
		return nil, fmt.Errorf("nwb: column %s: %w", c.data.Path(), unprefixed{err})
	}
	for _, b := range bounds {
		grouped := make([]any, len(b)-1)
		for i := range grouped {
			grouped[i] = vals[b[i]-b[0] : b[i+1]-b[0] : b[i+1]-b[0]]
		}
		vals = grouped
	}
	return vals, nil
}

// spans resolves rows [start, stop) through the index levels: bounds[k]
// holds the offsets into the level below index[k] (bounds[k][i] to
// bounds[k][i+1] is element i of the level above), and [lo, hi) is the
// range of the data the rows cover.
func (c *Column) spans(ctx context.Context, start, stop int) (bounds [][]int, lo, hi int, err error) {
	bounds = make([][]int, len(c.index))
	lo, hi = start, stop
	for k := len(c.index) - 1; k >= 0; k-- {
		below := c.data
		if k > 0 {
			below = c.index[k-1]
		}
		if below.NDim() == 0 {
			return nil, 0, 0, fmt.Errorf("%w: %s, the target of an index, is a scalar", ErrIndex, below.Path())
		}
		if bounds[k], err = span(ctx, c.index[k], lo, hi, below.Shape()[0]); err != nil {
			return nil, 0, 0, err
		}
		lo, hi = bounds[k][0], bounds[k][len(bounds[k])-1]
	}
	return bounds, lo, hi, nil
}

// span reads elements [start, stop) of a VectorIndex, whose values are end
// offsets into a target of n elements, and returns stop-start+1 offsets:
// element start+i covers target[b[i]:b[i+1]]. Offsets that run backwards,
// are negative or run past the target are an ErrIndex naming the index.
func span(ctx context.Context, idx *h5.Dataset, start, stop, n int) ([]int, error) {
	from := max(start-1, 0)
	v, err := h5.Read[int64](ctx, idx, rowSel(from, stop))
	if err != nil {
		return nil, err // h5's error names the index
	}
	ends := v.Data
	b := make([]int, 0, stop-start+1)
	if start == 0 {
		b = append(b, 0)
	}
	for i, e := range ends {
		prev := int64(0)
		if len(b) > 0 {
			prev = int64(b[len(b)-1])
		}
		switch {
		case e < 0 || e > int64(n):
			return nil, fmt.Errorf("%w: %s: element %d is %d, outside its target's %d elements", ErrIndex, idx.Path(), from+i, e, n)
		case e < prev:
			return nil, fmt.Errorf("%w: %s: element %d is %d, before the previous offset %d", ErrIndex, idx.Path(), from+i, e, prev)
		}
		b = append(b, int(e))
	}
	return b, nil
}

// rowSel selects rows [start, stop) along the first axis.
func rowSel(start, stop int) selection.Selection {
	return selection.Selection{selection.Slice(start, stop, 1)}
}

// Values reads rows [start, stop) of a column that is not ragged, converted
// to T by the rules of h5.Read (a 2-D column gives its rows one after
// another, in C order).
func Values[T h5.Element](ctx context.Context, c *Column, start, stop int) (*h5.Typed[T], error) {
	if len(c.index) != 0 {
		return nil, fmt.Errorf("nwb: column %s is ragged: %w", c.data.Path(), unprefixed{h5.ErrType})
	}
	if err := c.t.checkRange(start, stop); err != nil {
		return nil, err
	}
	v, err := h5.Read[T](ctx, c.data, rowSel(start, stop))
	if err != nil {
		return nil, err // h5's error names the column's data
	}
	return v, nil
}

// Ragged reads rows [start, stop) of a ragged column (one VectorIndex) as one
// slice per row, converted to T by the rules of h5.Read: the spike times of
// units, say, as [][]float64. When the data has more than one dimension, a
// row's elements are laid out one after another in C order. The rows share
// one backing array.
func Ragged[T h5.Element](ctx context.Context, c *Column, start, stop int) ([][]T, error) {
	if len(c.index) != 1 {
		return nil, fmt.Errorf("nwb: column %s has %d index levels, not 1: %w", c.data.Path(), len(c.index), unprefixed{h5.ErrType})
	}
	if err := c.t.checkRange(start, stop); err != nil {
		return nil, err
	}
	bounds, lo, hi, err := c.spans(ctx, start, stop)
	if err != nil {
		return nil, err
	}
	v, err := h5.Read[T](ctx, c.data, rowSel(lo, hi))
	if err != nil {
		return nil, err // h5's error names the column's data
	}
	m := 1
	for _, n := range v.Shape[1:] {
		m *= n
	}
	b := bounds[0]
	out := make([][]T, len(b)-1)
	for i := range out {
		x, y := (b[i]-lo)*m, (b[i+1]-lo)*m
		out[i] = v.Data[x:y:y]
	}
	return out, nil
}

// Indices reads rows [start, stop) of a region column as the row positions
// each row points at in the Target table (one position per row when the
// column is not ragged). Positions outside the target are an ErrIndex.
func (c *Column) Indices(ctx context.Context, start, stop int) ([][]int, error) {
	rows, _, err := c.indices(ctx, start, stop)
	return rows, err
}

// indices is Indices, also returning the Target table it opened.
func (c *Column) indices(ctx context.Context, start, stop int) ([][]int, *Table, error) {
	if !c.Region() {
		return nil, nil, fmt.Errorf("nwb: column %s is not a DynamicTableRegion: %w", c.data.Path(), unprefixed{h5.ErrType})
	}
	target, err := c.Target(ctx)
	if err != nil {
		return nil, nil, err
	}
	var raw [][]int64
	switch len(c.index) {
	case 0:
		v, err := Values[int64](ctx, c, start, stop)
		if err != nil {
			return nil, nil, err
		}
		for i := range v.Data {
			raw = append(raw, v.Data[i:i+1:i+1])
		}
	case 1:
		if raw, err = Ragged[int64](ctx, c, start, stop); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("nwb: region column %s has %d index levels: %w", c.data.Path(), len(c.index), unprefixed{h5.ErrType})
	}
	rows := make([][]int, len(raw))
	for i, r := range raw {
		rows[i] = make([]int, len(r))
		for j, x := range r {
			if x < 0 || x >= int64(target.Len()) {
				return nil, nil, fmt.Errorf("%w: %s: row %d points at row %d of %s, which has %d", ErrIndex, c.data.Path(), start+i, x, target.Path(), target.Len())
			}
			rows[i][j] = int(x)
		}
	}
	return rows, target, nil
}

// Resolve reads the rows of the Target table that row i of a region column
// points at.
func (c *Column) Resolve(ctx context.Context, i int) ([]Row, error) {
	idx, target, err := c.indices(ctx, i, i+1)
	if err != nil {
		return nil, err
	}
	return target.Select(ctx, idx[0])
}

// Objects reads rows [start, stop) of a column of object references (such as
// the electrodes table's group) and resolves each to its object.
func (c *Column) Objects(ctx context.Context, start, stop int) ([]h5.Object, error) {
	v, err := Values[h5.Reference](ctx, c, start, stop)
	if err != nil {
		return nil, err
	}
	out := make([]h5.Object, len(v.Data))
	for i, r := range v.Data {
		if out[i], err = c.t.f.h.Deref(ctx, r); err != nil {
			return nil, fmt.Errorf("nwb: %s row %d: %w", c.data.Path(), start+i, unprefixed{err})
		}
	}
	return out, nil
}
