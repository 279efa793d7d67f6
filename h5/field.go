package h5

import (
	"encoding/binary"
	"fmt"
	"math"
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
	if !fixedSize(f.DType) {
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

// fixedSize reports whether elements of dt have a byte form of their own.
func fixedSize(dt zarrmeta.DType) bool {
	switch dt.Kind {
	case zarrmeta.KindBool, zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat, zarrmeta.KindBytes:
		return true
	}
	return false
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
	if dt.Kind == zarrmeta.KindBytes {
		var b []byte
		switch x := v.(type) {
		case string:
			b = []byte(x)
		case []byte:
			b = x
		}
		if b == nil && v != "" || len(b) > len(dst) {
			return fmt.Errorf("%v does not fit %s: %w", v, dt, ErrType)
		}
		clear(dst[copy(dst, b):])
		return nil
	}
	var f float64
	var i int64
	switch x := v.(type) {
	case bool:
		if x {
			f, i = 1, 1
		}
	case int64:
		f, i = float64(x), x
	case uint64:
		f, i = float64(x), int64(x)
	case float64:
		f, i = x, int64(x)
		if dt.Kind != zarrmeta.KindFloat && x != math.Trunc(x) {
			return fmt.Errorf("%v is not an integer: %w", x, ErrType)
		}
	default:
		return fmt.Errorf("%v (%T) is not a number: %w", v, v, ErrType)
	}
	order := binary.NativeEndian
	switch {
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 2:
		return fmt.Errorf("cannot pack %s: %w", dt, ErrType)
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 4:
		order.PutUint32(dst, math.Float32bits(float32(f)))
	case dt.Kind == zarrmeta.KindFloat:
		order.PutUint64(dst, math.Float64bits(f))
	case dt.Size == 1:
		dst[0] = byte(i)
	case dt.Size == 2:
		order.PutUint16(dst, uint16(i))
	case dt.Size == 4:
		order.PutUint32(dst, uint32(i))
	case dt.Size == 8:
		order.PutUint64(dst, uint64(i))
	default:
		return fmt.Errorf("cannot pack %s: %w", dt, ErrType)
	}
	return nil
}
