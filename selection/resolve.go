package selection

import (
	"errors"
	"fmt"
	"math"
)

var (
	// ErrOutOfRange is wrapped by errors for an index or list entry outside
	// its axis.
	ErrOutOfRange = errors.New("selection: index out of range")
	// ErrInvalid is wrapped by errors for a selection that does not fit the
	// array (step 0, too many items, two ellipses, a mask of the wrong
	// length) and for a bad shape or chunk shape.
	ErrInvalid = errors.New("selection: invalid selection")
	// ErrTooLarge is wrapped by errors for sizes whose product or sum does
	// not fit in an int.
	ErrTooLarge = errors.New("selection: size too large")
)

// Resolved is a [Selection] checked against an array shape: for every array
// axis, the positions it selects and the order they take in the output.
// A Resolved is immutable and safe for concurrent use.
type Resolved struct {
	shape []int
	axes  []axisSel
	out   []int // output shape
	n     int   // number of output elements
}

// axisSel is the selection on one array axis. Positions are either the
// arithmetic progression lo, lo+step, … (n of them, step > 0, ascending) or,
// for lists that are not progressions, list (in output order).
type axisSel struct {
	size int
	lo   int
	step int
	n    int
	rev  bool  // the output takes the progression in descending order
	drop bool  // an integer index: the axis is not in the output
	list []int // non-nil for a list that is not a progression
}

// Resolve checks s against an array of the given shape and returns the
// resolved selection. Errors wrap [ErrInvalid], [ErrOutOfRange] or
// [ErrTooLarge] and name the axis and value at fault.
func (s Selection) Resolve(shape []int) (*Resolved, error) {
	for d, n := range shape {
		if n < 0 {
			return nil, fmt.Errorf("%w: negative size %d for axis %d", ErrInvalid, n, d)
		}
	}
	items, err := s.expand(len(shape))
	if err != nil {
		return nil, err
	}
	r := &Resolved{shape: append([]int{}, shape...), axes: make([]axisSel, len(shape))}
	r.out = make([]int, 0, len(items))
	r.n = 1
	d := 0
	for _, it := range items {
		if it.kind == kindNewAxis {
			r.out = append(r.out, 1) // C order: a length-1 axis moves no element
			continue
		}
		if it.pointwise() {
			return nil, fmt.Errorf("%w: %s selects points jointly over %d axes; Split it for reading", ErrInvalid, it, it.axes())
		}
		a, err := it.resolve(d, shape[d])
		if err != nil {
			return nil, err
		}
		r.axes[d] = a
		d++
		if a.drop {
			continue
		}
		r.out = append(r.out, a.n)
		if a.n != 0 && r.n > math.MaxInt/a.n {
			return nil, fmt.Errorf("%w: the selection on shape %v has more elements than an int can count", ErrTooLarge, shape)
		}
		r.n *= a.n
	}
	return r, nil
}

// expand replaces the ellipsis (or the missing trailing items) by full
// slices, giving exactly one item per axis.
func (s Selection) expand(ndim int) ([]Item, error) {
	ellipsis := -1
	for i, it := range s {
		if it.kind != kindEllipsis {
			continue
		}
		if ellipsis >= 0 {
			return nil, fmt.Errorf("%w: more than one ellipsis (items %d and %d)", ErrInvalid, ellipsis, i)
		}
		ellipsis = i
	}
	given := 0
	for _, it := range s {
		given += it.axes()
	}
	if given > ndim {
		return nil, fmt.Errorf("%w: too many indices: %d given for a %d-d array", ErrInvalid, given, ndim)
	}
	items := make([]Item, 0, len(s)+ndim)
	for i, it := range s {
		if i == ellipsis {
			for range ndim - given {
				items = append(items, All())
			}
			continue
		}
		items = append(items, it)
	}
	if ellipsis < 0 {
		for range ndim - given {
			items = append(items, All())
		}
	}
	return items, nil
}

func (it Item) resolve(axis, size int) (axisSel, error) {
	switch it.kind {
	case kindIndex:
		i, err := wrap(it.start, axis, size)
		if err != nil {
			return axisSel{}, err
		}
		return axisSel{size: size, lo: i, step: 1, n: 1, drop: true}, nil
	case kindSlice:
		return resolveSlice(it.start, it.stop, it.step, axis, size)
	case kindList:
		idx := make([]int, len(it.list))
		for j, v := range it.list {
			i, err := wrap(v, axis, size)
			if err != nil {
				return axisSel{}, fmt.Errorf("%w (list entry %d)", err, j)
			}
			idx[j] = i
		}
		return fromList(idx, size), nil
	case kindMask:
		if len(it.mask) != size {
			return axisSel{}, fmt.Errorf("%w: mask of length %d for axis %d with size %d", ErrInvalid, len(it.mask), axis, size)
		}
		var idx []int
		for i, b := range it.mask {
			if b {
				idx = append(idx, i)
			}
		}
		return fromList(idx, size), nil
	}
	return axisSel{size: size, step: 1, n: size}, nil // kindAll
}

func wrap(i, axis, size int) (int, error) {
	j := i
	if j < 0 {
		j += size
	}
	if j < 0 || j >= size {
		return 0, fmt.Errorf("%w: index %d is out of bounds for axis %d with size %d", ErrOutOfRange, i, axis, size)
	}
	return j, nil
}

// resolveSlice applies Python's slice.indices rules and normalises the result
// to an ascending progression.
func resolveSlice(start, stop, step, axis, size int) (axisSel, error) {
	if step == 0 {
		return axisSel{}, fmt.Errorf("%w: slice step cannot be zero (axis %d)", ErrInvalid, axis)
	}
	a := axisSel{size: size, step: 1}
	if step > 0 {
		start = clampBound(start, 0, size, 0, size)
		stop = clampBound(stop, size, size, 0, size)
		if stop > start {
			a.lo, a.n, a.step = start, (stop-start-1)/step+1, step
		}
	} else {
		start = clampBound(start, size-1, size, -1, size-1)
		stop = clampBound(stop, -1, size, -1, size-1)
		if start > stop {
			a.n = (start-stop-1)/(-step) + 1
			a.lo, a.step, a.rev = start+(a.n-1)*step, -step, true
		}
	}
	if a.n <= 1 {
		a.step, a.rev = 1, false
	}
	return a, nil
}

// clampBound turns a slice bound into a position: None gives def, negative
// values count from the end, and the result is clamped to [lo, hi].
func clampBound(v, def, size, lo, hi int) int {
	if v == None {
		return def
	}
	if v < 0 {
		v += size
	}
	return min(max(v, lo), hi)
}

// fromList stores idx as a progression when it is one, so that masks and
// lists of consecutive positions plan like slices.
func fromList(idx []int, size int) axisSel {
	a := axisSel{size: size, step: 1, n: len(idx)}
	switch {
	case len(idx) == 0:
		return a
	case len(idx) == 1:
		a.lo = idx[0]
		return a
	}
	diff := idx[1] - idx[0]
	for j := 2; j < len(idx); j++ {
		if idx[j]-idx[j-1] != diff {
			diff = 0
			break
		}
	}
	switch {
	case diff > 0:
		a.lo, a.step = idx[0], diff
	case diff < 0:
		a.lo, a.step, a.rev = idx[len(idx)-1], -diff, true
	default:
		a.list = idx
	}
	return a
}

// Shape returns the shape of the selected array: one entry per array axis
// not selected by an integer index. The caller owns the returned slice.
func (r *Resolved) Shape() []int { return append([]int{}, r.out...) }

// Len returns the number of selected elements, the product of Shape.
func (r *Resolved) Len() int { return r.n }

// ArrayShape returns the shape of the array the selection was resolved
// against. The caller owns the returned slice.
func (r *Resolved) ArrayShape() []int { return append([]int{}, r.shape...) }

// Whole reports whether the selection takes every element of the array in
// C order, so that the output holds the array's own elements (its shape
// lacks the size-1 axes picked by an integer index).
func (r *Resolved) Whole() bool {
	for _, a := range r.axes {
		if a.list != nil || a.rev || a.lo != 0 || a.n != a.size || (a.n > 1 && a.step != 1) {
			return false
		}
	}
	return true
}
