package selection

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"slices"
)

// Plan is a [Resolved] selection laid over a grid of chunks. It is
// immutable and safe for concurrent use.
type Plan struct {
	chunks       []int
	axes         []planAxis
	chunkStrides []int // C-order strides of a full chunk
	outStrides   []int // C-order strides of the output, per array axis
	chunkLen     int
	count        int // touched chunks
}

// planAxis is one axis of a plan: the axis selection plus the chunks it
// touches.
type planAxis struct {
	axisSel
	chunk   int // chunk size on this axis
	touched int // number of chunks along this axis holding a selected position
	first   int // first touched chunk (progressions)
	dense   bool
	// For lists: entries sorted by chunk (stable in output order).
	groups []group
	src    []int // position inside the chunk
	dst    []int // position on the output axis
}

type group struct{ chunk, start, end int }

// Plan lays the selection over a grid of chunks of the given shape (one
// entry per array axis; edge chunks are assumed stored at full size, as Zarr
// and HDF5 do). Errors wrap [ErrInvalid] for a chunk shape that does not fit
// the array and [ErrTooLarge] for a chunk too large to address with an int.
func (r *Resolved) Plan(chunks []int) (*Plan, error) {
	nd := len(r.shape)
	if len(chunks) != nd {
		return nil, fmt.Errorf("%w: chunk shape %v has %d axes, the array has %d", ErrInvalid, chunks, len(chunks), nd)
	}
	p := &Plan{
		chunks:       append([]int{}, chunks...),
		axes:         make([]planAxis, nd),
		chunkStrides: make([]int, nd),
		outStrides:   make([]int, nd),
		chunkLen:     1,
		count:        1,
	}
	for d := nd - 1; d >= 0; d-- {
		c := chunks[d]
		if c <= 0 {
			return nil, fmt.Errorf("%w: chunk size %d for axis %d is not positive", ErrInvalid, c, d)
		}
		if c > math.MaxInt-r.shape[d] || p.chunkLen > math.MaxInt/c {
			return nil, fmt.Errorf("%w: chunk shape %v for array shape %v", ErrTooLarge, chunks, r.shape)
		}
		p.chunkStrides[d] = p.chunkLen
		p.chunkLen *= c
		if d == nd-1 {
			p.outStrides[d] = 1
		} else {
			p.outStrides[d] = p.outStrides[d+1] * r.axes[d+1].n
		}
		p.axes[d] = newPlanAxis(r.axes[d], c)
		p.count *= p.axes[d].touched // at most r.Len(), or 0 once an empty axis is reached
	}
	return p, nil
}

func newPlanAxis(a axisSel, chunk int) planAxis {
	pa := planAxis{axisSel: a, chunk: chunk}
	if a.list != nil {
		pa.groupList()
		return pa
	}
	if a.n == 0 {
		return pa
	}
	pa.first = a.lo / chunk
	last := (a.lo + (a.n-1)*a.step) / chunk
	pa.dense = a.n == 1 || a.step <= chunk // no chunk between first and last is skipped
	if pa.dense {
		pa.touched = last - pa.first + 1
	} else {
		pa.touched = a.n // every position in its own chunk
	}
	return pa
}

// groupList sorts the list entries by chunk, keeping output order within a
// chunk so that runs of consecutive positions stay mergeable.
func (pa *planAxis) groupList() {
	order := make([]int, len(pa.list))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(pa.list[x]/pa.chunk, pa.list[y]/pa.chunk)
	})
	pa.src = make([]int, len(order))
	pa.dst = order
	for i, j := range order {
		c := pa.list[j] / pa.chunk
		pa.src[i] = pa.list[j] - c*pa.chunk
		if len(pa.groups) == 0 || pa.groups[len(pa.groups)-1].chunk != c {
			pa.groups = append(pa.groups, group{chunk: c, start: i})
		}
		pa.groups[len(pa.groups)-1].end = i + 1
	}
	pa.touched = len(pa.groups)
}

// chunkAt returns the k-th touched chunk along the axis and the part of the
// selection it holds.
func (pa *planAxis) chunkAt(k int) (int, AxisPlan) {
	if pa.list != nil {
		g := pa.groups[k]
		return g.chunk, AxisPlan{n: g.end - g.start, src: pa.src[g.start:g.end], dst: pa.dst[g.start:g.end]}
	}
	c := pa.first + k
	if !pa.dense {
		c = (pa.lo + k*pa.step) / pa.chunk
	}
	begin := c * pa.chunk
	i0 := max(0, ceilDiv(begin-pa.lo, pa.step))
	i1 := min(pa.n, ceilDiv(begin+pa.chunk-pa.lo, pa.step))
	ap := AxisPlan{n: i1 - i0, src0: pa.lo + i0*pa.step - begin, srcStep: pa.step, dst0: i0, dstStep: 1}
	if pa.rev {
		ap.dst0, ap.dstStep = pa.n-1-i0, -1
	}
	return c, ap
}

// ceilDiv rounds a/b up for b > 0 without overflowing.
func ceilDiv(a, b int) int {
	q := a / b
	if a%b > 0 {
		q++
	}
	return q
}

// NumChunks returns the number of chunks that hold at least one selected
// element: the number of values Chunks yields.
func (p *Plan) NumChunks() int { return p.count }

// Ordered reports whether Chunks yields the chunks in increasing order of
// their Start: true unless an axis takes its chunks in descending output
// order (a negative step, an index list out of order across chunks).
func (p *Plan) Ordered() bool {
	for d := range p.axes {
		pa := &p.axes[d]
		if pa.list == nil {
			if pa.rev && pa.touched > 1 {
				return false
			}
			continue
		}
		prev := -1
		for _, g := range pa.groups {
			lo, _ := slicesMinMax(pa.dst[g.start:g.end])
			if lo < prev {
				return false
			}
			prev = lo
		}
	}
	return true
}

// ChunkShape returns the chunk shape of the grid. The caller owns the
// returned slice.
func (p *Plan) ChunkShape() []int { return append([]int{}, p.chunks...) }

// Chunks returns an iterator over the chunks holding at least one selected
// element, in C order of the chunk grid. Each [*ChunkPlan] is computed when
// it is reached and owned by the caller.
func (p *Plan) Chunks() iter.Seq[*ChunkPlan] {
	return func(yield func(*ChunkPlan) bool) {
		if p.count == 0 {
			return
		}
		k := make([]int, len(p.axes))
		for {
			if !yield(p.chunk(k)) {
				return
			}
			d := len(k) - 1
			for ; d >= 0; d-- {
				if k[d]++; k[d] < p.axes[d].touched {
					break
				}
				k[d] = 0
			}
			if d < 0 {
				return
			}
		}
	}
}

func (p *Plan) chunk(k []int) *ChunkPlan {
	cp := &ChunkPlan{Coords: make([]int, len(k)), Axes: make([]AxisPlan, len(k)), plan: p}
	for d := range k {
		cp.Coords[d], cp.Axes[d] = p.axes[d].chunkAt(k[d])
	}
	return cp
}

// NextCoords advances coords through a grid of counts[i] positions along
// each axis, in C order (the last axis fastest), and reports false, with
// coords back at all zeros, after the last position.
func NextCoords(coords, counts []int) bool {
	for i := len(coords) - 1; i >= 0; i-- {
		if coords[i]++; coords[i] < counts[i] {
			return true
		}
		coords[i] = 0
	}
	return false
}
