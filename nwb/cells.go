package nwb

import (
	"fmt"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

// Field is one field of a compound cell, such as the idx_start, count and
// timeseries of a TimeSeriesReferenceVectorData element.
type Field struct {
	Name  string
	Value any
}

// elements splits an array read from a column's data into one value per
// element of its first axis: a scalar, or nested []any for the axes after
// the first. Scalars are int64, uint64, float64, bool, string, h5.Reference
// or []Field (a compound element).
func elements(a *h5.Array) ([]any, error) {
	flat, err := scalars(a)
	if err != nil {
		return nil, err
	}
	if len(a.Shape) == 0 {
		return flat, nil
	}
	return nest(flat, a.Shape), nil
}

// nest groups flat C-order values by every axis of shape after the first.
func nest(flat []any, shape []int) []any {
	for ax := len(shape) - 1; ax >= 1; ax-- {
		m := shape[ax]
		if m == 0 {
			// An empty trailing axis: each element above it is an empty list.
			outer := 1
			for _, n := range shape[:ax] {
				outer *= n
			}
			flat = make([]any, outer)
			for i := range flat {
				flat[i] = []any{}
			}
			continue
		}
		grouped := make([]any, len(flat)/m)
		for i := range grouped {
			grouped[i] = flat[i*m : (i+1)*m : (i+1)*m]
		}
		flat = grouped
	}
	return flat
}

// scalars converts every element of a to a Go value, in C order.
func scalars(a *h5.Array) ([]any, error) {
	out := make([]any, a.Len())
	switch a.DType.Kind {
	case zarrmeta.KindInt:
		return fill(out, a, func(v int64) any { return v })
	case zarrmeta.KindUint:
		return fill(out, a, func(v uint64) any { return v })
	case zarrmeta.KindFloat:
		return fill(out, a, func(v float64) any { return v })
	case zarrmeta.KindBool:
		return fill(out, a, func(v uint8) any { return v != 0 })
	case zarrmeta.KindBytes, zarrmeta.KindUnicode:
		return fill(out, a, func(v string) any { return v })
	case zarrmeta.KindStruct:
		return structs(out, a)
	case zarrmeta.KindObject, zarrmeta.KindReference:
		for i, v := range a.Objects {
			x, err := object(v)
			if err != nil {
				return nil, fmt.Errorf("%w (element %d)", err, i)
			}
			out[i] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: elements of dtype %s", h5.ErrType, a.DType)
}

// fill converts a's elements to T by h5.As and stores conv of each in out.
func fill[T h5.Element](out []any, a *h5.Array, conv func(T) any) ([]any, error) {
	v, err := h5.As[T](a)
	if err != nil {
		return nil, err
	}
	if len(v.Data) != len(out) {
		return nil, fmt.Errorf("%w: %d elements read for %d", h5.ErrFormat, len(v.Data), len(out))
	}
	for i, x := range v.Data {
		out[i] = conv(x)
	}
	return out, nil
}

// structs converts compound elements to []Field, field by field.
func structs(out []any, a *h5.Array) ([]any, error) {
	rows := make([][]Field, len(out))
	for i := range rows {
		rows[i] = make([]Field, len(a.DType.Fields))
	}
	for j, f := range a.DType.Fields {
		fa, err := a.Field(f.Name)
		if err != nil {
			return nil, err
		}
		vals, err := elements(&h5.Array{DType: fa.DType, Shape: append([]int{len(out)}, f.Shape...), Data: fa.Data, Objects: fa.Objects})
		if err != nil {
			return nil, fmt.Errorf("%w (field %q)", err, f.Name)
		}
		for i := range rows {
			rows[i][j] = Field{Name: f.Name, Value: vals[i]}
		}
	}
	for i := range out {
		out[i] = rows[i]
	}
	return out, nil
}

// object converts one item of an object array.
func object(v any) (any, error) {
	switch x := v.(type) {
	case string, int64, uint64, float64, bool, h5.Reference, nil:
		return x, nil
	case []byte:
		return string(x), nil
	}
	return nil, fmt.Errorf("%w: item of type %T", h5.ErrType, v)
}
