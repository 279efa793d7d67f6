package h5

import (
	"fmt"
	"reflect"

	"github.com/lindigo/lindi/zarrmeta"
)

// rowField picks field f (the idx'th) from each row of a compound array kept
// as objects (rows holding references or variable-length members). A field
// of fixed-size elements is packed into Data, in native order, so that it
// reads like the same field of a packed compound; the others stay objects.
func (a *Array) rowField(f zarrmeta.Field, idx int) (*Array, error) {
	items := make([]any, len(a.Objects))
	for i, row := range a.Objects {
		r, ok := row.([]any)
		if !ok || idx < 0 || idx >= len(r) {
			return nil, fmt.Errorf("%w: row %d has no field %q", ErrFormat, i, f.Name)
		}
		items[i] = r[idx]
	}
	if len(f.DType.Fields) > 0 || !f.DType.Fixed() {
		return &Array{DType: f.DType, Shape: a.Shape, Objects: items}, nil
	}
	out := &Array{DType: f.DType, Shape: append(append([]int(nil), a.Shape...), f.Shape...)}
	n, size := f.Count(), f.DType.Size
	out.Data = make([]byte, len(items)*n*size)
	for i, item := range items {
		vals, err := flatten(item, n)
		if err != nil {
			return nil, fmt.Errorf("h5: row %d field %q: %w", i, f.Name, err)
		}
		for j, v := range vals {
			k := (i*n + j) * size
			if err := putNative(out.Data[k:k+size], f.DType, v); err != nil {
				return nil, fmt.Errorf("h5: row %d field %q: %w", i, f.Name, err)
			}
		}
	}
	return out, nil
}

// flatten gives the n values of one field item: the item itself, or the
// elements of a subarray field (a typed slice or nested lists).
func flatten(item any, n int) ([]any, error) {
	rv := reflect.ValueOf(item)
	if rv.Kind() != reflect.Slice || rv.Type().Elem().Kind() == reflect.Uint8 {
		if n != 1 {
			return nil, fmt.Errorf("%v is not a list of %d values: %w", item, n, ErrFormat)
		}
		return []any{item}, nil
	}
	var out []any
	for i := range rv.Len() {
		sub, err := flatten(rv.Index(i).Interface(), 1)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	if len(out) != n {
		return nil, fmt.Errorf("%d values, want %d: %w", len(out), n, ErrFormat)
	}
	return out, nil
}

// putNative encodes one decoded value (bool, int64, uint64, float64, string
// or []byte) as an element of dt in native byte order.
func putNative(dst []byte, dt zarrmeta.DType, v any) error {
	if err := dt.Native().EncodeValue(dst, v); err != nil {
		return fmt.Errorf("%w: %w", ErrType, err)
	}
	return nil
}
