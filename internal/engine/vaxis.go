package engine

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/selection"
)

// axis is a selection along one dimension of a virtual dataset's mapping:
// sorted, disjoint runs of coordinates. A hyperslab selection, regular or of
// one block, and the "all" selection are a product of such axes, whose
// elements HDF5 takes in C order.
type axis struct {
	runs []span
	ends []int // ends[i]: the positions in runs[:i+1]
}

// span is n coordinates from lo on.
type span struct{ lo, n int }

// maxAxisRuns bounds the blocks of a regular hyperslab, summed over its
// dimensions.
const maxAxisRuns = 1 << 22

// add appends the run of n coordinates from lo, which is not before the
// last run's start, merging it with the last run where they touch.
func (a *axis) add(lo, n int) {
	if k := len(a.runs) - 1; k >= 0 && lo <= a.runs[k].lo+a.runs[k].n {
		end := max(a.runs[k].lo+a.runs[k].n, lo+n)
		a.ends[k] += end - a.runs[k].lo - a.runs[k].n
		a.runs[k].n = end - a.runs[k].lo
		return
	}
	a.runs = append(a.runs, span{lo, n})
	a.ends = append(a.ends, a.len()+n)
}

// len is the number of coordinates selected.
func (a *axis) len() int {
	if len(a.ends) == 0 {
		return 0
	}
	return a.ends[len(a.ends)-1]
}

// at is the coordinate at position p, 0 ≤ p < len.
func (a *axis) at(p int) int {
	i := sort.SearchInts(a.ends, p+1)
	return a.runs[i].lo + p - (a.ends[i] - a.runs[i].n)
}

// find is the position of the first coordinate at or after c.
func (a *axis) find(c int) int {
	i := sort.Search(len(a.runs), func(i int) bool { return a.runs[i].lo+a.runs[i].n > c })
	if i == len(a.runs) {
		return a.len()
	}
	start := a.ends[i] - a.runs[i].n
	return start + max(c-a.runs[i].lo, 0)
}

// selectionAxes turns a mapping's selection in a dataset of shape dims into
// axes. It fails with hdf5.ErrUnsupported for the selections HDF5 reads
// but this package does not (points, hyperslabs of several irregular
// blocks, unlimited counts) and with hdf5.ErrFormat for one outside dims.
func selectionAxes(s hdf5.Selection, dims []int) ([]axis, error) {
	out := make([]axis, len(dims))
	switch {
	case s.Kind == hdf5.RegionNone:
		return out, nil
	case s.Kind == hdf5.RegionAll:
		for i, n := range dims {
			out[i].add(0, n)
		}
		return out, nil
	case s.Kind == hdf5.RegionPoints:
		return nil, fmt.Errorf("%w: a point selection", hdf5.ErrUnsupported)
	case s.Regular != nil:
		return regularAxes(s.Regular, dims)
	}
	return blockAxes(s.Blocks, dims)
}

// regularAxes turns a regular hyperslab into axes.
func regularAxes(h *hdf5.Hyperslab, dims []int) ([]axis, error) {
	if len(h.Start) != len(dims) {
		return nil, fmt.Errorf("%w: a selection of rank %d in %d dimensions", hdf5.ErrFormat, len(h.Start), len(dims))
	}
	out := make([]axis, len(dims))
	runs := uint64(0)
	for i, n := range dims {
		start, stride, count, block := h.Start[i], h.Stride[i], h.Count[i], h.Block[i]
		if count == hdf5.Unlimited || block == hdf5.Unlimited {
			return nil, fmt.Errorf("%w: an unlimited hyperslab (a mapping that grows with its source)", hdf5.ErrUnsupported)
		}
		if runs += min(count, maxAxisRuns+1); runs > maxAxisRuns {
			return nil, fmt.Errorf("%w: a hyperslab of more than %d blocks along its dimensions", hdf5.ErrUnsupported, maxAxisRuns)
		}
		if end, ok := hyperEnd(start, stride, count, block); !ok || end > uint64(n) {
			return nil, fmt.Errorf("%w: hyperslab start %d stride %d count %d block %d outside dimension %d of %d", hdf5.ErrFormat, start, stride, count, block, i, n)
		}
		for k := range int(count) {
			out[i].add(int(start)+k*int(stride), int(block))
		}
	}
	return out, nil
}

// hyperEnd is start + (count-1)*stride + block, and whether it fits 64 bits.
func hyperEnd(start, stride, count, block uint64) (uint64, bool) {
	hi, lo := bits.Mul64(count-1, stride)
	end, c1 := bits.Add64(lo, start, 0)
	end, c2 := bits.Add64(end, block, 0)
	return end, hi == 0 && c1 == 0 && c2 == 0
}

// numElements is the number of elements a product of axes selects; ok is
// false when it does not fit an int.
func numElements(axes []axis) (n int, ok bool) {
	n = 1
	for i := range axes {
		hi, lo := bits.Mul64(uint64(n), uint64(axes[i].len()))
		if hi != 0 || lo > math.MaxInt {
			return 0, false
		}
		n = int(lo)
	}
	return n, true
}

// cStrides are the C-order strides of the given shape, in elements.
func cStrides(shape []int) []int {
	s := make([]int, len(shape))
	k := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = k
		k *= shape[i]
	}
	return s
}

// maxBlockCells bounds the cells blockAxes divides a hyperslab's span into.
const maxBlockCells = 1 << 22

// blockAxes turns a hyperslab given as blocks into axes, when the blocks
// tile a product of axes (the blocks of a strided slice, say); other
// unions of blocks are unsupported. The span is cut along every block
// boundary into cells: each block covers whole cells, none twice, and
// every cell of the product of the covered segments must be covered.
func blockAxes(blocks [][2][]uint64, dims []int) ([]axis, error) {
	bounds, err := blockBounds(blocks, dims)
	if err != nil {
		return nil, err
	}
	segs, cells := make([]int, len(dims)), 1
	for i := range bounds {
		segs[i] = len(bounds[i]) - 1
		if cells *= max(segs[i], 1); cells > maxBlockCells {
			return nil, fmt.Errorf("%w: a hyperslab of %d blocks in more than %d cells", hdf5.ErrUnsupported, len(blocks), maxBlockCells)
		}
	}
	covered, used := make([]bool, cells), make([][]bool, len(dims))
	for i := range used {
		used[i] = make([]bool, max(segs[i], 0))
	}
	strides := cStrides(segs)
	for _, b := range blocks {
		lo, hi := make([]int, len(dims)), make([]int, len(dims))
		for i := range dims {
			lo[i], _ = slices.BinarySearch(bounds[i], int(b[0][i]))
			hi[i], _ = slices.BinarySearch(bounds[i], int(b[1][i])+1)
			for s := lo[i]; s < hi[i]; s++ {
				used[i][s] = true
			}
		}
		if !eachCell(lo, hi, strides, func(c int) bool { ok := !covered[c]; covered[c] = true; return ok }) {
			return nil, fmt.Errorf("%w: overlapping hyperslab blocks", hdf5.ErrFormat)
		}
	}
	return productAxes(bounds, used, covered, strides)
}

// blockBounds checks the blocks against dims and returns, per dimension,
// the sorted boundaries of the blocks along it.
func blockBounds(blocks [][2][]uint64, dims []int) ([][]int, error) {
	bounds := make([][]int, len(dims))
	for _, b := range blocks {
		if len(b[0]) != len(dims) || len(b[1]) != len(dims) {
			return nil, fmt.Errorf("%w: a selection of rank %d in %d dimensions", hdf5.ErrFormat, len(b[0]), len(dims))
		}
		for i, n := range dims {
			if b[0][i] > b[1][i] || b[1][i] >= uint64(n) {
				return nil, fmt.Errorf("%w: hyperslab block %v–%v outside dimension %d of %d", hdf5.ErrFormat, b[0], b[1], i, n)
			}
			bounds[i] = append(bounds[i], int(b[0][i]), int(b[1][i])+1)
		}
	}
	for i := range bounds {
		slices.Sort(bounds[i])
		bounds[i] = slices.Compact(bounds[i])
	}
	return bounds, nil
}

// productAxes returns the axes of the used segments once every cell of
// their product is covered.
func productAxes(bounds [][]int, used [][]bool, covered []bool, strides []int) ([]axis, error) {
	lo, hi := make([]int, len(bounds)), make([]int, len(bounds))
	for i := range bounds {
		hi[i] = len(used[i])
	}
	whole := eachCell(lo, hi, strides, func(c int) bool {
		for i, s := range strides {
			if !used[i][c/s%max(len(used[i]), 1)] {
				return true // a cell outside the product
			}
		}
		return covered[c]
	})
	if !whole {
		return nil, fmt.Errorf("%w: hyperslab blocks that are not a product of ranges along each dimension", hdf5.ErrUnsupported)
	}
	out := make([]axis, len(bounds))
	for i := range bounds {
		for s, u := range used[i] {
			if u {
				out[i].add(bounds[i][s], bounds[i][s+1]-bounds[i][s])
			}
		}
	}
	return out, nil
}

// eachCell calls f with the index of each cell of the box [lo, hi) of a
// grid with the given C strides, until f returns false; it reports whether
// f never did.
func eachCell(lo, hi, strides []int, f func(int) bool) bool {
	idx := slices.Clone(lo)
	for i := range lo {
		if lo[i] >= hi[i] {
			return true
		}
	}
	for {
		c := 0
		for i, v := range idx {
			c += v * strides[i]
		}
		if !f(c) {
			return false
		}
		i := len(idx) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < hi[i] {
				break
			}
			idx[i] = lo[i]
		}
		if i < 0 {
			return true
		}
	}
}

// alignAxes maps each source axis to the virtual axis it corresponds to,
// -1 for an axis of one element, when the selections have one shape once
// such axes are dropped; nil when they do not.
func alignAxes(virt, src []axis) []int {
	long := func(axes []axis) []int {
		var out []int
		for i := range axes {
			if axes[i].len() != 1 {
				out = append(out, i)
			}
		}
		return out
	}
	vi, sj := long(virt), long(src)
	if len(vi) != len(sj) {
		return nil
	}
	align := make([]int, len(src))
	for j := range align {
		align[j] = -1
	}
	for k := range vi {
		if virt[vi[k]].len() != src[sj[k]].len() {
			return nil
		}
		align[sj[k]] = vi[k]
	}
	return align
}

// item is the selection of the coordinates at positions lo to hi: a slice
// where they are consecutive, else a list.
func (a *axis) item(lo, hi int) selection.Item {
	first := a.at(lo)
	if a.at(hi-1)-first == hi-1-lo {
		return selection.Slice(first, first+hi-lo, 1)
	}
	coords := make([]int, hi-lo)
	for p := range coords {
		coords[p] = a.at(lo + p)
	}
	return selection.List(coords...)
}
