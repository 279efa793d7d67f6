package selection

import (
	"fmt"
	"slices"
)

// Grid returns the number of touched chunks along each axis. Chunks yields
// the chunks of this grid in C order: the k-th chunk it yields is at the
// k-th position of the grid. The caller owns the returned slice.
func (p *Plan) Grid() []int {
	g := make([]int, len(p.axes))
	for d := range p.axes {
		g[d] = p.axes[d].touched
	}
	return g
}

// Part returns the selected elements that lie in a block of touched chunks,
// the positions [lo[d], hi[d]) of Grid along each axis d, as a selection of
// the array. An axis an integer index selects keeps its index; on every
// other axis the part lists each selected position once, in ascending order
// (an index list's order and repeats are not kept), as a slice when the
// positions are evenly spaced. Parts of disjoint blocks select disjoint
// elements and read disjoint chunks. Errors wrap [ErrInvalid] for a block
// that is empty or not inside the grid.
func (p *Plan) Part(lo, hi []int) (Selection, error) {
	if len(lo) != len(p.axes) || len(hi) != len(p.axes) {
		return nil, fmt.Errorf("%w: block %v–%v for a %d-d plan", ErrInvalid, lo, hi, len(p.axes))
	}
	s := make(Selection, len(p.axes))
	for d := range p.axes {
		pa := &p.axes[d]
		if lo[d] < 0 || lo[d] >= hi[d] || hi[d] > pa.touched {
			return nil, fmt.Errorf("%w: block [%d, %d) on axis %d of %d touched chunks", ErrInvalid, lo[d], hi[d], d, pa.touched)
		}
		s[d] = pa.part(lo[d], hi[d])
	}
	return s, nil
}

// part is the item selecting the positions of the touched chunks [lo, hi).
func (pa *planAxis) part(lo, hi int) Item {
	if pa.drop {
		return Index(pa.lo)
	}
	if pa.list != nil {
		g0, g1 := pa.groups[lo], pa.groups[hi-1]
		idx := make([]int, 0, g1.end-g0.start)
		for _, j := range pa.dst[g0.start:g1.end] {
			idx = append(idx, pa.list[j])
		}
		slices.Sort(idx)
		return ascending(slices.Compact(idx))
	}
	c0, _ := pa.chunkAt(lo)
	c1, _ := pa.chunkAt(hi - 1)
	i0 := max(0, ceilDiv(c0*pa.chunk-pa.lo, pa.step))
	i1 := min(pa.n, ceilDiv((c1+1)*pa.chunk-pa.lo, pa.step))
	return Slice(pa.lo+i0*pa.step, pa.lo+(i1-1)*pa.step+1, pa.step)
}

// ascending is the item for sorted distinct positions: a slice when they are
// evenly spaced, else a list.
func ascending(idx []int) Item {
	if len(idx) == 1 {
		return Slice(idx[0], idx[0]+1, 1)
	}
	for i := 2; i < len(idx); i++ {
		if idx[i]-idx[i-1] != idx[1]-idx[0] {
			return List(idx...)
		}
	}
	return Slice(idx[0], idx[len(idx)-1]+1, idx[1]-idx[0])
}

// Count returns how many positions the selection takes on axis d of the
// array (1 on an axis picked by an integer), the length of Positions(d)
// without making it.
func (r *Resolved) Count(d int) (int, error) {
	if d < 0 || d >= len(r.axes) {
		return 0, fmt.Errorf("%w: axis %d of a %d-d array", ErrInvalid, d, len(r.axes))
	}
	if a := r.axes[d]; a.list != nil {
		return len(a.list), nil
	}
	return r.axes[d].n, nil
}

// Positions returns the positions the selection takes on array axis d, in
// the order the output takes them (one position for an axis an integer
// index selects). Errors wrap [ErrInvalid] for an axis the array lacks.
func (r *Resolved) Positions(d int) ([]int, error) {
	if d < 0 || d >= len(r.axes) {
		return nil, fmt.Errorf("%w: axis %d of a %d-d array", ErrInvalid, d, len(r.axes))
	}
	a := r.axes[d]
	if a.list != nil {
		return slices.Clone(a.list), nil
	}
	idx := make([]int, a.n)
	for i := range idx {
		idx[i] = a.lo + i*a.step
	}
	if a.rev {
		slices.Reverse(idx)
	}
	return idx, nil
}
