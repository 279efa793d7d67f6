package zarrmeta

import "math"

// float16Bits converts f to IEEE 754 half precision with round-half-to-even,
// reporting false when a finite f is too large for float16.
func float16Bits(f float64) (uint16, bool) {
	bits := math.Float64bits(f)
	sign := uint16(bits>>48) & 0x8000
	exp := int(bits>>52) & 0x7ff
	mant := bits & (1<<52 - 1)
	switch {
	case exp == 0x7ff && mant != 0:
		return 0x7e00, true
	case exp == 0x7ff:
		return sign | 0x7c00, true
	}
	e := exp - 1023 + 15
	if e <= 0 {
		// Subnormal (or zero) in half precision: shift in the implicit bit.
		if e < -10 {
			return sign, true
		}
		m := roundShift(mant|1<<52, uint(42+1-e))
		return sign | uint16(m), true // m == 0x400 correctly yields the smallest normal
	}
	m := roundShift(mant, 42)
	if m == 1<<10 {
		m, e = 0, e+1
	}
	if e >= 31 {
		return 0, false
	}
	return sign | uint16(e)<<10 | uint16(m), true
}

// Float16 converts an IEEE 754 half-precision value (numpy's float16, HDF5's
// 2-byte float) to float64, exactly.
func Float16(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}
