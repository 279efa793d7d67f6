package selection

import (
	"errors"
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
		if r, err := sel.Resolve(shape); err == nil && r.Len() > 1<<16 {
			return // long lists multiply: keep the element-by-element check small
		}
		checkAgainstRef(t, sel, shape, chunks)
	})
}
