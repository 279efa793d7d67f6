package engine

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/selection"
)

// ReadField reads bytes [off, off+size) of every element of the selection r of
// array a — one field of a compound — into out, which must hold exactly
// r.Len()*size bytes, in C order and in the stored byte order. Each chunk is
// decoded whole, as it must be, but only the field reaches the output, so a
// read of one field of a wide compound needs memory for that field alone.
func ReadField(ctx context.Context, a *Chunked, r *selection.Resolved, off, size int, out []byte, opt Options) error {
	if off < 0 || size <= 0 || off+size > a.ItemSize {
		return fmt.Errorf("engine: %s: bytes [%d, %d) are not within an element of %d bytes", a.Name, off, off+size, a.ItemSize)
	}
	if want := r.Len() * size; len(out) != want {
		return fmt.Errorf("engine: output holds %d bytes, selection needs %d", len(out), want)
	}
	if err := a.check(); err != nil {
		return err
	}
	return run(ctx, a, r, &fieldSink{a: a, off: off, size: size, out: out}, opt)
}

// fieldSink decodes fixed-size chunks and scatters one field of their
// selected elements into the output.
type fieldSink struct {
	a         *Chunked
	off, size int
	out       []byte
}

func (s *fieldSink) do(j job) error {
	a := s.a
	if j.chunk.Missing {
		var fill []byte
		if a.Fill != nil {
			fill = a.Fill[s.off : s.off+s.size]
		}
		fillRuns(j.plan, s.out, fill, s.size)
		return nil
	}
	if j.part {
		// A fetched part of a raw chunk: its elements from the plan's span on.
		raw, pooled, err := a.partBytes(j)
		if err != nil {
			return err
		}
		if pooled {
			defer putScratch(raw)
		}
		field := getScratch((j.hi - j.lo) * s.size)
		defer putScratch(field)
		s.project(field, raw)
		scatterFrom(j.plan, s.out, field, j.lo, s.size)
		return nil
	}
	chunk, err := a.decodeC(j)
	if err != nil {
		return err
	}
	defer putScratch(chunk)
	field := getScratch(a.chunkLen() * s.size)
	defer putScratch(field)
	s.project(field, chunk)
	scatter(j.plan, s.out, field, s.size)
	return nil
}

// project copies the field of each whole element of elems into dst.
func (s *fieldSink) project(dst, elems []byte) {
	is := s.a.ItemSize
	for i := 0; i*s.size < len(dst) && (i+1)*is <= len(elems); i++ {
		copy(dst[i*s.size:(i+1)*s.size], elems[i*is+s.off:i*is+s.off+s.size])
	}
}
