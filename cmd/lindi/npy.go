package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/npy"
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
