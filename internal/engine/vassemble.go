package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/lindigo/lindi/selection"
)

// virtualLocator locates the chunks of a virtual dataset: each is made,
// when decoded, from the dataset's mappings.
type virtualLocator struct {
	name        string
	shape, grid []int
	item        int
	fill        []byte
	open        VirtualOpener
	maps        []*virtualMapping

	mu     sync.Mutex
	arrays map[string]*Chunked // the sources opened, by file and dataset
}

func (l *virtualLocator) Locate(_ context.Context, coords []int) (Chunk, error) {
	if len(coords) != len(l.grid) {
		return Chunk{}, fmt.Errorf("%d chunk coordinates for %d dimensions", len(coords), len(l.grid))
	}
	lo, hi := make([]int, len(coords)), make([]int, len(coords))
	for i, c := range coords {
		lo[i] = c * l.grid[i]
		if c < 0 || lo[i] >= l.shape[i] {
			return Chunk{}, fmt.Errorf("chunk coordinates %v outside the virtual dataset", coords)
		}
		hi[i] = min(lo[i]+l.grid[i], l.shape[i])
	}
	return Chunk{Make: func(ctx context.Context, opt Options) ([]byte, error) {
		return l.assemble(ctx, lo, hi, opt)
	}}, nil
}

// assemble makes the chunk whose elements span [lo, hi): the fill value,
// then each mapping's elements in it.
func (l *virtualLocator) assemble(ctx context.Context, lo, hi []int, opt Options) ([]byte, error) {
	n := 1
	for _, g := range l.grid {
		n *= g
	}
	buf := getScratch(n * l.item)
	fillBytes(buf, l.fill)
	box := chunkBox{lo: lo, hi: hi, strides: cStrides(l.grid)}
	for i, m := range l.maps {
		if err := m.place(ctx, l, box, buf, opt); err != nil {
			putScratch(buf)
			return nil, fmt.Errorf("mapping %d (%s in %s): %w", i, m.dataset, m.file, err)
		}
	}
	return buf, nil
}

// fillBytes fills buf with the element fill (nil: zeros), doubling the
// filled prefix.
func fillBytes(buf, fill []byte) {
	if fill == nil {
		clear(buf)
		return
	}
	k := copy(buf, fill)
	for k < len(buf) {
		k += copy(buf[k:], buf[:k])
	}
}

// chunkBox is the part of a virtual dataset one chunk spans: [lo, hi),
// laid out with the chunk's C strides.
type chunkBox struct {
	lo, hi, strides []int
}

// place copies the mapping's elements that lie in box into buf.
func (m *virtualMapping) place(ctx context.Context, l *virtualLocator, box chunkBox, buf []byte, opt Options) error {
	if m.n == 0 {
		return nil
	}
	pa, pb := make([]int, len(m.virt)), make([]int, len(m.virt))
	for i := range m.virt {
		pa[i], pb[i] = m.virt[i].find(box.lo[i]), m.virt[i].find(box.hi[i])
		if pa[i] == pb[i] {
			return nil // the mapping misses the chunk
		}
	}
	src, err := m.source(ctx, l)
	if err != nil || src.arr == nil {
		return err // a missing source leaves the fill value
	}
	if src.align != nil {
		return m.placeAligned(ctx, src, box, pa, pb, buf, l.item, opt)
	}
	ks, dsts := m.pairs(box, pa, pb)
	defer putInts(ks)
	defer putInts(dsts)
	return src.copyTo(ctx, ks, dsts, buf, l.item, opt)
}

// ints recycles the rank and offset lists of chunk assembly.
var ints sync.Pool

// getInts returns an empty slice with room for n ints.
func getInts(n int) []int {
	if p, ok := ints.Get().(*[]int); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]int, 0, n)
}

// putInts gives s back for a later getInts.
func putInts(s []int) { ints.Put(&s) }

// placeAligned is place for a source whose selection has the virtual
// selection's shape but for axes of one element: the elements in the box
// are a box of the source selection, read at once, in the same C order.
func (m *virtualMapping) placeAligned(ctx context.Context, src *virtualSource, box chunkBox, pa, pb []int, buf []byte, is int, opt Options) error {
	sel := make(selection.Selection, len(src.axes))
	for j := range src.axes {
		lo, hi := 0, 1
		if i := src.align[j]; i >= 0 {
			lo, hi = pa[i], pb[i]
		}
		sel[j] = src.axes[j].item(lo, hi)
	}
	r, err := sel.Resolve(src.arr.Shape)
	if err != nil {
		return err
	}
	out := getScratch(r.Len() * is)
	defer putScratch(out)
	if err := Read(ctx, src.arr, r, out, opt); err != nil {
		return err
	}
	m.scatterBox(buf, out, box, pa, pb, is)
	return nil
}

// scatterBox copies the elements of the box pa to pb of the virtual
// selection's positions, in C order in from, to their places in the chunk
// buf: a run at a time along the last axis where its coordinates are
// consecutive there.
func (m *virtualMapping) scatterBox(buf, from []byte, box chunkBox, pa, pb []int, is int) {
	rank := len(m.virt)
	offs := make([]boxOffsets, rank)
	for i := range m.virt {
		offs[i] = m.virt[i].offsets(pa[i], pb[i], box.lo[i], box.strides[i])
	}
	run := 1
	if offs[rank-1].list == nil { // consecutive: chunk strides end in 1
		run = pb[rank-1] - pa[rank-1]
	}
	idx := make([]int, rank)
	for e := 0; e < len(from)/is; e += run {
		d := 0
		for i, j := range idx {
			d += offs[i].at(j)
		}
		copy(buf[d*is:(d+run)*is], from[e*is:(e+run)*is])
		for i := rank - 1; i >= 0; i-- {
			step := 1
			if i == rank-1 {
				step = run
			}
			if idx[i] += step; idx[i] < pb[i]-pa[i] {
				break
			}
			idx[i] = 0
		}
	}
}

// boxOffsets are the offsets in a chunk of an axis's positions in it:
// base + j*stride for the j-th, or list[j] where they are not consecutive.
type boxOffsets struct {
	base, stride int
	list         []int
}

func (o boxOffsets) at(j int) int {
	if o.list != nil {
		return o.list[j]
	}
	return o.base + j*o.stride
}

// offsets gives the offsets, in a chunk starting at lo with the given
// stride along this axis, of the positions pa to pb.
func (a *axis) offsets(pa, pb, lo, stride int) boxOffsets {
	first := a.at(pa)
	if a.at(pb-1)-first == pb-1-pa {
		return boxOffsets{base: (first - lo) * stride, stride: stride}
	}
	list := make([]int, pb-pa)
	for j := range list {
		list[j] = (a.at(pa+j) - lo) * stride
	}
	return boxOffsets{list: list}
}

// pairs lists the mapping's elements in the box, by their positions pa to
// pb along each axis of the virtual selection, in C order: ks holds each
// one's rank in the selection, dsts its offset in the chunk.
func (m *virtualMapping) pairs(box chunkBox, pa, pb []int) (ks, dsts []int) {
	rank, total := len(m.virt), 1
	kOff, dOff := make([][]int, rank), make([][]int, rank)
	counts := make([]int, rank)
	for i := range m.virt {
		counts[i] = m.virt[i].len()
	}
	vstrides := cStrides(counts)
	for i := range m.virt {
		kOff[i], dOff[i] = make([]int, 0, pb[i]-pa[i]), make([]int, 0, pb[i]-pa[i])
		o := m.virt[i].offsets(pa[i], pb[i], box.lo[i], box.strides[i])
		for p := pa[i]; p < pb[i]; p++ {
			kOff[i], dOff[i] = append(kOff[i], p*vstrides[i]), append(dOff[i], o.at(p-pa[i]))
		}
		total *= pb[i] - pa[i]
	}
	ks, dsts = getInts(total), getInts(total)
	idx := make([]int, rank)
	for range total {
		k, d := 0, 0
		for i, j := range idx {
			k, d = k+kOff[i][j], d+dOff[i][j]
		}
		ks, dsts = append(ks, k), append(dsts, d)
		for i := rank - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < len(kOff[i]) {
				break
			}
			idx[i] = 0
		}
	}
	return ks, dsts
}

// copyTo reads the source selection's elements of ranks ks and copies
// each to element dsts[i] of buf: in one read of the box of positions they
// span in the source selection, or, where that box holds many more
// elements than they are, in halves.
func (s *virtualSource) copyTo(ctx context.Context, ks, dsts []int, buf []byte, is int, opt Options) error {
	rank := len(s.axes)
	counts, lo, hi := make([]int, rank), make([]int, rank), make([]int, rank)
	for j := range s.axes {
		counts[j], lo[j], hi[j] = s.axes[j].len(), s.axes[j].len(), -1
	}
	pos := make([]int, rank)
	for _, k := range ks {
		unravel(k, counts, pos)
		for j, p := range pos {
			lo[j], hi[j] = min(lo[j], p), max(hi[j], p)
		}
	}
	shape, size := make([]int, rank), 1
	for j := range shape {
		shape[j] = hi[j] - lo[j] + 1
		size *= shape[j]
	}
	if n := len(ks); n > 1 && size > 4*n+4096 {
		if err := s.copyTo(ctx, ks[:n/2], dsts[:n/2], buf, is, opt); err != nil {
			return err
		}
		return s.copyTo(ctx, ks[n/2:], dsts[n/2:], buf, is, opt)
	}
	out, err := s.readBox(ctx, lo, hi, size*is, opt)
	if err != nil {
		return err
	}
	defer putScratch(out)
	strides := cStrides(shape)
	for e, k := range ks {
		unravel(k, counts, pos)
		off := 0
		for j, p := range pos {
			off += (p - lo[j]) * strides[j]
		}
		copy(buf[dsts[e]*is:(dsts[e]+1)*is], out[off*is:(off+1)*is])
	}
	return nil
}

// unravel sets pos to the C-order position of rank k in a product of
// axes of the given lengths.
func unravel(k int, counts, pos []int) {
	for j := len(counts) - 1; j >= 0; j-- {
		pos[j], k = k%counts[j], k/counts[j]
	}
}

// readBox reads the source elements at positions lo to hi (inclusive)
// along each axis, n bytes, in C order, into a scratch buffer the caller
// gives back with putScratch.
func (s *virtualSource) readBox(ctx context.Context, lo, hi []int, n int, opt Options) ([]byte, error) {
	sel := make(selection.Selection, len(lo))
	for j := range lo {
		sel[j] = s.axes[j].item(lo[j], hi[j]+1)
	}
	r, err := sel.Resolve(s.arr.Shape)
	if err != nil {
		return nil, err
	}
	out := getScratch(n)
	if err := Read(ctx, s.arr, r, out, opt); err != nil {
		putScratch(out)
		return nil, err
	}
	return out, nil
}
