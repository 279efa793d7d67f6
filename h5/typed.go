package h5

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Number is the set of element types a numeric dataset reads into. int and
// uint are the platform's sizes: exactly "<i8" and "<u8" on a 64-bit platform
// for ReadExact, and range-checked by Read (see there).
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// Complex is the set of complex element types a complex dataset reads into.
type Complex interface {
	~complex64 | ~complex128
}

// Element is the set of element types Read and As give: numbers, complex
// numbers, strings and references.
type Element interface {
	Number | Complex | string | Reference
}

// Typed is an n-dimensional array of Go values in C order: the element at
// index (i0, …, ik) is Data[i0*stride0 + … + ik]. A 0-d array (a scalar) has
// an empty Shape and one element.
type Typed[T any] struct {
	Shape []int
	Data  []T
}

// Len is the number of elements.
func (t *Typed[T]) Len() int { return len(t.Data) }

func convert[T, S Number](data []S) []T {
	out := make([]T, len(data))
	for i, x := range data {
		out[i] = T(x)
	}
	return out
}

// Dense returns a 2-D array as a gonum matrix that shares a's data (no copy):
// writes to one are seen by the other. It fails for other ranks and for empty
// arrays, which gonum cannot represent.
func Dense(a *Typed[float64]) (*mat.Dense, error) {
	if len(a.Shape) != 2 {
		return nil, fmt.Errorf("%w: Dense needs a 2-D array, not shape %v", ErrType, a.Shape)
	}
	if a.Shape[0] == 0 || a.Shape[1] == 0 {
		return nil, fmt.Errorf("%w: Dense: empty array of shape %v", ErrType, a.Shape)
	}
	return mat.NewDense(a.Shape[0], a.Shape[1], a.Data), nil
}

// Vec returns a 1-D array as a gonum vector that shares a's data (no copy). It
// fails for other ranks and for empty arrays.
func Vec(a *Typed[float64]) (*mat.VecDense, error) {
	if len(a.Shape) != 1 {
		return nil, fmt.Errorf("%w: Vec needs a 1-D array, not shape %v", ErrType, a.Shape)
	}
	if a.Shape[0] == 0 {
		return nil, fmt.Errorf("%w: Vec: empty array", ErrType)
	}
	return mat.NewVecDense(a.Shape[0], a.Data), nil
}
