package h5

import (
	"context"
	"fmt"
	"math"

	"github.com/lindigo/lindi/internal/engine"
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
	r, err := sel.Resolve(d.shape)
	if err != nil {
		return nil, err
	}
	stored := r
	if d.scalar {
		if stored, err = (selection.Selection{}).Resolve([]int{1}); err != nil {
			return nil, err
		}
	}
	st, err := d.storage(ctx)
	if err != nil {
		return nil, err
	}
	arr := st.arr
	opt := engine.Options{Workers: d.f.workers, Fetcher: d.f.fetcher, Progress: d.f.progress}
	out := &Array{DType: d.dtype.Native(), Shape: r.Shape()}
	if arr.Objects {
		out.Objects = make([]any, r.Len())
		if err := engine.ReadObjects(ctx, arr, stored, out.Objects, opt); err != nil {
			return nil, err
		}
		return out, d.finishObjects(out)
	}
	if st.items == nil && arr.ItemSize != d.dtype.Size {
		return nil, fmt.Errorf("%w: stored elements have %d bytes, dtype %s has %d", ErrFormat, arr.ItemSize, d.dtype, d.dtype.Size)
	}
	if arr.ItemSize > 0 && r.Len() > math.MaxInt/arr.ItemSize {
		return nil, fmt.Errorf("selection of %d elements is too large", r.Len())
	}
	raw := make([]byte, r.Len()*arr.ItemSize)
	if err := engine.Read(ctx, arr, stored, raw, opt); err != nil {
		return nil, err
	}
	if st.items != nil {
		if out.Objects, err = st.items(ctx, raw); err != nil {
			return nil, err
		}
		return out, d.finishObjects(out)
	}
	out.Data = raw
	if err := d.dtype.SwapToNative(out.Data); err != nil {
		return nil, err
	}
	return out, nil
}

// finishObjects turns decoded JSON items into the documented Go values, and
// compound rows into packed elements where the compound has a fixed size.
func (d *Dataset) finishObjects(a *Array) error {
	for i, v := range a.Objects {
		x, err := fromJSON(v)
		if err != nil {
			return fmt.Errorf("element %d: %w", i, err)
		}
		a.Objects[i] = x
	}
	if !d.rows || !packable(d.dtype) {
		return nil
	}
	data := make([]byte, len(a.Objects)*a.DType.Size)
	for i, row := range a.Objects {
		if err := packRow(data[i*a.DType.Size:(i+1)*a.DType.Size], a.DType, row); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	a.Data, a.Objects = data, nil
	return d.dtype.SwapToNative(a.Data)
}
