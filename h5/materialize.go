package h5

// Materialize: a dataset Python lindi links to its HDF5 file made an
// ordinary one, its chunks referenced in place.

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"slices"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/selection"
)

// Materialize makes d, a dataset Python lindi links to its HDF5 file
// (_EXTERNAL_ARRAY_LINK: the datasets of more than 1000 chunks that lindi
// index does not list) into an ordinary dataset of this file, so that it
// can be written: its chunks become refs into the HDF5 file, none copied,
// except those HDF5 stored with some filters skipped, which are decoded
// and encoded again, and those of a virtual dataset, made from its sources,
// whose values are written. It does nothing to a dataset without the link. Do not
// read d while it runs.
func (d *Dataset) Materialize(ctx context.Context) error {
	if err := d.materialize(ctx); err != nil {
		return fmt.Errorf("h5: materialize %s: %w", d.path, err)
	}
	return nil
}

func (d *Dataset) materialize(ctx context.Context) error {
	ed, err := d.f.editor()
	if err != nil {
		return err
	}
	if d.d.Err != nil {
		return d.d.Err
	}
	if ed.Writable(ctx, d.path) == nil {
		return nil
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return err
	}
	a := st.Array
	if !slices.Equal(a.Chunks, d.d.Chunks) || a.Objects {
		return fmt.Errorf("the HDF5 dataset's chunks %v are not the LINDI dataset's %v", a.Chunks, d.d.Chunks)
	}
	var again [][]int // chunks to decode and encode again
	for coords := range chunkGrid(a.Shape, a.Chunks) {
		c, err := a.Locator.Locate(ctx, coords)
		if err != nil {
			return err
		}
		var ref json.RawMessage
		switch {
		case c.Missing:
			continue
		case c.Pipeline != nil, c.Make != nil:
			// Filters skipped, or a virtual dataset's chunk, made from
			// its sources: its values are written.
			again = append(again, coords)
			continue
		case c.Src == nil:
			ref = driver.InlineRef(c.Data)
		default:
			if ref, err = rangeRef(c.Src.Name(), c.Off, c.Len); err != nil {
				return err
			}
		}
		if err := ed.PutRef(ctx, d.path, coords, ref); err != nil {
			return err
		}
	}
	nd, err := ed.Unlink(ctx, d.path)
	if err != nil {
		return err
	}
	old := d.d
	d.d = nd
	for _, coords := range again {
		if err := d.recode(ctx, old, coords); err != nil {
			return err
		}
	}
	return nil
}

// rangeRef is the ref [url, off, n], a local path made absolute.
func rangeRef(url string, off, n int64) (json.RawMessage, error) {
	if !isURL(url) {
		abs, err := filepath.Abs(url)
		if err != nil {
			return nil, err
		}
		url = abs
	}
	return json.Marshal([]any{url, off, n})
}

// chunkGrid yields the coordinates of every chunk of an array.
func chunkGrid(shape, chunks []int) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		grid := make([]int, len(shape))
		for i := range shape {
			if shape[i] == 0 {
				return
			}
			grid[i] = (shape[i] + chunks[i] - 1) / chunks[i]
		}
		k := make([]int, len(shape))
		for more := true; more; more = selection.NextCoords(k, grid) {
			if !yield(slices.Clone(k)) {
				return
			}
		}
	}
}

// recode reads the chunk at coords from old, the dataset's storage before
// it was materialized, and writes it into d.
func (d *Dataset) recode(ctx context.Context, old *driver.Dataset, coords []int) error {
	sel := make(selection.Selection, len(coords))
	for i, c := range coords {
		lo := c * d.d.Chunks[i]
		sel[i] = selection.Slice(lo, min(lo+d.d.Chunks[i], d.d.Shape[i]), 1)
	}
	st, err := old.Storage.Stored(ctx)
	if err != nil {
		return err
	}
	r, err := sel.Resolve(d.d.Shape)
	if err != nil {
		return err
	}
	raw := make([]byte, r.Len()*st.Array.ItemSize)
	if err := engine.Read(ctx, st.Array, r, raw, d.f.engineOptions()); err != nil {
		return err
	}
	return d.writeRaw(ctx, sel, raw)
}
