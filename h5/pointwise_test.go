package h5_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// at gives element idx of a C-order array of the given shape.
func at(data []float64, shape, idx []int) float64 {
	off := 0
	for d, i := range idx {
		off = off*shape[d] + i
	}
	return data[off]
}

// TestNumpySelections reads newaxis, vindex (index arrays broadcast
// together) and N-d masks, and checks them against the whole array indexed
// by numpy's rules, on both forms of a file.
func TestNumpySelections(t *testing.T) {
	ctx := context.Background()
	const ds = "acquisition/TwoPhotonSeries/data" // (37, 64, 48), chunked
	for _, name := range []string{"fixture.h5", "fixture.lindi.json"} {
		f, err := h5.Open(ctx, filepath.Join("..", "testdata", "conformance", name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		d, err := f.Dataset(ctx, ds)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := h5.Read[float64](ctx, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		shape := d.Shape()
		el := func(i, j, k int) float64 { return at(whole.Data, shape, []int{i, j, k}) }
		var mask []bool // a 37×64 mask: true where (i*7+j) % 11 == 0
		var maskPts [][2]int
		for i := range 37 {
			for j := range 64 {
				m := (i*7+j)%11 == 0
				mask = append(mask, m)
				if m {
					maskPts = append(maskPts, [2]int{i, j})
				}
			}
		}
		cases := []struct {
			text  string
			sel   selection.Selection
			shape []int
			want  func(out []int) float64 // the element at output position out
		}{
			{"None, 0:2, newaxis, 5", nil, []int{1, 2, 1, 48},
				func(o []int) float64 { return el(o[1], 5, o[3]) }},
			{"vindex([0, 36, -1, 3], [1, 63, 0, 1], [2, 2, 47, 40])", nil, []int{4},
				func(o []int) float64 {
					p := [][3]int{{0, 1, 2}, {36, 63, 2}, {36, 0, 47}, {3, 1, 40}}[o[0]]
					return el(p[0], p[1], p[2])
				}},
			{"1:3, vindex([5, 60, 5], [0])", nil, []int{2, 3},
				func(o []int) float64 { return el(1+o[0], []int{5, 60, 5}[o[1]], 0) }},
			{"vindex([4, 30], [10, 50]), ::-20", nil, []int{2, 3},
				func(o []int) float64 {
					p := [][2]int{{4, 10}, {30, 50}}[o[0]]
					return el(p[0], p[1], 47-20*o[1])
				}},
			{"", selection.Selection{selection.MaskND([]int{37, 64}, mask), selection.Slice(1, 4, 1)}, []int{len(maskPts), 3},
				func(o []int) float64 { p := maskPts[o[0]]; return el(p[0], p[1], 1+o[1]) }},
			{"vindex([], [])", nil, []int{0, 48}, nil},
		}
		for _, c := range cases {
			sel := c.sel
			if c.text != "" {
				if sel, err = selection.Parse(c.text); err != nil {
					t.Fatal(err)
				}
			}
			t.Run(name+"/"+sel.String()[:min(40, len(sel.String()))], func(t *testing.T) {
				a, err := h5.Read[float64](ctx, d, sel)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(a.Shape, c.shape) {
					t.Fatalf("shape %v, want %v", a.Shape, c.shape)
				}
				idx := make([]int, len(c.shape))
				for n, v := range a.Data {
					for dd, r := len(idx)-1, n; dd >= 0; dd-- {
						idx[dd], r = r%c.shape[dd], r/c.shape[dd]
					}
					if w := c.want(idx); v != w {
						t.Fatalf("element %v = %v, want %v", idx, v, w)
					}
				}
			})
		}
		for _, bad := range []string{
			"vindex([0, 1], [1, 2, 3])",          // do not broadcast
			"vindex([0], [1]), vindex([0], [1])", // two pointwise items
			"[[True, False], [False, True]]",     // mask shape differs from the axes
			"vindex([0], [64])",                  // out of range
		} {
			sel, err := selection.Parse(bad)
			if err != nil {
				t.Fatalf("%s: %v", bad, err)
			}
			if _, err := d.Read(ctx, sel); !errors.Is(err, selection.ErrInvalid) && !errors.Is(err, selection.ErrOutOfRange) {
				t.Errorf("%s: err = %v, want ErrInvalid or ErrOutOfRange", bad, err)
			}
		}
	}
}
