package selection

// Runs calls yield for each run of elements to copy from the chunk to the
// output, until yield returns false: the n elements starting at element
// offset src of the decoded chunk (C order over the full chunk shape) go to
// the n elements starting at element offset dst of the C-order output. Runs
// are merged across every trailing axis that is contiguous in both the chunk
// and the output, and come in C order of the chunk's selected positions.
// Together, the runs of all chunks of a plan cover every output element
// exactly once.
func (cp *ChunkPlan) Runs(yield func(src, dst, n int) bool) {
	cp.Blocks(func(b Block) bool {
		src, dst := b.Src, b.Dst
		for range b.Count {
			if !yield(src, dst, b.N) {
				return false
			}
			src += b.SrcStride
			dst += b.DstStride
		}
		return true
	})
}

// Block is a group of equally spaced runs: Count runs of N elements, the
// k-th copying the elements at chunk offset Src+k*SrcStride to output offset
// Dst+k*DstStride. A strided selection such as "::4" or a column ":, 5" gives
// one Block per row or per chunk where Runs gives one run per element.
type Block struct {
	Src, Dst             int
	N, Count             int
	SrcStride, DstStride int
}

// Blocks calls yield for the runs of [ChunkPlan.Runs], grouped into
// Blocks of equally spaced runs, until yield returns false. Expanding the
// blocks in order gives exactly the runs of Runs.
func (cp *ChunkPlan) Blocks(yield func(Block) bool) {
	p := cp.plan
	t, block := len(cp.Axes)-1, 1
	for ; t >= 0 && cp.Axes[t].identity(p.chunks[t], p.axes[t].n); t-- {
		block *= p.chunks[t]
	}
	if t < 0 {
		yield(Block{N: block, Count: 1}) // the chunk is the whole output
		return
	}
	w := walker{cp: cp, t: t, g: t, block: block, yield: func(b Block) bool {
		if b.Count == 1 {
			b.SrcStride, b.DstStride = 0, 0
		}
		return yield(b)
	}}
	if last := &cp.Axes[t]; last.single() && t > 0 && cp.Axes[t-1].src == nil {
		w.g = t - 1 // group the one run of axis t across the positions of axis t-1
	}
	w.walk(0, 0, 0)
}

// single reports whether the axis yields one run: a progression of
// consecutive positions on both sides.
func (a *AxisPlan) single() bool {
	return a.src == nil && (a.n == 1 || a.srcStep == 1 && a.dstStep == 1)
}

// walker emits the blocks of a chunk: axes before g are iterated, axis g
// groups runs into blocks, and each position of axis t spans block elements
// in both chunk and output.
type walker struct {
	cp    *ChunkPlan
	t, g  int
	block int
	yield func(Block) bool
}

func (w *walker) walk(d, src, dst int) bool {
	if d == w.g {
		return w.emit(src, dst)
	}
	a := &w.cp.Axes[d]
	ss, ds := w.cp.plan.chunkStrides[d], w.cp.plan.outStrides[d]
	if a.src != nil {
		for i := range a.n {
			if !w.walk(d+1, src+a.src[i]*ss, dst+a.dst[i]*ds) {
				return false
			}
		}
		return true
	}
	src, dst = src+a.src0*ss, dst+a.dst0*ds
	for range a.n {
		if !w.walk(d+1, src, dst) {
			return false
		}
		src += a.srcStep * ss
		dst += a.dstStep * ds
	}
	return true
}

func (w *walker) emit(src, dst int) bool {
	p := w.cp.plan
	a := &w.cp.Axes[w.t]
	ss, ds := p.chunkStrides[w.t], p.outStrides[w.t]
	if w.g < w.t { // axis t is a single run, repeated along axis g
		src, dst = src+a.src0*ss, dst+a.dst0*ds
		g := &w.cp.Axes[w.g]
		gs, gd := p.chunkStrides[w.g], p.outStrides[w.g]
		return w.yield(Block{
			Src: src + g.src0*gs, Dst: dst + g.dst0*gd, N: a.n * w.block, Count: g.n,
			SrcStride: g.srcStep * gs, DstStride: g.dstStep * gd,
		})
	}
	if a.src == nil {
		b := Block{Src: src + a.src0*ss, Dst: dst + a.dst0*ds, N: w.block, Count: a.n,
			SrcStride: a.srcStep * ss, DstStride: a.dstStep * ds}
		if a.single() {
			b.N, b.Count = a.n*w.block, 1
		}
		return w.yield(b)
	}
	for i := 0; i < a.n; {
		j := i + 1
		for j < a.n && a.src[j] == a.src[i]+j-i && a.dst[j] == a.dst[i]+j-i {
			j++
		}
		if !w.yield(Block{Src: src + a.src[i]*ss, Dst: dst + a.dst[i]*ds, N: (j - i) * w.block, Count: 1}) {
			return false
		}
		i = j
	}
	return true
}
