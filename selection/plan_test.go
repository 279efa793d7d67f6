package selection

import (
	"fmt"
	"strings"
	"testing"
)

type run struct{ src, dst, n int }

// planOf parses, resolves and plans, failing the test on any error.
func planOf(t *testing.T, sel string, shape, chunks []int) *Plan {
	t.Helper()
	s, err := Parse(sel)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(shape)
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Plan(chunks)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// describe renders every chunk of a plan as "coords:runs:contiguous".
func describe(p *Plan) string {
	var parts []string
	for cp := range p.Chunks() {
		var runs []run
		cp.Runs(func(src, dst, n int) bool {
			runs = append(runs, run{src, dst, n})
			return true
		})
		c := "-"
		if dst, ok := cp.Contiguous(); ok {
			c = fmt.Sprint(dst)
		}
		parts = append(parts, fmt.Sprintf("%v:%v:%s", cp.Coords, runs, c))
	}
	return strings.Join(parts, " ")
}

// The expected runs were worked out by hand.
func TestPlanRuns(t *testing.T) {
	tests := []struct {
		sel    string
		shape  []int
		chunks []int
		want   string
	}{
		{"2:6, :", []int{6, 4}, []int{2, 4}, "[1 0]:[{0 0 8}]:0 [2 0]:[{0 8 8}]:8"},
		{"1:5", []int{6, 4}, []int{2, 4}, "[0 0]:[{4 0 4}]:- [1 0]:[{0 4 8}]:4 [2 0]:[{0 12 4}]:-"},
		{"::-1, 0", []int{4, 4}, []int{2, 4}, "[0 0]:[{0 3 1} {4 2 1}]:- [1 0]:[{0 1 1} {4 0 1}]:-"},
		{"()", []int{5, 4}, []int{2, 4}, "[0 0]:[{0 0 8}]:0 [1 0]:[{0 8 8}]:8 [2 0]:[{0 16 4}]:-"},
		{"()", []int{4, 4}, []int{2, 2}, "[0 0]:[{0 0 2} {2 4 2}]:- [0 1]:[{0 2 2} {2 6 2}]:- " +
			"[1 0]:[{0 8 2} {2 12 2}]:- [1 1]:[{0 10 2} {2 14 2}]:-"},
		{":, 1:3, :", []int{2, 5, 10}, []int{1, 1, 10}, "[0 1 0]:[{0 0 10}]:0 [0 2 0]:[{0 10 10}]:10 " +
			"[1 1 0]:[{0 20 10}]:20 [1 2 0]:[{0 30 10}]:30"},
		{"[2, 0, 2], 1:3", []int{3, 4}, []int{3, 4}, "[0 0]:[{9 0 2} {1 2 2} {9 4 2}]:-"},
		{"[0, 1, 2, 5, 6, 3]", []int{8}, []int{8}, "[0]:[{0 0 3} {5 3 2} {3 5 1}]:-"},
		{"[5, 0, 6, 1]", []int{8}, []int{4}, "[0]:[{0 1 1} {1 3 1}]:- [1]:[{1 0 1} {2 2 1}]:-"},
		{"[True, True, False, True]", []int{4}, []int{2}, "[0]:[{0 0 2}]:0 [1]:[{1 2 1}]:-"},
		{"::3", []int{10}, []int{2}, "[0]:[{0 0 1}]:- [1]:[{1 1 1}]:- [3]:[{0 2 1}]:- [4]:[{1 3 1}]:-"},
		{"7:0:-3", []int{10}, []int{4}, "[0]:[{1 2 1}]:- [1]:[{0 1 1} {3 0 1}]:-"},
		{"1, 1", []int{3, 3}, []int{3, 3}, "[0 0]:[{4 0 1}]:-"},
		{"0, :", []int{1, 6}, []int{1, 3}, "[0 0]:[{0 0 3}]:0 [0 1]:[{0 3 3}]:3"},
		{"()", []int{}, []int{}, "[]:[{0 0 1}]:0"},
		{"2:2", []int{4}, []int{2}, ""},
		{":, []", []int{4, 4}, []int{2, 2}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.sel+fmt.Sprint(tt.shape, tt.chunks), func(t *testing.T) {
			if got := describe(planOf(t, tt.sel, tt.shape, tt.chunks)); got != tt.want {
				t.Fatalf("plan\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestAxisPlan(t *testing.T) {
	p := planOf(t, "1:3, [7, 2, 5], ::-2", []int{10, 10, 5}, []int{5, 5, 5})
	var got []string
	for cp := range p.Chunks() {
		var axes []string
		for d := range cp.Axes {
			a := &cp.Axes[d]
			var pos []string
			for i := range a.Len() {
				pos = append(pos, fmt.Sprintf("%d>%d", a.Src(i), a.Dst(i)))
			}
			axes = append(axes, strings.Join(pos, ","))
		}
		lo, hi := cp.Span()
		got = append(got, fmt.Sprintf("%v %s [%d,%d)", cp.Coords, strings.Join(axes, " "), lo, hi))
	}
	want := []string{
		"[0 0 0] 1>0,2>1 2>1 0>2,2>1,4>0 [35,65)", // rows 1-2, column 2, depth 0-4
		"[0 1 0] 1>0,2>1 2>0,0>2 0>2,2>1,4>0 [25,65)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRunsStop(t *testing.T) {
	p := planOf(t, "::2, ::2", []int{8, 8}, []int{8, 8})
	for cp := range p.Chunks() {
		calls := 0
		cp.Runs(func(src, dst, n int) bool {
			calls++
			return calls < 3
		})
		if calls != 3 {
			t.Fatalf("Runs went on after yield returned false: %d calls", calls)
		}
	}
	n := 0
	for range p.Chunks() {
		n++
		break
	}
	if n != 1 {
		t.Fatal("Chunks went on after break")
	}
}

// The expected blocks were worked out by hand.
func TestPlanBlocks(t *testing.T) {
	tests := []struct {
		sel    string
		shape  []int
		chunks []int
		want   string
	}{
		{":, 5", []int{6, 8}, []int{3, 8}, "[0 0]:[{5 0 1 3 8 1}] [1 0]:[{5 3 1 3 8 1}]"},
		{"1:3, ::4", []int{6, 8}, []int{6, 8}, "[0 0]:[{8 0 1 2 4 1} {16 2 1 2 4 1}]"},
		{"::-1, 2:4", []int{3, 8}, []int{3, 8}, "[0 0]:[{2 4 2 3 8 -2}]"},
		{"[2, 0], 2:4", []int{3, 8}, []int{3, 8}, "[0 0]:[{2 2 2 2 16 -2}]"},
		{"[2, 0, 1], 2:4", []int{3, 8}, []int{3, 8}, "[0 0]:[{18 0 2 1 0 0} {2 2 2 1 0 0} {10 4 2 1 0 0}]"},
		{"()", []int{4, 2}, []int{2, 2}, "[0 0]:[{0 0 4 1 0 0}] [1 0]:[{0 4 4 1 0 0}]"},
		{"..., 1", []int{2, 2, 3}, []int{2, 2, 3}, "[0 0 0]:[{1 0 1 2 3 1} {7 2 1 2 3 1}]"},
	}
	for _, tt := range tests {
		t.Run(tt.sel+fmt.Sprint(tt.shape, tt.chunks), func(t *testing.T) {
			var parts []string
			for cp := range planOf(t, tt.sel, tt.shape, tt.chunks).Chunks() {
				var blocks []Block
				cp.Blocks(func(b Block) bool {
					blocks = append(blocks, b)
					return true
				})
				parts = append(parts, fmt.Sprintf("%v:%v", cp.Coords, blocks))
			}
			if got := strings.Join(parts, " "); got != tt.want {
				t.Fatalf("blocks\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}
