package h5

import (
	"context"
	"fmt"
	"math"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/internal/hugemem"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// Array is the result of a read: the selected elements in C order, with the
// dataset's dtype in native byte order. Fixed-size elements are in Data;
// elements of object arrays (variable-length strings, references, compound
// rows that hold references) are in Objects instead, as string, []byte,
// int64, float64, bool, Reference or []any (a compound row).
type Array struct {
	DType   zarrmeta.DType
	Shape   []int
	Data    []byte
	Objects []any
}

// Len is the number of elements.
func (a *Array) Len() int {
	n := 1
	for _, s := range a.Shape {
		n *= s
	}
	return n
}

// Read reads the selection sel of the dataset (an empty Selection reads it all).
func (d *Dataset) Read(ctx context.Context, sel selection.Selection) (*Array, error) {
	a, err := d.read(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s[%s]: %w", d.path, sel, err)
	}
	return a, nil
}

func (d *Dataset) read(ctx context.Context, sel selection.Selection) (*Array, error) {
	if d.d.Err != nil {
		return nil, d.d.Err
	}
	r, err := sel.Resolve(d.d.Shape)
	if err != nil {
		return nil, err
	}
	stored := r
	if d.d.Scalar {
		if stored, err = (selection.Selection{}).Resolve([]int{1}); err != nil {
			return nil, err
		}
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return nil, err
	}
	out := &Array{DType: d.d.DType.Native(), Shape: r.Shape()}
	opt := engine.Options{Workers: d.f.workers, Fetcher: d.f.fetcher, Progress: d.f.progress}
	if st.Array.Objects {
		out.Objects = make([]any, r.Len())
		if err := engine.ReadObjects(ctx, st.Array, stored, out.Objects, opt); err != nil {
			return nil, err
		}
		return out, d.items(ctx, st, out, nil)
	}
	raw, err := d.readBytes(ctx, st, stored, opt)
	if err != nil {
		return nil, err
	}
	if st.Items != nil {
		return out, d.items(ctx, st, out, raw)
	}
	out.Data = raw
	return out, d.d.DType.SwapToNative(out.Data)
}

// readBytes reads the fixed-size stored elements of a selection.
func (d *Dataset) readBytes(ctx context.Context, st *driver.Stored, r *selection.Resolved, opt engine.Options) ([]byte, error) {
	is := st.Array.ItemSize
	if st.Items == nil && is != d.d.DType.Size {
		return nil, fmt.Errorf("%w: stored elements have %d bytes, dtype %s has %d", ErrFormat, is, d.d.DType, d.d.DType.Size)
	}
	if is > 0 && r.Len() > math.MaxInt/is {
		return nil, fmt.Errorf("selection of %d elements is too large", r.Len())
	}
	raw := hugemem.Alloc(r.Len() * is)
	return raw, engine.Read(ctx, st.Array, r, raw, opt)
}

// items turns what the engine read (raw stored elements, or the items of an
// object array) into the documented Go values, or into packed elements where
// the driver packs compound rows.
func (d *Dataset) items(ctx context.Context, st *driver.Stored, a *Array, raw []byte) error {
	if st.Items != nil {
		objs, data, err := st.Items.Items(ctx, raw, a.Objects)
		if err != nil {
			return err
		}
		if data != nil {
			a.Data, a.Objects = data, nil
			return d.d.DType.SwapToNative(a.Data)
		}
		a.Objects = objs
	}
	for i, v := range a.Objects {
		a.Objects[i] = references(v)
	}
	return nil
}

// references turns the drivers' references in an item (a compound row's
// fields too) into References.
func references(v any) any {
	switch x := v.(type) {
	case driver.Ref:
		return Reference{Path: x.Path}
	case []any:
		for i := range x {
			x[i] = references(x[i])
		}
	}
	return v
}
