package engine

import (
	"fmt"
	"sync"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/selection"
)

// byteSink decodes fixed-size chunks into a byte output.
type byteSink struct {
	a   *Chunked
	out []byte
}

// scratch recycles chunk-sized decode buffers across reads.
var scratch sync.Pool

// getScratch returns a buffer of n bytes, recycled when one is big enough.
func getScratch(n int) []byte {
	if p, ok := scratch.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]byte, n)
}

// putScratch gives b back for a later getScratch.
func putScratch(b []byte) { scratch.Put(&b) }

// do decodes j and scatters its selected elements into the output.
func (s *byteSink) do(j job) error {
	a, is := s.a, s.a.ItemSize
	if j.chunk.Missing {
		fillRuns(j.plan, s.out, a.Fill, is)
		return nil
	}
	if j.part {
		raw, pooled, err := a.partBytes(j)
		if err != nil {
			return err
		}
		if pooled {
			defer putScratch(raw)
		}
		if j.home != nil && len(raw) > 0 && &raw[0] == &j.home[0] {
			return nil // the fetcher read the part into place
		}
		scatterFrom(j.plan, s.out, raw, j.lo, is)
		return nil
	}
	if off, ok := j.plan.Contiguous(); ok && !a.FOrder {
		// The chunk is exactly one run of the output: decode straight into it.
		n := a.chunkLen() * is
		return a.decode(s.out[off*is:off*is+n], j.raw, a.pipeline(j.chunk))
	}
	chunk, err := a.decodeC(j)
	if err != nil {
		return err
	}
	defer putScratch(chunk)
	scatter(j.plan, s.out, chunk, is)
	return nil
}

// home returns where part job j's elements land in the output when they
// land there as one run, in stored order, and all n stored bytes are there
// (a short chunk's are padded instead).
func (s *byteSink) home(j job, n int64) []byte {
	is := s.a.ItemSize
	span := j.hi - j.lo
	if n != int64(span*is) || j.plan.Len() != span {
		return nil
	}
	at, ok := 0, false
	j.plan.Runs(func(src, dst, m int) bool {
		at, ok = dst, src == j.lo && m == span
		return false
	})
	if !ok {
		return nil
	}
	return s.out[at*is : (at+span)*is] // capacity on: the fetcher checks adjacency
}

// partBytes returns the elements j's plan spans, from a fetched part of a
// raw chunk: j.raw itself or, when the stored bytes of a short chunk
// (PadShort) end first, a zero-padded copy in a scratch buffer (pooled),
// which the caller gives back with putScratch.
func (a *Chunked) partBytes(j job) (raw []byte, pooled bool, err error) {
	is, full := a.ItemSize, int64(a.chunkLen()*a.ItemSize)
	if j.chunk.Len > full || j.chunk.Len < full && !a.PadShort {
		return nil, false, fmt.Errorf("raw chunk has %d bytes, want %d", j.chunk.Len, full)
	}
	if want := (j.hi - j.lo) * is; len(j.raw) < want {
		buf := getScratch(want)
		clear(buf[copy(buf, j.raw):])
		return buf, true, nil
	}
	return j.raw, false, nil
}

// decodeC decodes j's whole chunk, in C order, into a scratch buffer, which
// the caller gives back with putScratch.
func (a *Chunked) decodeC(j job) ([]byte, error) {
	n := a.chunkLen() * a.ItemSize
	buf := getScratch(n)
	if err := a.decode(buf, j.raw, a.pipeline(j.chunk)); err != nil {
		putScratch(buf)
		return nil, err
	}
	if !a.FOrder {
		return buf, nil
	}
	c := getScratch(n)
	FortranToC(c, buf, a.Chunks, a.ItemSize)
	putScratch(buf)
	return c, nil
}

// decode fills dst, exactly one chunk long, with the decoding of raw.
func (a *Chunked) decode(dst, raw []byte, pipe *codecs.Pipeline) error {
	n := len(dst)
	if pipe == nil || pipe.Empty() {
		switch {
		case len(raw) == n, len(raw) < n && a.PadShort:
			clear(dst[copy(dst, raw):])
			return nil
		}
		return fmt.Errorf("raw chunk has %d bytes, want %d", len(raw), n)
	}
	res, err := pipe.Decode(dst[:0], raw, n)
	if err != nil {
		return err
	}
	if len(res) != n {
		return fmt.Errorf("chunk decodes to %d bytes, want %d", len(res), n)
	}
	if &res[0] != &dst[0] {
		copy(dst, res)
	}
	return nil
}

// objectSink decodes object chunks (json2, vlen-utf8, …) into an item output.
type objectSink struct {
	a   *Chunked
	out []any
}

// do decodes j and scatters its selected items into the output.
func (s *objectSink) do(j job) error {
	a := s.a
	if j.chunk.Missing {
		fillRuns(j.plan, s.out, []any{a.FillObject}, 1)
		return nil
	}
	n := a.chunkLen()
	items, err := a.pipeline(j.chunk).DecodeObjects(j.raw, n)
	if err != nil {
		return err
	}
	if len(items) != n {
		return fmt.Errorf("object chunk decodes to %d items, want %d", len(items), n)
	}
	if a.FOrder {
		c := make([]any, n)
		FortranToC(c, items, a.Chunks, 1)
		items = c
	}
	scatter(j.plan, s.out, items, 1)
	return nil
}

// scatter copies the planned runs of chunk into out; w is the width of one
// element in units of E.
func scatter[E any](p *selection.ChunkPlan, out, chunk []E, w int) {
	scatterFrom(p, out, chunk, 0, w)
}

// scatterFrom copies the planned runs out of part, which holds the chunk's
// elements from element lo on; w is as for scatter.
func scatterFrom[E any](p *selection.ChunkPlan, out, part []E, lo, w int) {
	p.Runs(func(src, dst, n int) bool {
		copy(out[dst*w:(dst+n)*w], part[(src-lo)*w:(src-lo+n)*w])
		return true
	})
}

// fillRuns writes the element fill (w units wide; nil means zero) to the planned
// destination runs of out.
func fillRuns[E any](p *selection.ChunkPlan, out, fill []E, w int) {
	p.Runs(func(_, dst, n int) bool {
		d := out[dst*w : (dst+n)*w]
		if fill == nil {
			clear(d)
			return true
		}
		// Double the filled prefix: log(n) copies instead of n.
		k := copy(d, fill)
		for k < len(d) {
			k += copy(d[k:], d[:k])
		}
		return true
	})
}

// FortranToC reorders the elements of an array of the given shape from
// Fortran to C order; w is the width of one element in units of E (1 for
// items, the item size for bytes). dst and src must not overlap.
func FortranToC[E any](dst, src []E, shape []int, w int) {
	rank := len(shape)
	if rank <= 1 {
		copy(dst, src)
		return
	}
	fstride := make([]int, rank)
	s := 1
	for d := range rank {
		fstride[d] = s
		s *= shape[d]
	}
	idx := make([]int, rank)
	off := 0 // Fortran offset of idx
	inner := shape[rank-1]
	for i := 0; i < s; i += inner {
		// The last C axis is the slowest Fortran axis: walk it with its stride.
		o := off
		for k := range inner {
			copy(dst[(i+k)*w:(i+k+1)*w], src[o*w:(o+1)*w])
			o += fstride[rank-1]
		}
		for d := rank - 2; d >= 0; d-- {
			idx[d]++
			off += fstride[d]
			if idx[d] < shape[d] {
				break
			}
			off -= idx[d] * fstride[d]
			idx[d] = 0
		}
	}
}
