package selection

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// This file holds a naive reference for numpy's indexing rules, written
// element by element and independently of Resolve and Plan, against which
// both are checked.

// refSlice lists the positions of a slice by walking it, following
// Python's slice.indices rules.
func refSlice(start, stop, step, size int) []int {
	out := []int{}
	if step > 0 {
		s, e := 0, size
		if start != None {
			s = refBound(start, size, 0, size)
		}
		if stop != None {
			e = refBound(stop, size, 0, size)
		}
		for i := s; i < e; {
			out = append(out, i)
			if step > e-i {
				break
			}
			i += step
		}
		return out
	}
	s, e := size-1, -1
	if start != None {
		s = refBound(start, size, -1, size-1)
	}
	if stop != None {
		e = refBound(stop, size, -1, size-1)
	}
	for i := s; i > e; {
		out = append(out, i)
		if -step > i-e {
			break
		}
		i += step
	}
	return out
}

func refBound(v, size, lo, hi int) int {
	if v < 0 {
		v += size
		if v < lo {
			v = lo
		}
		return v
	}
	if v > hi {
		v = hi
	}
	return v
}

// refAxes returns, per array axis, the selected positions in output order
// and whether the axis stays in the output.
func refAxes(sel Selection, shape []int) (axes [][]int, keep []bool, err error) {
	nell := 0
	for _, it := range sel {
		if it.kind == kindEllipsis {
			nell++
		}
	}
	if nell > 1 || len(sel)-nell > len(shape) {
		return nil, nil, ErrInvalid
	}
	var items []Item
	for _, it := range sel {
		if it.kind == kindEllipsis {
			for range len(shape) - (len(sel) - 1) {
				items = append(items, All())
			}
			continue
		}
		items = append(items, it)
	}
	for len(items) < len(shape) {
		items = append(items, All())
	}
	for d, it := range items {
		size := shape[d]
		var pos []int
		k := true
		switch it.kind {
		case kindAll:
			pos = refSlice(None, None, 1, size)
		case kindSlice:
			if it.step == 0 {
				return nil, nil, ErrInvalid
			}
			pos = refSlice(it.start, it.stop, it.step, size)
		case kindIndex:
			i := it.start
			if i < 0 {
				i += size
			}
			if i < 0 || i >= size {
				return nil, nil, ErrOutOfRange
			}
			pos, k = []int{i}, false
		case kindList:
			pos = []int{}
			for _, i := range it.list {
				if i < 0 {
					i += size
				}
				if i < 0 || i >= size {
					return nil, nil, ErrOutOfRange
				}
				pos = append(pos, i)
			}
		case kindMask:
			if len(it.mask) != size {
				return nil, nil, ErrInvalid
			}
			pos = []int{}
			for i, b := range it.mask {
				if b {
					pos = append(pos, i)
				}
			}
		}
		axes = append(axes, pos)
		keep = append(keep, k)
	}
	return axes, keep, nil
}

// refSelect returns the output shape and, for every output element in C
// order, the flat C-order offset of its source element in the array.
func refSelect(axes [][]int, keep []bool, shape []int) (out []int, src []int) {
	out = []int{}
	for d, pos := range axes {
		if keep[d] {
			out = append(out, len(pos))
		}
	}
	idx := make([]int, len(axes))
	for {
		ok := true
		for d := range axes {
			if len(axes[d]) == 0 {
				ok = false
			}
		}
		if !ok {
			return out, src
		}
		off := 0
		for d := range axes {
			off = off*shape[d] + axes[d][idx[d]]
		}
		src = append(src, off)
		d := len(idx) - 1
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < len(axes[d]) {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return out, src
		}
	}
}

// checkPlan plans r over chunks and checks, element by element, that the
// chunks come in C order, that every run stays inside its chunk and the
// array, and that the runs write every output element exactly once with the
// source element the reference picks.
func checkPlan(t testing.TB, r *Resolved, want []int, shape, chunks []int) {
	t.Helper()
	if err := verifyPlan(r, want, shape, chunks); err != nil {
		t.Fatalf("shape %v chunks %v: %v", shape, chunks, err)
	}
}

func verifyPlan(r *Resolved, want []int, shape, chunks []int) error {
	p, err := r.Plan(chunks)
	if err != nil {
		return err
	}
	nd := len(shape)
	chunkLen := 1
	for _, c := range chunks {
		chunkLen *= c
	}
	seen := make([]bool, len(want))
	var prev []int
	count := 0
	for cp := range p.Chunks() {
		count++
		if prev != nil && !coordsLess(prev, cp.Coords) {
			return fmt.Errorf("chunk %v after %v: not in C order", cp.Coords, prev)
		}
		prev = cp.Coords
		elems := 0
		var runErr error
		nruns := 0
		lo, hi := cp.Span()
		cp.Runs(func(src, dst, n int) bool {
			nruns++
			if n <= 0 || src < 0 || src+n > chunkLen || dst < 0 || dst+n > len(want) {
				runErr = fmt.Errorf("chunk %v: run (%d, %d, %d) out of range", cp.Coords, src, dst, n)
				return false
			}
			if src < lo || src+n > hi {
				runErr = fmt.Errorf("chunk %v: run (%d, %d, %d) outside span [%d, %d)", cp.Coords, src, dst, n, lo, hi)
				return false
			}
			for k := range n {
				if seen[dst+k] {
					runErr = fmt.Errorf("chunk %v: output element %d written twice", cp.Coords, dst+k)
					return false
				}
				seen[dst+k] = true
				off, rem := 0, src+k
				for d := range nd {
					stride := chunkLen
					for e := 0; e <= d; e++ {
						stride /= chunks[e]
					}
					g := cp.Coords[d]*chunks[d] + rem/stride
					rem %= stride
					if g >= shape[d] {
						runErr = fmt.Errorf("chunk %v: run reads outside the array on axis %d", cp.Coords, d)
						return false
					}
					off = off*shape[d] + g
				}
				if off != want[dst+k] {
					runErr = fmt.Errorf("chunk %v: output element %d takes array element %d, want %d", cp.Coords, dst+k, off, want[dst+k])
					return false
				}
			}
			elems += n
			return true
		})
		if runErr != nil {
			return runErr
		}
		if err := sameAsBlocks(cp); err != nil {
			return err
		}
		if elems != cp.Len() || elems == 0 {
			return fmt.Errorf("chunk %v: runs cover %d elements, Len is %d", cp.Coords, elems, cp.Len())
		}
		if dst, ok := cp.Contiguous(); ok && (nruns != 1 || elems != chunkLen || hi-lo != chunkLen || !seenFrom(seen, dst, chunkLen)) {
			return fmt.Errorf("chunk %v: Contiguous at %d, but %d runs of %d elements", cp.Coords, dst, nruns, elems)
		} else if !ok && nruns == 1 && elems == chunkLen {
			return fmt.Errorf("chunk %v: one run of the whole chunk, but not Contiguous", cp.Coords)
		}
	}
	if count != p.NumChunks() {
		return fmt.Errorf("Chunks yielded %d chunks, NumChunks says %d", count, p.NumChunks())
	}
	for i, ok := range seen {
		if !ok {
			return fmt.Errorf("output element %d never written", i)
		}
	}
	return nil
}

func seenFrom(seen []bool, dst, n int) bool {
	for i := dst; i < dst+n; i++ {
		if !seen[i] {
			return false
		}
	}
	return true
}

func coordsLess(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// checkAgainstRef resolves sel on shape and compares with the reference:
// same error class, same output shape, and a correct plan for each chunk
// shape.
func checkAgainstRef(t testing.TB, sel Selection, shape []int, chunkShapes ...[]int) {
	t.Helper()
	axes, keep, refErr := refAxes(sel, shape)
	r, err := sel.Resolve(shape)
	if refErr != nil {
		if !errors.Is(err, refErr) {
			t.Fatalf("%q on %v: error %v, want one wrapping %v", sel, shape, err, refErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q on %v: %v", sel, shape, err)
	}
	out, want := refSelect(axes, keep, shape)
	if !equalInts(r.Shape(), out) || r.Len() != len(want) {
		t.Fatalf("%q on %v: shape %v len %d, want %v len %d", sel, shape, r.Shape(), r.Len(), out, len(want))
	}
	for _, chunks := range chunkShapes {
		checkPlan(t, r, want, shape, chunks)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// sameAsBlocks checks that expanding Blocks gives exactly the runs of Runs.
func sameAsBlocks(cp *ChunkPlan) error {
	var runs, expanded [][3]int
	cp.Runs(func(src, dst, n int) bool {
		runs = append(runs, [3]int{src, dst, n})
		return true
	})
	var bad error
	cp.Blocks(func(b Block) bool {
		if b.N <= 0 || b.Count <= 0 {
			bad = fmt.Errorf("chunk %v: empty block %+v", cp.Coords, b)
			return false
		}
		for k := range b.Count {
			expanded = append(expanded, [3]int{b.Src + k*b.SrcStride, b.Dst + k*b.DstStride, b.N})
		}
		return true
	})
	if bad != nil {
		return bad
	}
	if !slices.Equal(runs, expanded) {
		return fmt.Errorf("chunk %v: Runs %v, Blocks expand to %v", cp.Coords, runs, expanded)
	}
	return nil
}
