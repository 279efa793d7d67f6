// Package pyfloat spells floats as Python's repr does, which is also how
// Python's json module and numpy's scalars write them: the shortest digits
// that read back exactly, positional for decimal exponents from -4 to 15
// (with ".0" when integral, so that a reader still sees a float), else
// scientific with a sign and at least two exponent digits: 30000.0, 0.0001,
// 1e-05, 1.5e+20, -0.0. The index, the Zarr attribute encoder, the json2
// codec and the lindi command all write floats so; this is the one copy.
package pyfloat

import "strconv"

// Append appends repr(x) to dst. x must be finite (callers spell NaN and the
// infinities as their format wants). bits is 64, or 32 for a float32, whose
// shortest digits are fewer (numpy's repr of a float32 scalar).
func Append(dst []byte, x float64, bits int) []byte {
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], x, 'e', -1, bits) // [-]d[.ddd]e±XX, Python's exponent form too
	exp, i := 0, len(e)-1
	for scale := 1; e[i] >= '0' && e[i] <= '9'; i, scale = i-1, scale*10 {
		exp += int(e[i]-'0') * scale
	}
	if e[i] == '-' {
		exp = -exp
	}
	if exp < -4 || exp >= 16 {
		return append(dst, e...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, x, 'f', -1, bits)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

// Repr returns repr(x) (see Append).
func Repr(x float64, bits int) string {
	var buf [32]byte
	return string(Append(buf[:0], x, bits))
}
