package selection

import (
	"errors"
	"slices"
	"testing"
)

// elements lists the array positions a resolved selection takes, as flat C
// order indices of the array, sorted and each once.
func elements(t *testing.T, r *Resolved) []int {
	t.Helper()
	shape := r.ArrayShape()
	flat := []int{0}
	for d, n := range shape {
		pos, err := r.Positions(d)
		if err != nil {
			t.Fatal(err)
		}
		var next []int
		for _, f := range flat {
			for _, p := range pos {
				next = append(next, f*n+p)
			}
		}
		flat = next
	}
	slices.Sort(flat)
	return slices.Compact(flat)
}

// TestPart checks that the part of every block of touched chunks selects
// exactly the selected elements in those chunks.
func TestPart(t *testing.T) {
	cases := []struct {
		sel           string
		shape, chunks []int
	}{
		{":", []int{10}, []int{3}},
		{"1:9:2", []int{10}, []int{3}},
		{"::-3", []int{10}, []int{3}},
		{"::7", []int{20}, []int{3}},
		{"[7, 1, 1, 8, 2]", []int{10}, []int{3}},
		{"2:9, 4", []int{10, 6}, []int{4, 4}},
		{"::-1, [5, 0, 2]", []int{10, 6}, []int{4, 4}},
		{"[True, False, True, True], 1:6:2, :", []int{4, 6, 5}, []int{2, 3, 2}},
	}
	for _, c := range cases {
		t.Run(c.sel, func(t *testing.T) {
			s, err := Parse(c.sel)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Resolve(c.shape)
			if err != nil {
				t.Fatal(err)
			}
			p, err := r.Plan(c.chunks)
			if err != nil {
				t.Fatal(err)
			}
			grid := p.Grid()
			// coords[d][k]: the chunk coordinate of grid position k on axis d.
			coords := make([][]int, len(grid))
			n := 0
			for cp := range p.Chunks() {
				for d := range grid {
					if !slices.Contains(coords[d], cp.Coords[d]) {
						coords[d] = append(coords[d], cp.Coords[d])
					}
				}
				n++
			}
			if prod(grid) != n {
				t.Fatalf("Grid %v, Chunks yields %d", grid, n)
			}
			all := elements(t, r)
			for _, b := range blocks(grid) {
				part, err := p.Part(b[0], b[1])
				if err != nil {
					t.Fatal(err)
				}
				pr, err := part.Resolve(c.shape)
				if err != nil {
					t.Fatalf("block %v: part %s: %v", b, part, err)
				}
				var want []int
				for _, e := range all {
					if inBlock(e, c.shape, c.chunks, coords, b) {
						want = append(want, e)
					}
				}
				if got := elements(t, pr); !slices.Equal(got, want) {
					t.Errorf("block %v: part %s selects %v, want %v", b, part, got, want)
				}
			}
		})
	}
}

func prod(v []int) int {
	n := 1
	for _, x := range v {
		n *= x
	}
	return n
}

// blocks lists every block of the grid: each range [lo, hi) on each axis.
func blocks(grid []int) [][2][]int {
	out := [][2][]int{{nil, nil}}
	for _, g := range grid {
		var next [][2][]int
		for _, b := range out {
			for lo := range g {
				for hi := lo + 1; hi <= g; hi++ {
					next = append(next, [2][]int{append(slices.Clone(b[0]), lo), append(slices.Clone(b[1]), hi)})
				}
			}
		}
		out = next
	}
	return out
}

// inBlock reports whether flat element e lies in a chunk of block b.
func inBlock(e int, shape, chunks []int, coords [][]int, b [2][]int) bool {
	for d := len(shape) - 1; d >= 0; d-- {
		c := (e % shape[d]) / chunks[d]
		e /= shape[d]
		if !slices.Contains(coords[d][b[0][d]:b[1][d]], c) {
			return false
		}
	}
	return true
}

func TestPartInvalid(t *testing.T) {
	p := planOf(t, ":, :", []int{10, 6}, []int{4, 4})
	for _, b := range [][2][]int{
		{{0}, {1}},
		{{0, 0}, {0, 1}},
		{{0, 0}, {4, 1}},
		{{-1, 0}, {1, 1}},
	} {
		if _, err := p.Part(b[0], b[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("Part(%v, %v): %v, want ErrInvalid", b[0], b[1], err)
		}
	}
	r, _ := Selection{}.Resolve([]int{3})
	if _, err := r.Positions(1); !errors.Is(err, ErrInvalid) {
		t.Errorf("Positions(1) of a 1-d array: %v", err)
	}
}

// TestCount: Count is the length of Positions on every axis, for slices,
// steps, reversed steps, integers and lists, and refuses an axis the array
// lacks.
func TestCount(t *testing.T) {
	shape := []int{20, 7, 5}
	for _, s := range []string{":", "3", "2:17:3, ::-2", "[4, 1, 1, 9], 6, 1:4", "::-1, [0, 6], -1", "5:5"} {
		sel, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sel.Resolve(shape)
		if err != nil {
			t.Fatal(err)
		}
		for d := range shape {
			pos, err := r.Positions(d)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := r.Count(d); err != nil || n != len(pos) {
				t.Errorf("%q axis %d: Count %d, %v; want %d", s, d, n, err, len(pos))
			}
		}
		if _, err := r.Count(3); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: Count(3) of a 3-d array: %v", s, err)
		}
	}
}
