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
// rows that hold references or variable-length members) are in Objects
// instead, as string, []byte, int64, float64, bool, Reference,
// RegionReference or []any (a
// compound row: its fields in order, of the same types; uint64 only for
// values above math.MaxInt64). Field picks one field of such rows.
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
	if pw, ok, err := sel.Split(d.d.Shape); err != nil {
		return nil, err
	} else if ok {
		return d.readPointwise(ctx, pw)
	}
	r, stored, err := d.resolve(sel)
	if err != nil {
		return nil, err
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return nil, err
	}
	out := &Array{DType: d.d.DType.Native(), Shape: r.Shape()}
	opt := d.f.engineOptions()
	if st.Array.Objects {
		if err := d.f.checkSize(r.Len(), objectSize); err != nil {
			return nil, err
		}
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

// engineOptions are the engine's options for a read of the file.
func (f *File) engineOptions() engine.Options {
	return engine.Options{Workers: f.workers, Fetcher: f.fetcher, Progress: f.progress}
}

// objectSize is what one element of an object array costs in the result.
const objectSize = 16

// readBytes reads the fixed-size stored elements of a selection.
func (d *Dataset) readBytes(ctx context.Context, st *driver.Stored, r *selection.Resolved, opt engine.Options) ([]byte, error) {
	is := st.Array.ItemSize
	if st.Items == nil && is != d.d.DType.Size {
		return nil, fmt.Errorf("%w: stored elements have %d bytes, dtype %s has %d", ErrFormat, is, d.d.DType, d.d.DType.Size)
	}
	size := max(is, d.d.DType.Size)
	if st.Items != nil {
		size = max(is, objectSize)
	}
	if err := d.f.checkSize(r.Len(), size); err != nil {
		return nil, err
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
// fields too) into References, and integers that fit into int64 (HDF5's
// unsigned members) into int64, as they read from JSON.
func references(v any) any {
	switch x := v.(type) {
	case driver.Ref:
		return Reference{Path: x.Path}
	case driver.RegionRef:
		return regionReference(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
	case []any:
		for i := range x {
			x[i] = references(x[i])
		}
	case []driver.Ref: // an array member of references
		out := make([]Reference, len(x))
		for i, r := range x {
			out[i] = Reference{Path: r.Path}
		}
		return out
	}
	return v
}
