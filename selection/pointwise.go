package selection

import "fmt"

// Pointwise is a selection holding one pointwise item ([MaskND] or
// [Vindex]) split for reading: orthogonal selections of the axes before and
// after the points' axes, and the points. The result of the whole selection
// has the shape of Before's result, then one axis of len(Points), then
// After's: element (b…, k, a…) is the array's element at (b…, Points[k]…,
// a…) as Before and After select b… and a….
type Pointwise struct {
	// Before selects the axes 0 to Axis-1 (one item per axis, no ellipsis;
	// NewAxis items kept).
	Before Selection
	// Axis is the first axis the points cover.
	Axis int
	// Axes is how many axes the points cover.
	Axes int
	// Points holds each point's coordinates on axes Axis, Axis+1, …, in
	// range and not negative.
	Points [][]int
	// After selects the axes after the points' axes, as Before does.
	After Selection
}

// Split checks s against an array of the given shape and, when s holds a
// pointwise item, splits it (ok true). A selection with none gives ok false
// and is read as it is. More than one pointwise item, or one that does not
// fit its axes, is an error wrapping [ErrInvalid] or [ErrOutOfRange].
func (s Selection) Split(shape []int) (p *Pointwise, ok bool, err error) {
	items, err := s.expand(len(shape))
	if err != nil {
		return nil, false, err
	}
	at := -1
	for i, it := range items {
		if !it.pointwise() {
			continue
		}
		if at >= 0 {
			return nil, false, fmt.Errorf("%w: more than one pointwise item (%s and %s)", ErrInvalid, items[at], it)
		}
		at = i
	}
	if at < 0 {
		return nil, false, nil
	}
	axis := 0
	for _, it := range items[:at] {
		axis += it.axes()
	}
	it := items[at]
	dims := shape[axis : axis+it.axes()]
	var pts [][]int
	if it.kind == kindMaskND {
		pts, err = maskPoints(it, axis, dims)
	} else {
		pts, err = vindexPoints(it, axis, dims)
	}
	if err != nil {
		return nil, false, err
	}
	return &Pointwise{Before: items[:at:at], Axis: axis, Axes: len(dims), Points: pts, After: items[at+1:]}, true, nil
}

// maskPoints lists the true positions of an N-d mask in C order.
func maskPoints(it Item, axis int, dims []int) ([][]int, error) {
	n := 1
	for d, m := range it.mshape {
		if m != dims[d] {
			return nil, fmt.Errorf("%w: mask of shape %v for axes %d… of sizes %v", ErrInvalid, it.mshape, axis, dims)
		}
		n *= m
	}
	if len(it.mask) != n {
		return nil, fmt.Errorf("%w: mask of shape %v holds %d values, not %d", ErrInvalid, it.mshape, len(it.mask), n)
	}
	var pts [][]int
	for flat, b := range it.mask {
		if !b {
			continue
		}
		p := make([]int, len(dims))
		for d, r := len(dims)-1, flat; d >= 0; d-- {
			p[d], r = r%dims[d], r/dims[d]
		}
		pts = append(pts, p)
	}
	return pts, nil
}

// vindexPoints broadcasts index arrays together, as numpy does: each has
// one length, or length 1.
func vindexPoints(it Item, axis int, dims []int) ([][]int, error) {
	n := 1
	for _, a := range it.vindex {
		switch {
		case len(a) == n || len(a) == 1:
		case n == 1:
			n = len(a)
		default:
			return nil, fmt.Errorf("%w: index arrays of lengths %d and %d do not broadcast together", ErrInvalid, n, len(a))
		}
	}
	pts := make([][]int, n)
	for k := range pts {
		p := make([]int, len(dims))
		for d, a := range it.vindex {
			v := a[0]
			if len(a) > 1 {
				v = a[k]
			}
			i, err := wrap(v, axis+d, dims[d])
			if err != nil {
				return nil, fmt.Errorf("%w (point %d)", err, k)
			}
			p[d] = i
		}
		pts[k] = p
	}
	return pts, nil
}
