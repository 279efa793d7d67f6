package h5

import (
	"context"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// ReadInto reads the selection sel of a numeric dataset into dst, h5py's
// read_direct: the chunks are decoded straight into dst's memory, with no
// intermediate buffer. T must be the Go type of the dataset's dtype (as for
// ReadExact), and dst must hold at least as many elements as the selection
// (the elements land in C order at its start; the rest is left alone). It
// returns the selection's shape.
func ReadInto[T Number](ctx context.Context, d *Dataset, sel selection.Selection, dst []T) ([]int, error) {
	shape, err := readInto(ctx, d, sel, dst)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s[%s] into []%s: %w", d.path, sel, reflect.TypeFor[T](), err)
	}
	return shape, nil
}

func readInto[T Number](ctx context.Context, d *Dataset, sel selection.Selection, dst []T) ([]int, error) {
	if d.d.Err != nil {
		return nil, d.d.Err
	}
	kind, size := numberKind(reflect.TypeFor[T]())
	dt := d.d.DType
	if !(dt.Kind == kind || kind == zarrmeta.KindUint && dt.Kind == zarrmeta.KindBool) || dt.Size != size {
		return nil, fmt.Errorf("dtype %s is not %s's: %w", dt, reflect.TypeFor[T](), ErrType)
	}
	r, stored, err := d.resolve(sel)
	if err != nil {
		return nil, err
	}
	if len(dst) < r.Len() {
		return nil, fmt.Errorf("dst holds %d elements, the selection %d (shape %v): %w", len(dst), r.Len(), r.Shape(), ErrShort)
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return nil, err
	}
	if st.Array.Objects || st.Items != nil || st.Array.ItemSize != size {
		return nil, fmt.Errorf("elements of %s are not stored as %d-byte numbers: %w", dt, size, ErrType)
	}
	var buf []byte
	if r.Len() > 0 {
		buf = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), r.Len()*size)
	}
	opt := d.f.engineOptions()
	if err := engine.Read(ctx, st.Array, stored, buf, opt); err != nil {
		return nil, err
	}
	return r.Shape(), dt.SwapToNative(buf)
}

// resolve resolves sel against the dataset's shape, and the selection of the
// stored array (shape [1] for a scalar).
func (d *Dataset) resolve(sel selection.Selection) (r, stored *selection.Resolved, err error) {
	if r, err = sel.Resolve(d.d.Shape); err != nil {
		return nil, nil, err
	}
	stored = r
	if d.d.Scalar {
		if stored, err = (selection.Selection{}).Resolve([]int{1}); err != nil {
			return nil, nil, err
		}
	}
	return r, stored, nil
}
