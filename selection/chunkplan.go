package selection

// ChunkPlan is the part of a selection held by one chunk: which positions
// of the chunk are selected and where they land in the output.
type ChunkPlan struct {
	// Coords are the chunk's coordinates in the chunk grid.
	Coords []int
	// Axes describe, per array axis, the positions selected inside the
	// chunk and where they land on the output axis.
	Axes []AxisPlan
	plan *Plan
}

// AxisPlan is the selection on one axis of one chunk: Len positions, the
// i-th of which is Src(i) inside the chunk and lands at Dst(i) on the output
// axis (always 0 for an axis dropped by an integer index).
type AxisPlan struct {
	n             int
	src0, srcStep int
	dst0, dstStep int
	src, dst      []int // index lists; nil for progressions
}

// Len returns the number of positions selected on the axis in this chunk.
func (a *AxisPlan) Len() int { return a.n }

// Src returns the i-th selected position, counted from the chunk's start
// on this axis. It panics if i is not in [0, Len()).
func (a *AxisPlan) Src(i int) int {
	if a.src != nil {
		return a.src[i]
	}
	a.check(i)
	return a.src0 + i*a.srcStep
}

// Dst returns the position on the output axis where the i-th selected
// position lands. It panics if i is not in [0, Len()).
func (a *AxisPlan) Dst(i int) int {
	if a.dst != nil {
		return a.dst[i]
	}
	a.check(i)
	return a.dst0 + i*a.dstStep
}

func (a *AxisPlan) check(i int) {
	if i < 0 || i >= a.n {
		panic("selection: AxisPlan position out of range")
	}
}

// identity reports whether the axis selects the whole chunk extent c in
// order and fills an output axis of the same extent out in the same order.
func (a *AxisPlan) identity(c, out int) bool {
	if a.n != c || out != c {
		return false
	}
	if a.src == nil {
		return a.src0 == 0 && a.dst0 == 0 && (a.n == 1 || a.srcStep == 1 && a.dstStep == 1)
	}
	for i := range a.n {
		if a.src[i] != i || a.dst[i] != i {
			return false
		}
	}
	return true
}

// Len returns the number of output elements this chunk provides.
func (cp *ChunkPlan) Len() int {
	n := 1
	for i := range cp.Axes {
		n *= cp.Axes[i].n
	}
	return n
}

// Contiguous reports whether the chunk can be decoded straight into the
// output: the selection takes the whole chunk (not an edge chunk cropped by
// the array's end) in C order, and it lands as one contiguous run starting
// at element offset dst of the output.
func (cp *ChunkPlan) Contiguous() (dst int, ok bool) {
	n := cp.plan.chunkLen
	if cp.Len() != n {
		return 0, false
	}
	cp.Runs(func(s, d, m int) bool {
		dst, ok = d, s == 0 && m == n
		return false
	})
	if !ok {
		return 0, false
	}
	return dst, true
}

// Span returns the range [lo, hi) of element offsets inside the full chunk
// that the selection touches, so that a caller reading a chunk stored raw
// can fetch only those elements.
func (cp *ChunkPlan) Span() (lo, hi int) {
	for d := range cp.Axes {
		a := &cp.Axes[d]
		first, last := a.Src(0), a.Src(a.n-1)
		if a.src != nil {
			first, last = slicesMinMax(a.src)
		}
		lo += first * cp.plan.chunkStrides[d]
		hi += last * cp.plan.chunkStrides[d]
	}
	return lo, hi + 1
}

func slicesMinMax(s []int) (lo, hi int) {
	lo, hi = s[0], s[0]
	for _, v := range s[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// Start returns the smallest element offset in the output that the chunk
// writes: every output element before it comes from chunks whose Start is
// smaller.
func (cp *ChunkPlan) Start() int {
	s := 0
	for d := range cp.Axes {
		a := &cp.Axes[d]
		lo := a.Dst(0)
		switch {
		case a.dst != nil:
			lo, _ = slicesMinMax(a.dst)
		case a.dstStep < 0:
			lo = a.Dst(a.n - 1)
		}
		s += lo * cp.plan.outStrides[d]
	}
	return s
}
