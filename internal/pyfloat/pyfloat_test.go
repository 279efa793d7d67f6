package pyfloat

import (
	"math"
	"strconv"
	"testing"
)

// TestRepr checks Python's repr of floats (python3 -c 'print(repr(x))') and
// numpy's of float32 scalars.
func TestRepr(t *testing.T) {
	for _, c := range []struct {
		x    float64
		bits int
		want string
	}{
		{0, 64, "0.0"}, {math.Copysign(0, -1), 64, "-0.0"}, {30000, 64, "30000.0"}, {1, 64, "1.0"},
		{0.0001, 64, "0.0001"}, {0.00001, 64, "1e-05"}, {1.5e20, 64, "1.5e+20"}, {1e16, 64, "1e+16"},
		{1e15, 64, "1000000000000000.0"}, {123456789012345678, 64, "1.2345678901234568e+17"},
		{0.1, 64, "0.1"}, {-2.5, 64, "-2.5"}, {1e-300, 64, "1e-300"}, {1.7976931348623157e308, 64, "1.7976931348623157e+308"},
		{5e-324, 64, "5e-324"}, {float64(float32(0.1)), 32, "0.1"}, {float64(float32(1e-7)), 32, "1e-07"},
		{float64(float32(16777216)), 32, "16777216.0"}, {2.0 / 3, 64, "0.6666666666666666"},
		{123456789012345, 64, "123456789012345.0"}, {9999999999999998, 64, "9999999999999998.0"},
		{-2.5e-7, 64, "-2.5e-07"}, {float64(float32(0.1)), 64, "0.10000000149011612"}, {1e-310, 64, "1e-310"},
	} {
		if got := Repr(c.x, c.bits); got != c.want {
			t.Errorf("Repr(%v, %d) = %q, want %q", c.x, c.bits, got, c.want)
		}
		if got := string(Append([]byte("x"), c.x, c.bits)); got != "x"+c.want {
			t.Errorf("Append(%v) = %q", c.x, got)
		}
		if back, err := strconv.ParseFloat(c.want, c.bits); err != nil || back != c.x {
			t.Errorf("%q does not read back as %v", c.want, c.x)
		}
	}
}
