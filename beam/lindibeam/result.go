package lindibeam

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// Summary is the statistics of a selection of a dataset, a value per column
// (the selection's positions on the dataset's axis 1, in its order; a 1-D
// dataset, or an index on axis 1, is one column), as lindi-beam stats writes
// them. Mean is exactly rounded from the exact sum; Std (population, ddof 0)
// is the square root of the exactly rounded variance. Min and Max are
// integers for integer data. Float data with a NaN has NaN statistics but
// Count, as numpy's; NaN and infinities are written "NaN", "Infinity",
// "-Infinity".
type Summary struct {
	Dataset string   `json:"dataset"`
	Shape   []int    `json:"shape"`
	Count   []int64  `json:"count"`
	Mean    []Number `json:"mean"`
	Std     []Number `json:"std"`
	Min     []Number `json:"min"`
	Max     []Number `json:"max"`
}

// Number is a statistic: a float, or an exact integer (a minimum or maximum
// of integer data) when Int is set.
type Number struct {
	F   float64
	Int *big.Int
}

// MarshalJSON writes an integer as one, a finite float as Go formats it
// (shortest repr) and a non-finite one as a string.
func (n Number) MarshalJSON() ([]byte, error) {
	switch {
	case n.Int != nil:
		return []byte(n.Int.String()), nil
	case math.IsNaN(n.F):
		return []byte(`"NaN"`), nil
	case math.IsInf(n.F, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(n.F, -1):
		return []byte(`"-Infinity"`), nil
	}
	return strconv.AppendFloat(nil, n.F, 'g', -1, 64), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *Number) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "NaN":
			*n = Number{F: math.NaN()}
		case "Infinity":
			*n = Number{F: math.Inf(1)}
		case "-Infinity":
			*n = Number{F: math.Inf(-1)}
		default:
			return fmt.Errorf("lindibeam: statistic %q", s)
		}
		return nil
	}
	if i, ok := new(big.Int).SetString(string(b), 10); ok {
		*n = Number{Int: i, F: float64(i.Int64())}
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("lindibeam: statistic %s: %w", b, err)
	}
	*n = Number{F: f}
	return nil
}

// Float returns the statistic as a float64 (an integer rounded).
func (n Number) Float() float64 {
	if n.Int != nil {
		f, _ := new(big.Float).SetInt(n.Int).Float64()
		return f
	}
	return n.F
}

// Finish turns the merged statistics p into a Summary for the columns cols (the
// dataset's indices, in output order, repeats allowed), reading each from p.
func Finish(p Partial, dataset string, shape, cols []int) (Summary, error) {
	st := Summary{Dataset: dataset, Shape: shape}
	for _, col := range cols {
		var c *Column
		for i, k := range p.Cols {
			if k == col {
				c = &p.Stats[i]
				break
			}
		}
		if c == nil {
			c = &Column{Sum: new(big.Int), Sum2: new(big.Int), MinF: math.NaN(), MaxF: math.NaN()}
		}
		mean, std, lo, hi := finishColumn(c, p.Float)
		st.Count = append(st.Count, c.N)
		st.Mean, st.Std = append(st.Mean, mean), append(st.Std, std)
		st.Min, st.Max = append(st.Min, lo), append(st.Max, hi)
	}
	return st, nil
}

func finishColumn(c *Column, float bool) (mean, std, lo, hi Number) {
	nan := Number{F: math.NaN()}
	finite := c.N - c.NaN - c.PosInf - c.NegInf
	if c.N == 0 {
		return nan, nan, nan, nan
	}
	if !float {
		lo, hi = Number{Int: c.MinI}, Number{Int: c.MaxI}
	} else {
		lo, hi = Number{F: c.MinF}, Number{F: c.MaxF}
	}
	switch {
	case c.NaN > 0 || c.PosInf > 0 && c.NegInf > 0:
		return nan, nan, nan, nan
	case c.PosInf > 0:
		return Number{F: math.Inf(1)}, nan, lo, hi
	case c.NegInf > 0:
		return Number{F: math.Inf(-1)}, nan, lo, hi
	}
	n := big.NewInt(finite)
	var s1, s2 uint // the units of Sum and Sum2: 2^-s1, 2^-s2
	if float {
		s1, s2 = floatScale, squareScale
	}
	// mean = Sum / (n 2^s1)
	m := new(big.Rat).SetFrac(c.Sum, new(big.Int).Lsh(n, s1))
	mf, _ := m.Float64()
	// variance = (n Sum2 − Sum²) / (n² 2^s2); Sum² is in units of 2^-2·s1 = 2^-s2.
	num := new(big.Int).Mul(n, c.Sum2)
	num.Sub(num, new(big.Int).Mul(c.Sum, c.Sum))
	den := new(big.Int).Lsh(new(big.Int).Mul(n, n), s2)
	v, _ := new(big.Rat).SetFrac(num, den).Float64()
	return Number{F: mf}, Number{F: math.Sqrt(v)}, lo, hi
}
