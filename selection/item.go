package selection

import (
	"math"
	"strconv"
	"strings"
)

// None, passed as start, stop or step to [Slice], leaves that bound unset,
// like Python's None: Slice(None, None, -1) is "::-1". Parse rejects the
// integer math.MinInt, so a parsed number is never taken for None.
const None = math.MinInt

type kind uint8

const (
	kindAll kind = iota // the zero Item is ":"
	kindIndex
	kindSlice
	kindEllipsis
	kindList
	kindMask
	kindNewAxis
	kindMaskND // a mask over several axes: mshape, mask in C order
	kindVindex // index arrays broadcast together: vindex, one per axis
)

// Item is one element of a [Selection]: an index, a slice, an ellipsis, an
// index list or a boolean mask. The zero Item is the full slice ":". Items
// built by [List] and [Mask] keep their own copy of the values.
type Item struct {
	kind              kind
	start, stop, step int // kindSlice (None for unset start/stop); kindIndex uses start
	list              []int
	mask              []bool
	mshape            []int   // kindMaskND: the axes the mask covers
	vindex            [][]int // kindVindex: one index array per axis
}

// Selection is a numpy-style selection: one [Item] per array axis, with at
// most one [Ellipsis] standing for the axes not named. Missing trailing items
// select whole axes, so the empty Selection selects the whole array.
type Selection []Item

// Index selects the single position i on an axis and drops the axis from the
// result. A negative i counts from the end of the axis.
func Index(i int) Item { return Item{kind: kindIndex, start: i} }

// Slice selects start, start+step, … up to but excluding stop, with Python's
// rules: negative bounds count from the end, bounds beyond the axis are
// clamped, and a negative step walks backwards. Pass [None] to leave start or
// stop unset; a step of None means 1. A step of 0 is reported by Resolve.
func Slice(start, stop, step int) Item {
	if step == None {
		step = 1
	}
	if start == None && stop == None && step == 1 {
		return All()
	}
	return Item{kind: kindSlice, start: start, stop: stop, step: step}
}

// All selects a whole axis, like ":".
func All() Item { return Item{kind: kindAll} }

// Ellipsis stands for as many whole axes as needed to complete a
// [Selection], like "...".
func Ellipsis() Item { return Item{kind: kindEllipsis} }

// List selects the given positions on an axis, in the given order and with
// repetitions; negative positions count from the end. The result keeps the
// axis, with length len(idx). List copies idx.
func List(idx ...int) Item {
	return Item{kind: kindList, list: append([]int{}, idx...)}
}

// Mask selects the positions of an axis where m is true, in increasing
// order. The mask must be as long as the axis. Mask copies m.
func Mask(m ...bool) Item {
	return Item{kind: kindMask, mask: append([]bool{}, m...)}
}

// NewAxis inserts an axis of length 1 into the result, like numpy's
// np.newaxis (None); it takes no axis of the array.
func NewAxis() Item { return Item{kind: kindNewAxis} }

// MaskND selects with a boolean mask of the given shape over as many
// consecutive axes, numpy's a[mask] for an N-d mask: the result has one axis,
// of the mask's true count, in place of those axes, holding the elements
// where the mask is true in C order. mask holds the mask's values in C
// order; MaskND copies it. Its length must be the product of shape, and
// shape must match the axes it covers (checked by Split). A 1-d MaskND is
// [Mask].
func MaskND(shape []int, mask []bool) Item {
	if len(shape) == 1 {
		return Mask(mask...)
	}
	return Item{kind: kindMaskND, mshape: append([]int{}, shape...), mask: append([]bool{}, mask...)}
}

// Vindex selects points with one index array per axis, broadcast together
// as numpy does with several index arrays (zarr's vindex): point k is
// (arrays[0][k], arrays[1][k], …), and an array of length 1 stands for any
// length. It covers len(arrays) consecutive axes and gives the result one
// axis, of the points, in their place. This differs from a List per axis,
// which selects the outer product (zarr's oindex). Vindex copies the arrays.
func Vindex(arrays ...[]int) Item {
	c := make([][]int, len(arrays))
	for i, a := range arrays {
		c[i] = append([]int{}, a...)
	}
	return Item{kind: kindVindex, vindex: c}
}

// pointwise reports whether the item selects points jointly over axes.
func (it Item) pointwise() bool { return it.kind == kindMaskND || it.kind == kindVindex }

// axes is how many array axes the item covers.
func (it Item) axes() int {
	switch it.kind {
	case kindNewAxis, kindEllipsis:
		return 0
	case kindMaskND:
		return len(it.mshape)
	case kindVindex:
		return len(it.vindex)
	}
	return 1
}

// String returns the text form of the item, as accepted by [Parse].
func (it Item) String() string {
	var b strings.Builder
	it.write(&b)
	return b.String()
}

func (it Item) write(b *strings.Builder) {
	switch it.kind {
	case kindAll:
		b.WriteByte(':')
	case kindIndex:
		b.WriteString(strconv.Itoa(it.start))
	case kindEllipsis:
		b.WriteString("...")
	case kindSlice:
		if it.start != None {
			b.WriteString(strconv.Itoa(it.start))
		}
		b.WriteByte(':')
		if it.stop != None {
			b.WriteString(strconv.Itoa(it.stop))
		}
		if it.step != 1 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(it.step))
		}
	case kindList:
		b.WriteByte('[')
		for i, v := range it.list {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(v))
		}
		b.WriteByte(']')
	case kindMask:
		writeBools(b, it.mask)
	case kindNewAxis:
		b.WriteString("None")
	case kindMaskND:
		writeNested(b, it.mshape, it.mask)
	case kindVindex:
		b.WriteString("vindex(")
		for i, a := range it.vindex {
			if i > 0 {
				b.WriteString(", ")
			}
			Item{kind: kindList, list: a}.write(b)
		}
		b.WriteByte(')')
	}
}

func writeBools(b *strings.Builder, m []bool) {
	b.WriteByte('[')
	for i, v := range m {
		if i > 0 {
			b.WriteString(", ")
		}
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	}
	b.WriteByte(']')
}

// writeNested writes an N-d mask as nested lists.
func writeNested(b *strings.Builder, shape []int, m []bool) {
	if len(shape) <= 1 {
		writeBools(b, m)
		return
	}
	b.WriteByte('[')
	step := len(m) / max(shape[0], 1)
	for i := range shape[0] {
		if i > 0 {
			b.WriteString(", ")
		}
		writeNested(b, shape[1:], m[i*step:(i+1)*step])
	}
	b.WriteByte(']')
}

// String returns the text form of the selection, which [Parse] reads back
// to an equivalent selection: "()" for the empty selection, otherwise the
// items separated by ", ". An empty mask prints as "[]", which Parse reads as
// an empty index list.
func (s Selection) String() string {
	if len(s) == 0 {
		return "()"
	}
	var b strings.Builder
	for i, it := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		it.write(&b)
	}
	return b.String()
}
