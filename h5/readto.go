package h5

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/internal/hugemem"
	"github.com/lindigo/lindi/selection"
)

// ReadTo reads the selection sel as Read does and writes the result's bytes
// (what Read returns as Array.Data: C order, native byte order) to w while
// it reads: each piece goes out as soon as every chunk before it in the
// output is decoded, so that writing the result overlaps decoding it.
// Writes are made from the calling goroutine; a write error cancels the
// read. It returns the result's shape, which is Read's. Elements without a
// fixed-size form (variable-length strings, objects) fail with ErrType before anything is
// written.
func (d *Dataset) ReadTo(ctx context.Context, sel selection.Selection, w io.Writer) ([]int, error) {
	shape, err := d.readTo(ctx, sel, w)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s[%s]: %w", d.path, sel, err)
	}
	return shape, nil
}

func (d *Dataset) readTo(ctx context.Context, sel selection.Selection, w io.Writer) ([]int, error) {
	st, direct, err := d.direct(ctx, sel)
	if err != nil {
		return nil, err
	}
	if !direct {
		// Elements that need more than decoding, or a pointwise read:
		// read the whole result, then write it.
		a, err := d.read(ctx, sel)
		if err != nil {
			return nil, err
		}
		if a.Data == nil {
			return nil, fmt.Errorf("%s elements have no fixed-size form: %w", a.DType, ErrType)
		}
		if _, err := w.Write(a.Data); err != nil {
			return nil, err
		}
		return a.Shape, nil
	}
	r, stored, err := d.resolve(sel)
	if err != nil {
		return nil, err
	}
	is := st.Array.ItemSize
	if is != d.d.DType.Size {
		return nil, fmt.Errorf("%w: stored elements have %d bytes, dtype %s has %d", ErrFormat, is, d.d.DType, d.d.DType.Size)
	}
	if err := d.f.checkSize(r.Len(), is); err != nil {
		return nil, err
	}
	return r.Shape(), d.stream(ctx, st.Array, stored, w)
}

// direct returns the dataset's stored array and whether the engine alone
// reads sel from it: a selection that is not pointwise, of elements that
// need nothing after decoding (no object codec, no driver items). Other
// reads go through Read.
func (d *Dataset) direct(ctx context.Context, sel selection.Selection) (*driver.Stored, bool, error) {
	if d.d.Err != nil {
		return nil, false, d.d.Err
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return nil, false, err
	}
	_, pointwise, err := sel.Split(d.d.Shape)
	if err != nil {
		return nil, false, err
	}
	return st, !pointwise && !st.Array.Objects && st.Items == nil, nil
}

// stream runs the engine's read of r in a goroutine and writes each prefix
// of the output it reports final.
func (d *Dataset) stream(ctx context.Context, a *engine.Chunked, r *selection.Resolved, w io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	is := a.ItemSize
	raw := hugemem.Alloc(r.Len() * is)
	var ready atomic.Int64
	signal := make(chan struct{}, 1)
	opt := d.f.engineOptions()
	opt.Ready = func(n int) {
		ready.Store(int64(n))
		select {
		case signal <- struct{}{}:
		default:
		}
	}
	done := make(chan error, 1)
	go func() { done <- engine.Read(ctx, a, r, raw, opt) }()
	written := 0
	flush := func() error {
		n := int(ready.Load()) * is
		if n <= written {
			return nil
		}
		piece := raw[written:n]
		if err := d.d.DType.SwapToNative(piece); err != nil {
			return err
		}
		written = n
		_, err := w.Write(piece)
		return err
	}
	for {
		select {
		case <-signal:
			if err := flush(); err != nil {
				cancel()
				<-done
				return err
			}
		case err := <-done:
			if err != nil {
				return err
			}
			return flush()
		}
	}
}
