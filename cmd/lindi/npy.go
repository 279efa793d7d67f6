package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/npy"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// writeNPY writes the array as a NumPy .npy file: numbers and compounds with
// their dtype in little-endian order, booleans as |b1, every kind of string
// as <U n (n the longest string's length), a scalar as a 0-d array.
func writeNPY(w io.Writer, a *h5.Array) error {
	out := &npy.Array{Shape: a.Shape}
	switch a.DType.Kind {
	case zarrmeta.KindBytes, zarrmeta.KindUnicode, zarrmeta.KindObject:
		s, err := h5.As[string](a)
		if err != nil {
			return fmt.Errorf("cannot write %s elements to .npy: %w (try -f json)", a.DType, err)
		}
		out.Descr, out.Data = utf32Array(s.Data)
	default:
		if a.Data == nil {
			return fmt.Errorf("cannot write %s elements to .npy (try -f json)", a.DType)
		}
		if zarrmeta.NativeOrder != zarrmeta.LittleEndian {
			return fmt.Errorf("writing .npy is supported on little-endian machines only")
		}
		out.Descr, out.Data = a.DType.String(), a.Data
	}
	return npy.Write(w, out)
}

// streamable returns sel resolved against d when the .npy file of d[sel]
// can be written while the read goes on: numbers and booleans read by a
// (non-pointwise) selection.
func streamable(d *h5.Dataset, sel selection.Selection) (*selection.Resolved, bool) {
	switch d.DType().Kind {
	case zarrmeta.KindBool, zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat, zarrmeta.KindComplex:
	default:
		return nil, false
	}
	if zarrmeta.NativeOrder != zarrmeta.LittleEndian || d.Err() != nil {
		return nil, false
	}
	if _, pointwise, err := sel.Split(d.Shape()); err != nil || pointwise {
		return nil, false
	}
	r, err := sel.Resolve(d.Shape())
	if err != nil {
		return nil, false
	}
	return r, true
}

// streamNPY writes d[sel], of the given shape, as a .npy file whose data
// goes out while the chunks after it are still decoding.
func streamNPY(ctx context.Context, w io.Writer, d *h5.Dataset, sel selection.Selection, shape []int) error {
	n, err := npy.WriteHeader(w, d.DType().Native().String(), false, shape)
	if err != nil {
		return err
	}
	cw := &countWriter{w: w}
	if _, err := d.ReadTo(ctx, sel, cw); err != nil {
		return err
	}
	if cw.n != n {
		return fmt.Errorf("npy: %d bytes of data written, the header says %d", cw.n, n)
	}
	return nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// utf32Array encodes strings as numpy's <U n: n UTF-32LE code units each.
func utf32Array(strs []string) (string, []byte) {
	n := 1
	for _, s := range strs {
		n = max(n, utf8.RuneCountInString(s))
	}
	data := make([]byte, 4*n*len(strs))
	for i, s := range strs {
		k := 4 * n * i
		for _, r := range s {
			binary.LittleEndian.PutUint32(data[k:], uint32(r))
			k += 4
		}
	}
	return fmt.Sprintf("<U%d", n), data
}
