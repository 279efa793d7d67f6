package codecs

import (
	"encoding/binary"
	"math"
	"strconv"
)

// numType is a numeric numpy dtype: kind 'i', 'u' or 'f', size in bytes and
// byte order. It is the small subset of numpy dtypes the arithmetic filters
// need; zarrmeta owns the full dtype grammar.
type numType struct {
	kind  byte
	size  int
	order binary.ByteOrder
	str   string
}

// parseNumType parses "<i2", ">f8", "|u1" and the like for codec id.
func parseNumType(id, s string) (numType, error) {
	if len(s) < 3 {
		return numType{}, errConfig(id, "unsupported dtype %q", s)
	}
	t := numType{kind: s[1], str: s}
	switch s[0] {
	case '<', '|', '=':
		t.order = binary.LittleEndian
	case '>':
		t.order = binary.BigEndian
	default:
		return numType{}, errConfig(id, "unsupported dtype %q: bad byte order", s)
	}
	size, err := strconv.Atoi(s[2:])
	if err != nil {
		return numType{}, errConfig(id, "unsupported dtype %q", s)
	}
	t.size = size
	switch {
	case (t.kind == 'i' || t.kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8):
	case t.kind == 'f' && (size == 2 || size == 4 || size == 8):
	default:
		return numType{}, errConfig(id, "unsupported dtype %q", s)
	}
	return t, nil
}

// isFloat reports whether t is a floating-point type.
func (t numType) isFloat() bool { return t.kind == 'f' }

// bits loads the raw element at b[0:t.size] as an unsigned integer.
func (t numType) bits(b []byte) uint64 {
	switch t.size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(t.order.Uint16(b))
	case 4:
		return uint64(t.order.Uint32(b))
	}
	return t.order.Uint64(b)
}

// putBits stores the low t.size bytes of v at b[0:t.size].
func (t numType) putBits(b []byte, v uint64) {
	switch t.size {
	case 1:
		b[0] = byte(v)
	case 2:
		t.order.PutUint16(b, uint16(v))
	case 4:
		t.order.PutUint32(b, uint32(v))
	default:
		t.order.PutUint64(b, v)
	}
}

// int loads an integer element, sign-extended for signed kinds.
func (t numType) int(b []byte) int64 {
	v := t.bits(b)
	if t.kind == 'i' {
		shift := 64 - 8*uint(t.size)
		return int64(v<<shift) >> shift
	}
	return int64(v)
}

// float loads an element as float64, whatever its kind.
func (t numType) float(b []byte) float64 {
	switch t.kind {
	case 'i':
		return float64(t.int(b))
	case 'u':
		return float64(t.bits(b))
	}
	switch t.size {
	case 2:
		return float64(halfToFloat32(uint16(t.bits(b))))
	case 4:
		return float64(math.Float32frombits(uint32(t.bits(b))))
	}
	return math.Float64frombits(t.bits(b))
}

// putFloat stores f, rounded to the precision of a float type or converted as
// a C cast (truncation toward zero, wrapping) for an integer type, as numpy's
// astype does.
func (t numType) putFloat(b []byte, f float64) {
	switch {
	case t.kind == 'f' && t.size == 2:
		t.putBits(b, uint64(float32ToHalf(float32(f))))
	case t.kind == 'f' && t.size == 4:
		t.putBits(b, uint64(math.Float32bits(float32(f))))
	case t.kind == 'f':
		t.putBits(b, math.Float64bits(f))
	default:
		t.putBits(b, uint64(floatToInt(f)))
	}
}

// floatToInt converts like a C cast on x86: truncation toward zero, and the
// "integer indefinite" value for NaN and out-of-range inputs, where numpy's
// result is platform-defined.
func floatToInt(f float64) int64 {
	if math.IsNaN(f) || f >= 0x1p63 || f < -0x1p63 {
		if f >= 0x1p63 && f < 0x1p64 {
			return int64(uint64(f))
		}
		return math.MinInt64
	}
	return int64(f)
}

// convert stores the element src of type from into dst of type t as numpy's
// astype would.
func (t numType) convert(dst []byte, from numType, src []byte) {
	if !from.isFloat() && !t.isFloat() {
		t.putBits(dst, uint64(from.int(src)))
		return
	}
	if from.kind == 'u' && from.size == 8 && !t.isFloat() {
		t.putBits(dst, from.bits(src))
		return
	}
	t.putFloat(dst, from.float(src))
}

// halfToFloat32 widens an IEEE 754 binary16 value exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal half: normalise into a float32 exponent.
	e := uint32(113)
	for frac&0x400 == 0 {
		frac <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (frac&0x3ff)<<13)
}

// float32ToHalf narrows f to binary16 with round-to-nearest-even.
func float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	frac := b & 0x7fffff
	if exp == 0xff {
		if frac != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		m := frac | 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := m >> shift
		rem := m & (1<<shift - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | frac>>13
	rem := frac & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, giving infinity: correct
	}
	return sign | uint16(r)
}

// loader returns a function reading one element as float64, chosen once so
// that hot loops make no per-element type switch.
func (t numType) loader() func([]byte) float64 {
	le := t.order == binary.ByteOrder(binary.LittleEndian)
	switch {
	case le && t.kind == 'f' && t.size == 8:
		return func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
	case le && t.kind == 'f' && t.size == 4:
		return func(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }
	case le && t.kind == 'i' && t.size == 2:
		return func(b []byte) float64 { return float64(int16(binary.LittleEndian.Uint16(b))) }
	case le && t.kind == 'i' && t.size == 4:
		return func(b []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(b))) }
	case le && t.kind == 'u' && t.size == 2:
		return func(b []byte) float64 { return float64(binary.LittleEndian.Uint16(b)) }
	case t.kind == 'i' && t.size == 1:
		return func(b []byte) float64 { return float64(int8(b[0])) }
	case t.kind == 'u' && t.size == 1:
		return func(b []byte) float64 { return float64(b[0]) }
	}
	return t.float
}

// storer returns a function writing a float64 as one element (see putFloat).
func (t numType) storer() func([]byte, float64) {
	le := t.order == binary.ByteOrder(binary.LittleEndian)
	switch {
	case le && t.kind == 'f' && t.size == 8:
		return func(b []byte, f float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(f)) }
	case le && t.kind == 'f' && t.size == 4:
		return func(b []byte, f float64) { binary.LittleEndian.PutUint32(b, math.Float32bits(float32(f))) }
	}
	return t.putFloat
}
