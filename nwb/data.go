package nwb

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// Data is the content of a new dataset: the values of a Go slice, in C
// order, and their shape. Make one with NewData or FromDense; the zero Data
// holds nothing.
type Data struct {
	shape []int
	dtype zarrmeta.DType
	refs  []h5.Reference // the references among the values, to check they resolve
	err   error          // why the values cannot be written
	ints  []int64        // the values, when they are integers
	// write writes the values into sel of d, converting them to d's dtype.
	write func(ctx context.Context, d *h5.Dataset, sel selection.Selection) error
}

// NewData holds values of the given shape (none for one dimension of
// len(values)). The dataset takes T's dtype (h5.DTypeOf: float32 stays
// float32, strings and references are variable-length objects).
func NewData[T h5.Value](values []T, shape ...int) Data {
	if len(shape) == 0 {
		shape = []int{len(values)}
	}
	d := Data{shape: slices.Clone(shape), dtype: h5.DTypeOf[T]()}
	switch v := any(values).(type) {
	case []h5.Reference:
		d.refs = v
	case []int:
		d.ints = int64s(v)
	case []int8:
		d.ints = int64s(v)
	case []int16:
		d.ints = int64s(v)
	case []int32:
		d.ints = int64s(v)
	case []int64:
		d.ints = v
	case []uint8:
		d.ints = int64s(v)
	case []uint16:
		d.ints = int64s(v)
	case []uint32:
		d.ints = int64s(v)
	}
	n := 1
	for _, x := range shape {
		n *= x
	}
	if n != len(values) {
		d.err = fmt.Errorf("%d values for shape %v", len(values), shape)
	}
	d.write = func(ctx context.Context, ds *h5.Dataset, sel selection.Selection) error {
		return h5.Write(ctx, ds, sel, values)
	}
	return d
}

// NewRows holds compound rows of dtype (h5.Compound): one value per field,
// in field order (see h5.WriteRows), a row per element of one dimension.
func NewRows(dtype zarrmeta.DType, rows [][]any) Data {
	d := Data{shape: []int{len(rows)}, dtype: dtype}
	if dtype.Kind != zarrmeta.KindStruct {
		d.err = fmt.Errorf("rows of dtype %s, not a compound", dtype)
	}
	for i, r := range rows {
		if len(r) != len(dtype.Fields) {
			d.err = fmt.Errorf("row %d has %d values for %d fields", i, len(r), len(dtype.Fields))
			break
		}
		for _, v := range r {
			if ref, ok := v.(h5.Reference); ok {
				d.refs = append(d.refs, ref)
			}
		}
	}
	d.write = func(ctx context.Context, ds *h5.Dataset, sel selection.Selection) error {
		return h5.WriteRows(ctx, ds, sel, rows)
	}
	return d
}

// seriesRefDType is the compound of a TimeSeriesReferenceVectorData (the
// timeseries column of an intervals table): idx_start, count, timeseries.
var seriesRefDType = func() zarrmeta.DType {
	dt, err := h5.Compound([]string{"idx_start", "count", "timeseries"},
		[]zarrmeta.DType{h5.DTypeOf[int32](), h5.DTypeOf[int32](), h5.ReferenceDType})
	if err != nil {
		panic(err) // a fixed, valid compound
	}
	return dt
}()

// seriesRows are the rows of a timeseries column: per interval, its series
// references, flattened, and the index of each interval's end.
func seriesRows(per [][]SeriesRef) (Data, []int) {
	var rows [][]any
	ends := make([]int, len(per))
	for i, refs := range per {
		for _, r := range refs {
			rows = append(rows, []any{r.Start, r.Count, h5.Reference{Path: r.Path}})
		}
		ends[i] = len(rows)
	}
	return NewRows(seriesRefDType, rows), ends
}

// FromDense holds the elements of m as float64 data of shape [rows, cols]
// (a copy).
func FromDense(m mat.Matrix) Data {
	r, c := m.Dims()
	v := make([]float64, 0, r*c)
	for i := range r {
		for j := range c {
			v = append(v, m.At(i, j))
		}
	}
	return NewData(v, r, c)
}

func int64s[T int | int8 | int16 | int32 | uint8 | uint16 | uint32](v []T) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// Shape is the data's shape.
func (d Data) Shape() []int { return slices.Clone(d.shape) }

// Len is the length of the first axis (1 for a scalar).
func (d Data) Len() int {
	if len(d.shape) == 0 {
		return 1
	}
	return d.shape[0]
}

// check refuses data that cannot be written (values that do not match the
// shape), naming what.
func (d Data) check(what string) error {
	if d.write == nil {
		return fmt.Errorf("%w: %s has no data", ErrSpec, what)
	}
	if d.err != nil {
		return fmt.Errorf("%w: %s: %v", ErrSpec, what, d.err)
	}
	return nil
}

// checkRefs checks that every reference of d names an object of f.
func (d Data) checkRefs(ctx context.Context, f *h5.File, what string) error {
	for i, r := range d.refs {
		if _, err := f.Get(ctx, r.Path); err != nil {
			return fmt.Errorf("%w: %s: reference %d to %q: %w", ErrSpec, what, i, r.Path, unprefixed{err})
		}
	}
	return nil
}

// create makes the dataset name in g from d.
func (d Data) create(ctx context.Context, g *h5.Group, name string, spec *h5.DatasetSpec) (*h5.Dataset, error) {
	var s h5.DatasetSpec
	if spec != nil {
		s = *spec
	}
	s.Shape = d.shape
	if s.DType.Kind == zarrmeta.KindInvalid {
		s.DType = d.dtype
	}
	ds, err := g.CreateDataset(ctx, name, s)
	if err != nil {
		return nil, err
	}
	if err := d.write(ctx, ds, nil); err != nil {
		return nil, err
	}
	return ds, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
