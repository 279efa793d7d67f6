package h5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/selection"
)

// ChunkGroup is a block of whole chunks of a dataset and the part of a
// selection that lies in it (see Dataset.ChunkGroups).
type ChunkGroup struct {
	// Selection selects the group's elements in the dataset, each once and
	// in ascending order on every axis; Read reads it as any selection.
	Selection selection.Selection
	// Chunks is the number of stored chunks the group touches.
	Chunks int
	// StoredBytes is the size of those chunks as stored (compressed).
	StoredBytes int64
}

// ChunkGroups splits the selection sel of the dataset into groups of whole
// chunks of at most maxBytes stored bytes each, so that workers can read
// and reduce them apart, with no chunk read by two groups. A group is a box
// of the chunk grid: a run of chunk rows along the first axis, or where one
// row alone is larger than maxBytes, a run along the next axis within it, and
// so on; a single chunk larger than maxBytes is a group of its own. The
// groups together select the elements of sel (an index list's repeats once),
// in C order of the grid. Finding the stored sizes locates every chunk sel
// touches (for an HDF5 file, reading its chunk index), without reading the
// chunks. A dataset that is not chunked is grouped by the blocks its reads
// cut it into. An empty selection gives no groups; maxBytes must be
// positive; a scalar or pointwise selection is refused (ErrType, the
// selection package's errors).
func (d *Dataset) ChunkGroups(ctx context.Context, sel selection.Selection, maxBytes int64) ([]ChunkGroup, error) {
	groups, err := d.chunkGroups(ctx, sel, maxBytes)
	if err != nil {
		return nil, fmt.Errorf("h5: chunk groups of %s[%s]: %w", d.path, sel, err)
	}
	return groups, nil
}

func (d *Dataset) chunkGroups(ctx context.Context, sel selection.Selection, maxBytes int64) ([]ChunkGroup, error) {
	if maxBytes <= 0 {
		return nil, fmt.Errorf("%w: group size %d is not positive", ErrType, maxBytes)
	}
	plan, err := d.plan(ctx, sel)
	if err != nil {
		return nil, err
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return nil, err
	}
	cum, err := cumulativeSizes(ctx, st.Array, plan)
	if err != nil {
		return nil, err
	}
	if plan.NumChunks() == 0 {
		return nil, nil
	}
	s := &splitter{plan: plan, grid: plan.Grid(), cum: cum, max: maxBytes}
	s.strides = make([]int, len(s.grid))
	stride := 1
	for k := len(s.grid) - 1; k >= 0; k-- {
		s.strides[k] = stride
		stride *= s.grid[k]
	}
	if err := s.split(nil); err != nil {
		return nil, err
	}
	return s.out, nil
}

// cumulativeSizes locates the chunks of plan a batch at a time and returns
// the running sums of their stored sizes in the order Chunks yields them:
// cum[k] is the size of the first k chunks.
func cumulativeSizes(ctx context.Context, a *engine.Chunked, plan *selection.Plan) ([]int64, error) {
	cum := make([]int64, 1, plan.NumChunks()+1)
	batch := make([]*selection.ChunkPlan, 0, min(engine.BatchChunks, plan.NumChunks()))
	flush := func() error {
		sizes, err := engine.StoredSizes(ctx, a, batch)
		if err != nil {
			return err
		}
		for _, n := range sizes {
			cum = append(cum, cum[len(cum)-1]+n)
		}
		batch = batch[:0]
		return nil
	}
	for cp := range plan.Chunks() {
		if batch = append(batch, cp); len(batch) == engine.BatchChunks {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if len(batch) > 0 {
		return cum, flush()
	}
	return cum, nil
}

// splitter cuts the grid of touched chunks into boxes of at most max bytes.
type splitter struct {
	plan    *selection.Plan
	grid    []int   // touched chunks per axis
	strides []int   // C-order strides of grid
	cum     []int64 // running sums of the chunks' sizes, in C order of grid
	max     int64
	out     []ChunkGroup
}

// split groups the slabs along axis len(prefix) of the block whose leading
// axes are fixed at prefix. A slab (prefix, i, everything after) is a
// contiguous run of the C-order grid, so its size is a difference of cum.
func (s *splitter) split(prefix []int) error {
	k := len(prefix)
	base := 0
	for j, p := range prefix {
		base += p * s.strides[j]
	}
	size := func(i0, i1 int) int64 { return s.cum[base+i1*s.strides[k]] - s.cum[base+i0*s.strides[k]] }
	start := 0
	for i := 0; i <= s.grid[k]; i++ {
		if i < s.grid[k] && size(start, i+1) <= s.max {
			continue
		}
		if start < i {
			if err := s.emit(prefix, start, i, size(start, i)); err != nil {
				return err
			}
			start = i
		}
		if i == s.grid[k] || size(i, i+1) <= s.max {
			continue
		}
		// slab i alone is too large: cut it along the next axis, or, on
		// the last axis, it is one chunk, a group of its own.
		if k+1 < len(s.grid) {
			if err := s.split(append(prefix, i)); err != nil {
				return err
			}
		} else if err := s.emit(prefix, i, i+1, size(i, i+1)); err != nil {
			return err
		}
		start = i + 1
	}
	return nil
}

// emit adds the box prefix × [i0, i1) × the whole grid beyond.
func (s *splitter) emit(prefix []int, i0, i1 int, bytes int64) error {
	n := len(s.grid)
	lo, hi := make([]int, n), make([]int, n)
	chunks := 1
	for j := range n {
		switch {
		case j < len(prefix):
			lo[j], hi[j] = prefix[j], prefix[j]+1
		case j == len(prefix):
			lo[j], hi[j] = i0, i1
		default:
			hi[j] = s.grid[j]
		}
		chunks *= hi[j] - lo[j]
	}
	part, err := s.plan.Part(lo, hi)
	if err != nil {
		return err
	}
	s.out = append(s.out, ChunkGroup{Selection: part, Chunks: chunks, StoredBytes: bytes})
	return nil
}
