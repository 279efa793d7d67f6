package lindibeam

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestInt16Tile: the statistics of int16 rows are the same with the CPU's
// faster tile (AVX2, where there is one) and without it, for column counts
// that it takes whole, in part and not at all, odd and even row counts, and
// the extremes (two rows of -32768 square to 2^31 in a 32-bit lane).
func TestInt16Tile(t *testing.T) {
	if int16Tile == nil {
		t.Skip("no faster int16 tile on this CPU")
	}
	fast := int16Tile
	defer func() { int16Tile = fast }()
	rng := rand.New(rand.NewPCG(7, 8))
	fills := map[string]func() int16{
		"random": func() int16 { return int16(rng.Uint32()) },
		"min":    func() int16 { return math.MinInt16 },
		"max":    func() int16 { return math.MaxInt16 },
		"edges": func() int16 {
			return []int16{math.MinInt16, math.MaxInt16, -1, 0, 1}[rng.IntN(5)]
		},
	}
	for _, cols := range []int{1, 15, 16, 17, 32, 48, 64, 100, 384} {
		for _, rows := range []int{1, 2, 3, 41, 42, 43, 1000, 70001} {
			if cols*rows > 3_000_000 {
				continue
			}
			for name, fill := range fills {
				v := make([]int16, rows*cols)
				for k := range v {
					v[k] = fill()
				}
				l := Layout{Outer: rows, Inner: 1, Cols: make([]int, cols)}
				for c := range l.Cols {
					l.Cols[c] = c
				}
				int16Tile = fast
				got, err := IntPartial(v, l)
				if err != nil {
					t.Fatal(err)
				}
				int16Tile = nil
				want, err := IntPartial(v, l)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
					t.Fatalf("%d×%d %s: with the fast tile\n%.300s\nwant\n%.300s", rows, cols, name, g, w)
				}
			}
		}
	}
}
