package engine

import (
	"context"
	"fmt"
	"slices"

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
	buf := make([]byte, n*l.item)
	if l.fill != nil {
		for i := 0; i < len(buf); i += l.item {
			copy(buf[i:i+l.item], l.fill)
		}
	}
	box := chunkBox{lo: lo, hi: hi, strides: cStrides(l.grid)}
	for i, m := range l.maps {
		if err := m.place(ctx, l, box, buf, opt); err != nil {
			return nil, fmt.Errorf("mapping %d (%s in %s): %w", i, m.dataset, m.file, err)
		}
	}
	return buf, nil
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
	ks, dsts := m.pairs(box, pa, pb)
	return src.copyTo(ctx, ks, dsts, buf, l.item, opt)
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
		for p := pa[i]; p < pb[i]; p++ {
			kOff[i] = append(kOff[i], p*vstrides[i])
			dOff[i] = append(dOff[i], (m.virt[i].at(p)-box.lo[i])*box.strides[i])
		}
		total *= pb[i] - pa[i]
	}
	ks, dsts = make([]int, 0, total), make([]int, 0, total)
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
// each to element dsts[i] of buf: in one read of the product of the
// coordinates they need along each axis, or, where that product holds
// many more elements than they do, in halves.
func (s *virtualSource) copyTo(ctx context.Context, ks, dsts []int, buf []byte, is int, opt Options) error {
	counts := make([]int, len(s.axes))
	for i := range s.axes {
		counts[i] = s.axes[i].len()
	}
	pos := make([][]int, len(s.axes)) // pos[j][e]: position of element e along axis j
	for j := range pos {
		pos[j] = make([]int, len(ks))
	}
	for e, k := range ks {
		for j := len(counts) - 1; j >= 0; j-- {
			pos[j][e], k = k%counts[j], k/counts[j]
		}
	}
	return s.copyPart(ctx, pos, dsts, buf, is, opt)
}

// copyPart is copyTo for the elements whose positions pos holds.
func (s *virtualSource) copyPart(ctx context.Context, pos [][]int, dsts []int, buf []byte, is int, opt Options) error {
	uniq := make([][]int, len(pos))
	product := 1
	for j, p := range pos {
		uniq[j] = slices.Compact(slices.Sorted(slices.Values(p)))
		product *= len(uniq[j])
	}
	if n := len(dsts); n > 1 && product > 4*n+4096 {
		half := func(lo, hi int) [][]int {
			out := make([][]int, len(pos))
			for j := range pos {
				out[j] = pos[j][lo:hi]
			}
			return out
		}
		if err := s.copyPart(ctx, half(0, n/2), dsts[:n/2], buf, is, opt); err != nil {
			return err
		}
		return s.copyPart(ctx, half(n/2, n), dsts[n/2:], buf, is, opt)
	}
	out, err := s.readProduct(ctx, uniq, product*is, opt)
	if err != nil {
		return err
	}
	strides := cStrides(lens(uniq))
	for e, d := range dsts {
		off := 0
		for j := range pos {
			i, _ := slices.BinarySearch(uniq[j], pos[j][e])
			off += i * strides[j]
		}
		copy(buf[d*is:(d+1)*is], out[off*is:(off+1)*is])
	}
	return nil
}

// readProduct reads the source elements at the given positions along each
// axis (sorted), n bytes, in C order.
func (s *virtualSource) readProduct(ctx context.Context, uniq [][]int, n int, opt Options) ([]byte, error) {
	sel := make(selection.Selection, len(uniq))
	for j, u := range uniq {
		coords := make([]int, len(u))
		for i, p := range u {
			coords[i] = s.axes[j].at(p)
		}
		sel[j] = selection.List(coords...)
	}
	r, err := sel.Resolve(s.arr.Shape)
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	return out, Read(ctx, s.arr, r, out, opt)
}

// lens are the lengths of the slices.
func lens(s [][]int) []int {
	out := make([]int, len(s))
	for i := range s {
		out[i] = len(s[i])
	}
	return out
}
