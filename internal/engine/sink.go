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
		return s.scatterPart(j)
	}
	pipe, n := a.pipeline(j.chunk), a.chunkLen()*is
	if off, ok := j.plan.Contiguous(); ok && !a.FOrder {
		// The chunk is exactly one run of the output: decode straight into it.
		return s.decode(s.out[off*is:off*is+n], j.raw, pipe)
	}
	buf := getScratch(n)
	defer putScratch(buf)
	if err := s.decode(buf, j.raw, pipe); err != nil {
		return err
	}
	chunk := buf
	if a.FOrder {
		c := getScratch(n)
		defer putScratch(c)
		FortranToC(c, buf, a.Chunks, is)
		chunk = c
	}
	scatter(j.plan, s.out, chunk, is)
	return nil
}

// scatterPart copies the planned runs out of a fetched part of a raw chunk.
// Elements past the stored bytes of a short chunk (PadShort) read as zeros.
func (s *byteSink) scatterPart(j job) error {
	is, full := s.a.ItemSize, int64(s.a.chunkLen()*s.a.ItemSize)
	if j.chunk.Len > full || j.chunk.Len < full && !s.a.PadShort {
		return fmt.Errorf("raw chunk has %d bytes, want %d", j.chunk.Len, full)
	}
	lo, hi := j.plan.Span()
	raw := j.raw
	if want := (hi - lo) * is; len(raw) < want {
		buf := getScratch(want)
		defer putScratch(buf)
		clear(buf[copy(buf, raw):])
		raw = buf
	}
	j.plan.Runs(func(src, dst, n int) bool {
		copy(s.out[dst*is:(dst+n)*is], raw[(src-lo)*is:(src-lo+n)*is])
		return true
	})
	return nil
}

// decode fills dst, exactly one chunk long, with the decoding of raw.
func (s *byteSink) decode(dst, raw []byte, pipe *codecs.Pipeline) error {
	n := len(dst)
	if pipe == nil || pipe.Empty() {
		switch {
		case len(raw) == n, len(raw) < n && s.a.PadShort:
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
	p.Runs(func(src, dst, n int) bool {
		copy(out[dst*w:(dst+n)*w], chunk[src*w:(src+n)*w])
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
