package h5

import (
	"context"
	"fmt"
	"reflect"

	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/selection"
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

// ReadField reads one field of a compound dataset over the selection sel, as
// h5py's ds[sel][name] gives it and with the memory of ds[name]: each chunk
// is decoded whole, but only the field's bytes reach the result, an Array of
// the field's dtype (its subarray shape appended to the selection's). A
// compound kept as rows of items (one holding references or variable-length
// members) is read whole and the field picked from its rows, as Array.Field
// does. Pointwise selections read as in Read.
func (d *Dataset) ReadField(ctx context.Context, name string, sel selection.Selection) (*Array, error) {
	a, err := d.readField(ctx, name, sel)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s[%s][%q]: %w", d.path, sel, name, err)
	}
	return a, nil
}

func (d *Dataset) readField(ctx context.Context, name string, sel selection.Selection) (*Array, error) {
	f, ok := d.d.DType.Field(name)
	if !ok {
		return nil, fmt.Errorf("no field %q in %s: %w", name, d.d.DType, ErrNotFound)
	}
	st, direct, err := d.direct(ctx, sel)
	if err != nil {
		return nil, err
	}
	if !direct || st.Array.ItemSize != d.d.DType.Size {
		whole, err := d.read(ctx, sel)
		if err != nil {
			return nil, err
		}
		return whole.Field(name)
	}
	r, stored, err := d.resolve(sel)
	if err != nil {
		return nil, err
	}
	size := f.DType.Size * f.Count()
	if err := d.f.checkSize(r.Len(), size); err != nil {
		return nil, err
	}
	out := &Array{DType: f.DType.Native(), Shape: append(r.Shape(), f.Shape...), Data: make([]byte, r.Len()*size)}
	opt := d.f.engineOptions()
	if err := engine.ReadField(ctx, st.Array, stored, f.Offset, size, out.Data, opt); err != nil {
		return nil, err
	}
	return out, f.DType.SwapToNative(out.Data)
}
