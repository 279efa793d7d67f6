package selection

import (
	"errors"
	"slices"
	"testing"
)

// fuzzShape turns fuzz bytes into a small array shape and chunk shape: up
// to 4 axes of size 0…8 with chunks of 1…5.
func fuzzShape(dims []byte) (shape, chunks []int) {
	nd := min(len(dims)/2, 4)
	shape, chunks = make([]int, nd), make([]int, nd)
	for d := range nd {
		shape[d] = int(dims[2*d] % 9)
		chunks[d] = int(dims[2*d+1]%5) + 1
	}
	return shape, chunks
}

// FuzzPlan parses arbitrary text and, when it parses, checks the String
// round trip, the errors of Resolve against the reference, and that the plan
// writes every output element exactly once with the right source element.
func FuzzPlan(f *testing.F) {
	for _, c := range loadCases(f) {
		dims := make([]byte, 0, 2*len(c.Shape)+2)
		for range max(len(c.Shape), 1) + 1 {
			dims = append(dims, 7, 2)
		}
		f.Add(c.Selection, dims)
	}
	f.Add("[2, 0, 2], ::-2, [True, False, True, True]", []byte{3, 2, 7, 4, 4, 1})
	f.Add("..., [-1, -1], 1:", []byte{5, 3, 6, 2, 8, 8})
	f.Add("(), 1", []byte{})
	f.Add("None, 1:, newaxis", []byte{3, 2, 4, 4})
	f.Add("vindex([0, 2], [1]), :", []byte{3, 2, 4, 4, 2, 1})
	f.Add("[[True, False], [False, True]]", []byte{2, 1, 2, 1})
	f.Fuzz(func(t *testing.T, s string, dims []byte) {
		sel, err := Parse(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): error %v is not a *SyntaxError", s, err)
			}
			return
		}
		text := sel.String()
		again, err := Parse(text)
		if err != nil || again.String() != text {
			t.Fatalf("Parse(%q).String() = %q, which reads back as %q, %v", s, text, again.String(), err)
		}
		shape, chunks := fuzzShape(dims)
		if checkPointwise(t, sel, shape) {
			return
		}
		plain := slices.DeleteFunc(slices.Clone(sel), func(it Item) bool { return it.kind == kindNewAxis })
		if r, err := plain.Resolve(shape); err == nil && r.Len() > 1<<16 {
			return // long lists multiply: keep the element-by-element check small
		}
		if len(plain) != len(sel) {
			checkNewAxis(t, sel, plain, shape)
		}
		checkAgainstRef(t, plain, shape, chunks)
	})
}

// checkPointwise checks, for a selection with a pointwise item, that Split
// gives points within the array or an error, and reports whether it had one.
func checkPointwise(t *testing.T, sel Selection, shape []int) bool {
	if !slices.ContainsFunc(sel, Item.pointwise) {
		return false
	}
	p, ok, err := sel.Split(shape)
	if err != nil {
		if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("Split(%q, %v): %v", sel, shape, err)
		}
		return true
	}
	if !ok {
		t.Fatalf("Split(%q, %v) found no pointwise item", sel, shape)
	}
	for _, pt := range p.Points {
		for d, c := range pt {
			if c < 0 || c >= shape[p.Axis+d] {
				t.Fatalf("Split(%q, %v): point %v outside the array", sel, shape, pt)
			}
		}
	}
	return true
}

// checkNewAxis checks that new axes only add axes of length 1 to the shape.
func checkNewAxis(t *testing.T, sel, plain Selection, shape []int) {
	r, err := sel.Resolve(shape)
	r0, err0 := plain.Resolve(shape)
	if (err == nil) != (err0 == nil) {
		t.Fatalf("%q on %v: %v, but without new axes %v", sel, shape, err, err0)
	}
	if err != nil {
		return
	}
	got := slices.DeleteFunc(r.Shape(), func(n int) bool { return n == 1 })
	want := slices.DeleteFunc(r0.Shape(), func(n int) bool { return n == 1 })
	if !slices.Equal(got, want) || r.Len() != r0.Len() || len(r.Shape()) != len(r0.Shape())+len(sel)-len(plain) {
		t.Fatalf("%q on %v: shape %v, without new axes %v", sel, shape, r.Shape(), r0.Shape())
	}
}
