package zarrmeta

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// swapWidth returns the width of the units that byte order applies to in
// a non-struct dtype (the whole item for numbers, each half of a complex,
// each code unit of a unicode string), or 0 when there is nothing to swap.
func (d DType) swapWidth() int {
	w := d.Size
	switch d.Kind {
	case KindComplex:
		w /= 2
	case KindUnicode:
		w = 4
	case KindInt, KindUint, KindFloat, KindDatetime, KindTimedelta:
	default:
		return 0
	}
	if w < 2 || d.Order == NoOrder || d.Order == NativeOrder {
		return 0
	}
	return w
}

// NeedsSwap reports whether items of d hold numbers or unicode code units
// stored in the non-native byte order, in d itself or in any struct field.
func (d DType) NeedsSwap() bool {
	if d.Kind != KindStruct {
		return d.swapWidth() != 0
	}
	for _, f := range d.Fields {
		if f.DType.NeedsSwap() {
			return true
		}
	}
	return false
}

// Native returns d with every byte order that differs from NativeOrder set
// to NativeOrder: the dtype of a buffer after SwapToNative. Fields are
// copied, never shared with d.
func (d DType) Native() DType {
	if d.Kind != KindStruct {
		if d.Order != NoOrder {
			d.Order = NativeOrder
		}
		return d
	}
	fields := make([]Field, len(d.Fields))
	for i, f := range d.Fields {
		f.DType = f.DType.Native()
		fields[i] = f
	}
	d.Fields = fields
	return d
}

// checkLayout verifies that every field of a struct lies inside its item,
// so swapping cannot index out of range on a hand-built DType.
func (d DType) checkLayout() error {
	for _, f := range d.Fields {
		size := f.DType.Size
		n := f.Count()
		if f.Offset < 0 || size < 0 || n < 0 || (n > 0 && size > (d.Size-f.Offset)/n) {
			return fmt.Errorf("%w: field %q runs past the %d-byte item", ErrDType, f.Name, d.Size)
		}
		if f.DType.Kind == KindStruct {
			if err := f.DType.checkLayout(); err != nil {
				return err
			}
		}
	}
	return nil
}

// swapItem swaps the non-native units of one struct item.
func (d DType) swapItem(item []byte) {
	for _, f := range d.Fields {
		if !f.DType.NeedsSwap() {
			continue
		}
		n, size := f.Count(), f.DType.Size
		if f.DType.Kind != KindStruct {
			swapUnits(item[f.Offset:f.Offset+n*size], f.DType.swapWidth())
			continue
		}
		for e := range n {
			start := f.Offset + e*size
			f.DType.swapItem(item[start : start+size])
		}
	}
}

// SwapToNative byte-swaps, in place, every number and unicode code unit of
// the items in buf that is stored in the non-native byte order, including
// inside struct fields. len(buf) must be a multiple of d.Size. Afterwards
// buf holds items of d.Native(). It does nothing when NeedsSwap is false.
func (d DType) SwapToNative(buf []byte) error {
	if d.Size <= 0 || len(buf)%d.Size != 0 {
		return fmt.Errorf("%w: %d bytes is not a whole number of %d-byte %s items", ErrDType, len(buf), d.Size, d)
	}
	if d.Kind != KindStruct {
		if w := d.swapWidth(); w != 0 {
			swapUnits(buf, w)
		}
		return nil
	}
	if !d.NeedsSwap() {
		return nil
	}
	if err := d.checkLayout(); err != nil {
		return err
	}
	if spans, ok := d.flatSpans(0, nil); ok {
		for item := buf; len(item) >= d.Size; item = item[d.Size:] {
			for _, s := range spans {
				swapUnits(item[s.off:s.end], s.width)
			}
		}
		return nil
	}
	for item := 0; item < len(buf); item += d.Size {
		d.swapItem(buf[item : item+d.Size])
	}
	return nil
}

// span is a run of units of width bytes, item[off:end], to swap.
type span struct{ off, end, width int }

// maxSpans bounds the flattened swap plan of a struct; deeper layouts
// (subarrays of nested structs) are swapped field by field instead.
const maxSpans = 256

// flatSpans lists the runs to swap in one item of struct d placed at base,
// merging adjacent runs of the same width. It reports false when the plan
// would exceed maxSpans.
func (d DType) flatSpans(base int, out []span) ([]span, bool) {
	for _, f := range d.Fields {
		n, size := f.Count(), f.DType.Size
		if f.DType.Kind == KindStruct {
			for e := range n {
				var ok bool
				if out, ok = f.DType.flatSpans(base+f.Offset+e*size, out); !ok {
					return nil, false
				}
			}
			continue
		}
		w := f.DType.swapWidth()
		if w == 0 || n == 0 {
			continue
		}
		s := span{base + f.Offset, base + f.Offset + n*size, w}
		if k := len(out) - 1; k >= 0 && out[k].end == s.off && out[k].width == w {
			out[k].end = s.end
			continue
		}
		if out = append(out, s); len(out) > maxSpans {
			return nil, false
		}
	}
	return out, true
}

// swapUnits reverses the bytes of each width-byte unit of b. It is the hot
// path for big-endian data: the 2- and 4-byte cases work on 8-byte words
// (lane-wise swaps, about 3x faster than unit by unit), and reslicing b as
// it goes lets the compiler drop bounds checks.
func swapUnits(b []byte, width int) {
	le := binary.LittleEndian
	switch width {
	case 2:
		for ; len(b) >= 8; b = b[8:] {
			x := le.Uint64(b)
			le.PutUint64(b, (x&0x00ff00ff00ff00ff)<<8|(x>>8)&0x00ff00ff00ff00ff)
		}
		for ; len(b) >= 2; b = b[2:] {
			b[0], b[1] = b[1], b[0]
		}
	case 4:
		for ; len(b) >= 8; b = b[8:] {
			le.PutUint64(b, bits.RotateLeft64(bits.ReverseBytes64(le.Uint64(b)), 32))
		}
		for ; len(b) >= 4; b = b[4:] {
			le.PutUint32(b, bits.ReverseBytes32(le.Uint32(b)))
		}
	case 8:
		for ; len(b) >= 8; b = b[8:] {
			le.PutUint64(b, bits.ReverseBytes64(le.Uint64(b)))
		}
	default:
		for ; len(b) >= width; b = b[width:] {
			for j, k := 0, width-1; j < k; j, k = j+1, k-1 {
				b[j], b[k] = b[k], b[j]
			}
		}
	}
}
