package selection

import (
	"errors"
	"slices"
	"testing"
)

// TestParseNumpyForms reads newaxis, N-d masks and vindex, and prints them
// back to text that parses to the same selection.
func TestParseNumpyForms(t *testing.T) {
	for _, c := range []struct {
		text, back string
		want       Selection
	}{
		{"None, 1", "None, 1", Selection{NewAxis(), Index(1)}},
		{"newaxis, ..., None", "None, ..., None", Selection{NewAxis(), Ellipsis(), NewAxis()}},
		{"[[True, False], [False, True]], :", "[[True, False], [False, True]], :",
			Selection{MaskND([]int{2, 2}, []bool{true, false, false, true}), All()}},
		{"vindex([0, 2], [1, -1])", "vindex([0, 2], [1, -1])", Selection{Vindex([]int{0, 2}, []int{1, -1})}},
		{"[[[True], [False]]]", "[[[True], [False]]]", Selection{MaskND([]int{1, 2, 1}, []bool{true, false})}},
	} {
		got, err := Parse(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if got.String() != c.back || c.want.String() != c.back {
			t.Errorf("%s: parsed %q, built %q, want %q", c.text, got, c.want, c.back)
		}
	}
	for _, bad := range []string{"[[1, 2], [3, 4]]", "[[True], [True, False]]", "vindex()", "vindex([True])", "vindex 1"} {
		var se *SyntaxError
		if _, err := Parse(bad); !errors.As(err, &se) {
			t.Errorf("%s: err = %v, want a *SyntaxError", bad, err)
		}
	}
}

// TestNewAxisShape: a new axis adds a length-1 axis and takes none.
func TestNewAxisShape(t *testing.T) {
	r, err := Selection{NewAxis(), Slice(1, 3, 1), NewAxis(), Index(0)}.Resolve([]int{5, 4, 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Shape(); !slices.Equal(got, []int{1, 2, 1, 3}) || r.Len() != 6 {
		t.Fatalf("shape %v len %d, want [1 2 1 3] and 6", got, r.Len())
	}
	if _, err := (Selection{Index(0), NewAxis(), Index(0), Index(0), Index(0)}).Resolve([]int{2, 2, 2}); !errors.Is(err, ErrInvalid) {
		t.Errorf("too many indices around a new axis: %v", err)
	}
}

// TestSplit splits pointwise items into points, as numpy orders them.
func TestSplit(t *testing.T) {
	p, ok, err := Selection{Index(1), MaskND([]int{2, 3}, []bool{false, true, false, true, false, true})}.Split([]int{4, 2, 3, 5})
	if err != nil || !ok {
		t.Fatalf("Split: %v, %v", ok, err)
	}
	if p.Axis != 1 || p.Axes != 2 || len(p.Before) != 1 || len(p.After) != 1 {
		t.Fatalf("split %+v", p)
	}
	if want := [][]int{{0, 1}, {1, 0}, {1, 2}}; !slices.EqualFunc(p.Points, want, slices.Equal) {
		t.Errorf("mask points %v, want %v", p.Points, want)
	}
	p, _, err = Selection{Vindex([]int{-1}, []int{0, 1})}.Split([]int{3, 2})
	if err != nil || !slices.EqualFunc(p.Points, [][]int{{2, 0}, {2, 1}}, slices.Equal) {
		t.Fatalf("broadcast vindex: %v, %v", p, err)
	}
	if _, ok, err := (Selection{Slice(0, 2, 1)}).Split([]int{3}); ok || err != nil {
		t.Errorf("an orthogonal selection split: %v, %v", ok, err)
	}
	if _, err := (Selection{Vindex([]int{0}, []int{0})}).Resolve([]int{2, 2}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Resolve of a pointwise item: %v, want ErrInvalid", err)
	}
}
