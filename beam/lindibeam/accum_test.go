package lindibeam

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// reference computes the statistics of one column's values exactly, the
// plain way: big.Rat sums, one rounding.
func reference(vals []float64) (mean, std float64) {
	n := big.NewRat(int64(len(vals)), 1)
	sum, sq := new(big.Rat), new(big.Rat)
	for _, v := range vals {
		r := new(big.Rat).SetFloat64(v)
		sum.Add(sum, r)
		sq.Add(sq, new(big.Rat).Mul(r, r))
	}
	m := new(big.Rat).Quo(sum, n)
	mean, _ = m.Float64()
	v := new(big.Rat).Sub(new(big.Rat).Quo(sq, n), new(big.Rat).Mul(m, m))
	vf, _ := v.Float64()
	return mean, math.Sqrt(vf)
}

// splitRows computes partials of rows [a, b) of a rows×cols matrix and
// merges them in the order given.
func statsOf[T Integer | float32 | float64](t *testing.T, v []T, rows, cols int, cuts []int, partial func([]T, Layout) (Partial, error)) Summary {
	t.Helper()
	var parts []Partial
	all := make([]int, cols)
	for c := range all {
		all[c] = c
	}
	prev := 0
	for _, cut := range append(cuts, rows) {
		p, err := partial(v[prev*cols:cut*cols], Layout{Outer: cut - prev, Inner: 1, Cols: all})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
		prev = cut
	}
	// merge as a tree from the right, so that the order differs from the cuts'
	for len(parts) > 1 {
		m, err := Merge(parts[len(parts)-1], parts[len(parts)-2])
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts[:len(parts)-2], m)
	}
	st, err := Finish(parts[0], "x", []int{rows, cols}, all)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func jsonOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStatsSplitIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const rows, cols = 997, 3
	i16 := make([]int16, rows*cols)
	i64 := make([]int64, rows*cols)
	u64 := make([]uint64, rows*cols)
	f64 := make([]float64, rows*cols)
	for k := range i16 {
		i16[k] = int16(rng.Uint32())
		i64[k] = int64(rng.Uint64())
		u64[k] = rng.Uint64()
		f64[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
	}
	i16[5] = math.MinInt16
	i64[7] = math.MinInt64
	f64[0] = 5e-324
	for _, cuts := range [][]int{nil, {1}, {500}, {3, 10, 700, 996}} {
		cases := map[string]struct{ got, want Summary }{
			"int16":   {statsOf(t, i16, rows, cols, cuts, IntPartial[int16]), statsOf(t, i16, rows, cols, nil, IntPartial[int16])},
			"int64":   {statsOf(t, i64, rows, cols, cuts, IntPartial[int64]), statsOf(t, i64, rows, cols, nil, IntPartial[int64])},
			"uint64":  {statsOf(t, u64, rows, cols, cuts, IntPartial[uint64]), statsOf(t, u64, rows, cols, nil, IntPartial[uint64])},
			"float64": {statsOf(t, f64, rows, cols, cuts, FloatPartial[float64]), statsOf(t, f64, rows, cols, nil, FloatPartial[float64])},
		}
		for name, c := range cases {
			if g, w := jsonOf(t, c.got), jsonOf(t, c.want); g != w {
				t.Errorf("%s cut at %v: %s, whole: %s", name, cuts, g, w)
			}
		}
	}
	// against the plain exact computation, column by column
	st := statsOf(t, f64, rows, cols, []int{100}, FloatPartial[float64])
	st16 := statsOf(t, i16, rows, cols, []int{100}, IntPartial[int16])
	for c := range cols {
		var col, col16 []float64
		for r := range rows {
			col = append(col, f64[r*cols+c])
			col16 = append(col16, float64(i16[r*cols+c]))
		}
		for _, tc := range []struct {
			st  Summary
			col []float64
		}{{st, col}, {st16, col16}} {
			m, s := reference(tc.col)
			if tc.st.Mean[c].F != m || tc.st.Std[c].F != s || tc.st.Count[c] != rows {
				t.Errorf("column %d: mean %v std %v, want %v %v", c, tc.st.Mean[c].F, tc.st.Std[c].F, m, s)
			}
		}
	}
	if st16.Min[0].Int == nil || st16.Min[0].Int.Int64() != math.MinInt16 {
		t.Errorf("int16 min %v", st16.Min[0])
	}
}

func TestStatsNonFinite(t *testing.T) {
	v := []float64{1, 2, math.NaN(), math.Inf(1), 3, 4}
	st := statsOf(t, v, 3, 2, []int{1}, FloatPartial[float64])
	got := jsonOf(t, st)
	want := `{"dataset":"x","shape":[3,2],"count":[3,3],"mean":["NaN","Infinity"],"std":["NaN","NaN"],"min":["NaN",2],"max":["NaN","Infinity"]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// BenchmarkIntPartialInt16 reduces a chunk of int16 samples of 64 and of
// 384 channels, the hot loop of an ElectricalSeries (1.28 M elements).
func BenchmarkIntPartialInt16(b *testing.B) {
	for _, cols := range []int{64, 384} {
		b.Run(fmt.Sprintf("channels=%d", cols), func(b *testing.B) {
			rows := 20000 * 64 / cols
			v := make([]int16, rows*cols)
			r := rand.New(rand.NewPCG(1, 2))
			for i := range v {
				v[i] = int16(r.IntN(65536) - 32768)
			}
			all := make([]int, cols)
			for c := range all {
				all[c] = c
			}
			b.SetBytes(int64(2 * len(v)))
			for b.Loop() {
				if _, err := IntPartial(v, Layout{Outer: rows, Inner: 1, Cols: all}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
