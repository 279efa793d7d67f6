package h5

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/lindigo/lindi/internal/readahead"
	"github.com/lindigo/lindi/selection"
)

// IterChunks iterates over the chunks that the selection sel of the dataset
// touches, as h5py's iter_chunks: for each, in C order of the chunk grid,
// the selection of the dataset's elements of sel that lie in that chunk, one
// slice (or index list) per dimension, to read when the caller wants it. A
// dataset that is not chunked is cut as its reads are (rows of about a
// megabyte). The iteration stops at the first error, which it yields.
func (d *Dataset) IterChunks(ctx context.Context, sel selection.Selection) iter.Seq2[selection.Selection, error] {
	return func(yield func(selection.Selection, error) bool) {
		plan, err := d.plan(ctx, sel)
		if err != nil {
			yield(nil, fmt.Errorf("h5: chunks of %s[%s]: %w", d.path, sel, err))
			return
		}
		grid := plan.ChunkShape()
		for cp := range plan.Chunks() {
			s := make(selection.Selection, len(cp.Axes))
			for j := range cp.Axes {
				a := &cp.Axes[j]
				idx := make([]int, a.Len())
				for i := range idx {
					idx[i] = cp.Coords[j]*grid[j] + a.Src(i)
				}
				s[j] = axisItem(sortedUnique(idx))
			}
			if !yield(s, nil) {
				return
			}
		}
	}
}

// plan resolves sel and plans it over the grid the engine reads the dataset in.
func (d *Dataset) plan(ctx context.Context, sel selection.Selection) (*selection.Plan, error) {
	if d.d.Err != nil {
		return nil, d.d.Err
	}
	if d.d.Scalar {
		return nil, fmt.Errorf("a scalar has no chunks: %w", ErrType)
	}
	r, err := sel.Resolve(d.d.Shape)
	if err != nil {
		return nil, err
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return nil, err
	}
	return r.Plan(st.Array.Chunks)
}

// sortedUnique sorts idx ascending and drops repeats, in place.
func sortedUnique(idx []int) []int {
	slices.Sort(idx)
	return slices.Compact(idx)
}

// Block is one block of rows of a dataset read by Blocks.
type Block struct {
	// Start is the index of the block's first row.
	Start int
	// Array holds rows [Start, Start+Array.Shape[0]).
	Array *Array
}

// Blocks reads the dataset in blocks of rows along its first dimension,
// rows at a time (the last block may be shorter), in order. While the caller
// works on one block, the next ahead blocks are read in parallel, so at most
// ahead+1 blocks are held at once. Stopping the loop early cancels the reads
// in flight and waits for them. The iteration stops at the first error,
// which it yields; rows must be positive, ahead not negative.
func (d *Dataset) Blocks(ctx context.Context, rows, ahead int) iter.Seq2[Block, error] {
	return func(yield func(Block, error) bool) {
		if rows <= 0 || ahead < 0 || len(d.d.Shape) == 0 {
			yield(Block{}, fmt.Errorf("%w: blocks of %s: %d rows with %d ahead of shape %v", ErrType, d.path, rows, ahead, d.d.Shape))
			return
		}
		readahead.Blocks(ctx, d.d.Shape[0], rows, ahead,
			func(ctx context.Context, first, stop int, _ *Array) (*Array, error) {
				return d.Read(ctx, selection.Selection{selection.Slice(first, stop, 1)})
			},
			func(first int, a *Array, err error) bool {
				return yield(Block{Start: first, Array: a}, err)
			})
	}
}
