package index

import (
	"strconv"
	"strings"

	"github.com/lindigo/lindi/zarrmeta"
)

// pyFloat is a float64 that encodes as Python's json module writes a float,
// with repr's spelling: 30000.0, not Go's 30000. Readers tell a float from an
// integer by its spelling (Python lindi's attributes, zarrmeta.DecodeJSON),
// so a whole-number float written as Go writes it reads back as an integer.
type pyFloat float64

// MarshalJSON writes f as repr does; f must be finite (finite turns the
// others into lindi's strings first).
func (f pyFloat) MarshalJSON() ([]byte, error) {
	return []byte(repr(float64(f))), nil
}

// repr formats x as Python's repr: the shortest digits that read back as x,
// positional for decimal exponents from -4 to 15 (with ".0" when integral),
// scientific otherwise (1e-05, 1.5e+20).
func repr(x float64) string {
	e := strconv.FormatFloat(x, 'e', -1, 64) // d.ddde±XX: Python's exponent form too
	mant, exp, _ := strings.Cut(e, "e")
	if n, _ := strconv.Atoi(exp); n < -4 || n >= 16 {
		return mant + "e" + exp
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// finite is a float as lindi writes it in JSON: NaN and the infinities as
// the strings "NaN", "Infinity" and "-Infinity", others as repr spells them.
func finite(x float64) any {
	if s := zarrmeta.NonFiniteName(x); s != "" {
		return s
	}
	return pyFloat(x)
}
