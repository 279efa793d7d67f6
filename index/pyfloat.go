package index

import (
	"github.com/lindigo/lindi/internal/pyfloat"
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
	return pyfloat.Append(nil, float64(f), 64), nil
}

// finite is a float as lindi writes it in JSON: NaN and the infinities as
// the strings "NaN", "Infinity" and "-Infinity", others as repr spells them.
func finite(x float64) any {
	if s := zarrmeta.NonFiniteName(x); s != "" {
		return s
	}
	return pyFloat(x)
}
