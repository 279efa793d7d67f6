package selection

import (
	"bufio"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Expected values are flat C-order offsets into the array, worked out by
// hand for a 3×4 array holding 0…11 (so each offset is the element's value).
func TestResolveNumpy(t *testing.T) {
	tests := []struct {
		sel   string
		shape []int
		out   []int
		src   []int
	}{
		{"()", []int{3, 4}, []int{3, 4}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{"...", []int{3, 4}, []int{3, 4}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{"1", []int{3, 4}, []int{4}, []int{4, 5, 6, 7}},
		{"-1, ...", []int{3, 4}, []int{4}, []int{8, 9, 10, 11}},
		{"..., 0", []int{3, 4}, []int{3}, []int{0, 4, 8}},
		{":, -1", []int{3, 4}, []int{3}, []int{3, 7, 11}},
		{"1, 2", []int{3, 4}, []int{}, []int{6}},
		{"::-1, 1", []int{3, 4}, []int{3}, []int{9, 5, 1}},
		{"1:, ::2", []int{3, 4}, []int{2, 2}, []int{4, 6, 8, 10}},
		{"[2, 0, 2], 1:3", []int{3, 4}, []int{3, 2}, []int{9, 10, 1, 2, 9, 10}},
		{"[True, False, True], ::-2", []int{3, 4}, []int{2, 2}, []int{3, 1, 11, 9}},
		{"[0, 2], [1, 3]", []int{3, 4}, []int{2, 2}, []int{1, 3, 9, 11}}, // orthogonal, not numpy's [1, 11]
		{"[-1], [-4]", []int{3, 4}, []int{1, 1}, []int{8}},
		{"[], :", []int{3, 4}, []int{0, 4}, nil},
		{"5:1", []int{3, 4}, []int{0, 4}, nil},
		{"-100:100, -100:2", []int{3, 4}, []int{3, 2}, []int{0, 1, 4, 5, 8, 9}},
		{"10::-1, 0", []int{3, 4}, []int{3}, []int{8, 4, 0}},
		{"1:-10:-1, 0", []int{3, 4}, []int{2}, []int{4, 0}},
		{"::-5, 0", []int{3, 4}, []int{1}, []int{8}},
		{"0, 9223372036854775807::-1", []int{3, 4}, []int{4}, []int{3, 2, 1, 0}},
		{"0, -9223372036854775807:", []int{3, 4}, []int{4}, []int{0, 1, 2, 3}},
		{"0, ::9223372036854775807", []int{3, 4}, []int{1}, []int{0}},
		{"0, ::-9223372036854775807", []int{3, 4}, []int{1}, []int{3}},
		{"()", []int{}, []int{}, []int{0}},
		{"...", []int{}, []int{}, []int{0}},
		{":, -3:", []int{0, 5}, []int{0, 3}, nil},
		{":, -5", []int{0, 5}, []int{0}, nil},
		{"0, 1, 2", []int{2, 3, 4}, []int{}, []int{6}},
		{"..., 1, :", []int{2, 3, 4}, []int{2, 4}, []int{4, 5, 6, 7, 16, 17, 18, 19}},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			sel, err := Parse(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sel.Resolve(tt.shape)
			if err != nil {
				t.Fatal(err)
			}
			if !equalInts(r.Shape(), tt.out) || r.Len() != len(tt.src) {
				t.Fatalf("shape %v len %d, want %v len %d", r.Shape(), r.Len(), tt.out, len(tt.src))
			}
			for _, chunks := range chunkShapesFor(tt.shape) {
				checkPlan(t, r, tt.src, tt.shape, chunks)
			}
			checkAgainstRef(t, sel, tt.shape)
		})
	}
}

// chunkShapesFor returns a few chunk shapes for the array: whole, one
// element, and uneven ones that leave edge chunks.
func chunkShapesFor(shape []int) [][]int {
	var out [][]int
	for _, f := range []func(int) int{
		func(n int) int { return max(n, 1) },
		func(int) int { return 1 },
		func(n int) int { return max(n/2, 1) },
		func(n int) int { return max(n-1, 1) },
		func(n int) int { return n + 3 },
	} {
		c := make([]int, len(shape))
		for d, n := range shape {
			c[d] = f(n)
		}
		out = append(out, c)
	}
	return out
}

func TestResolveErrors(t *testing.T) {
	tests := []struct {
		sel   Selection
		shape []int
		want  error
		msg   string
	}{
		{Selection{Index(3), Index(0)}, []int{3, 4}, ErrOutOfRange, "index 3 is out of bounds for axis 0 with size 3"},
		{Selection{Index(0), Index(-5)}, []int{3, 4}, ErrOutOfRange, "index -5 is out of bounds for axis 1 with size 4"},
		{Selection{Index(0), Index(0), Index(0)}, []int{3, 4}, ErrInvalid, "too many indices: 3 given for a 2-d array"},
		{Selection{Index(0)}, []int{}, ErrInvalid, "too many indices: 1 given for a 0-d array"},
		{Selection{Ellipsis(), Ellipsis()}, []int{3, 4}, ErrInvalid, "more than one ellipsis"},
		{Selection{Slice(0, 3, 0)}, []int{3, 4}, ErrInvalid, "slice step cannot be zero (axis 0)"},
		{Selection{All(), Slice(None, None, 0)}, []int{3, 4}, ErrInvalid, "slice step cannot be zero (axis 1)"},
		{Selection{Mask(true)}, []int{3, 4}, ErrInvalid, "mask of length 1 for axis 0 with size 3"},
		{Selection{All(), List(0, 4)}, []int{3, 4}, ErrOutOfRange, "index 4 is out of bounds for axis 1 with size 4 (list entry 1)"},
		{Selection{List(-4)}, []int{3, 4}, ErrOutOfRange, "index -4 is out of bounds for axis 0 with size 3 (list entry 0)"},
		{Selection{Index(math.MinInt)}, []int{3}, ErrOutOfRange, "out of bounds for axis 0"},
		{Selection{}, []int{3, -1}, ErrInvalid, "negative size -1 for axis 1"},
		{Selection{}, []int{1 << 32, 1 << 32}, ErrTooLarge, "more elements than an int can count"},
		{Selection{Index(0), Ellipsis(), All(), Index(0)}, []int{1 << 32, 1 << 32}, ErrInvalid, "too many indices"},
		{Selection{Index(0), Index(0), Index(0)}, []int{0, 1}, ErrInvalid, "too many"},
		{Selection{Index(0)}, []int{0, 1}, ErrOutOfRange, "index 0 is out of bounds for axis 0 with size 0"},
	}
	for _, tt := range tests {
		t.Run(tt.sel.String(), func(t *testing.T) {
			_, err := tt.sel.Resolve(tt.shape)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error %q does not say %q", err, tt.msg)
			}
		})
	}
}

// TestResolveSlicesPython checks every slice of slices.txt, which Python's
// own list slicing produced, through Resolve, Plan and the reference.
func TestResolveSlicesPython(t *testing.T) {
	f, err := os.Open("testdata/slices.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		head, tail, _ := strings.Cut(line, ":")
		fs := strings.Fields(head)
		size := atoi(t, fs[0])
		start, stop, step := atoi(t, fs[1]), atoi(t, fs[2]), atoi(t, fs[3])
		want := []int{}
		for _, v := range strings.Fields(tail) {
			want = append(want, atoi(t, v))
		}
		sel := Selection{Slice(start, stop, step)}
		refStep := step
		if refStep == None {
			refStep = 1
		}
		if got := refSlice(start, stop, refStep, size); !equalInts(got, want) {
			t.Fatalf("%s: reference gives %v", line, got)
		}
		r, err := sel.Resolve([]int{size})
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if !equalInts(r.Shape(), []int{len(want)}) {
			t.Fatalf("%s: shape %v", line, r.Shape())
		}
		for _, c := range []int{1, 2, 3, 8} {
			checkPlan(t, r, want, []int{size}, []int{c})
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 10000 {
		t.Fatalf("only %d slices read", n)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	if s == "None" {
		return None
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestResolveListsAndMasks(t *testing.T) {
	shape := []int{7, 5}
	tests := []Selection{
		{List(6, 0, 3, 3, -1), All()},
		{List(1, 2, 3, 4), List(4, 3, 2, 1)},
		{List(0, 2, 4, 6), Slice(None, None, -2)},
		{List(5, 1), Index(-2)},
		{Mask(true, true, false, true, true, false, true), List(0, 0)},
		{Mask(false, false, false, false, false, false, false)},
		{Mask(true, false, true, false, true, false, true), Mask(true, true, true, true, true)},
		{All(), List(1, 2, 4, 3)},
		{Ellipsis(), List(0)},
		{List(2), Slice(1, None, 1)},
	}
	for _, sel := range tests {
		t.Run(sel.String(), func(t *testing.T) {
			checkAgainstRef(t, sel, shape, chunkShapesFor(shape)...)
			checkAgainstRef(t, sel, shape, []int{3, 2}, []int{2, 5}, []int{7, 1})
		})
	}
}

func TestWhole(t *testing.T) {
	tests := []struct {
		sel   string
		shape []int
		want  bool
	}{
		{"()", []int{3, 4}, true},
		{"..., :", []int{3, 4}, true},
		{"0:3, 0:10", []int{3, 4}, true},
		{"0", []int{1, 4}, true},
		{"[0, 1, 2]", []int{3, 4}, true},
		{"::-1", []int{3, 4}, false},
		{"1:", []int{3, 4}, false},
		{":, ::2", []int{3, 4}, false},
		{"[0, 0, 1, 2]", []int{3, 4}, false},
		{"()", []int{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			sel, err := Parse(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sel.Resolve(tt.shape)
			if err != nil {
				t.Fatal(err)
			}
			if r.Whole() != tt.want {
				t.Fatalf("Whole() = %v, want %v", r.Whole(), tt.want)
			}
			if !equalInts(r.ArrayShape(), tt.shape) {
				t.Fatalf("ArrayShape() = %v", r.ArrayShape())
			}
		})
	}
}
