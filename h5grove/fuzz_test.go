package h5grove

import (
	"strings"
	"testing"
)

// FuzzParseSelection feeds h5grove's selection syntax to the parser: it
// never panics, accepts at most ndim members, and what it accepts either
// resolves against the shape or is refused by Resolve with an error; an
// accepted text without ":" selects single elements only.
func FuzzParseSelection(f *testing.F) {
	for _, s := range []string{"5", "1, 2:5", "0:10:5, 2, 3:", ":", "::-1", "-3:", " 1_0 : 20 : +3 ", "1,", "a", "1:2:0", "99999999999999999999"} {
		f.Add(s)
	}
	shape := []int{10, 7, 3}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := parseSelection(s, len(shape))
		if err != nil {
			return
		}
		if len(sel) > len(shape) || len(sel) != strings.Count(s, ",")+1 {
			t.Fatalf("%q: %d members", s, len(sel))
		}
		r, err := sel.Resolve(shape)
		if err != nil {
			return
		}
		if !strings.Contains(s, ":") && len(r.Shape()) != len(shape)-len(sel) {
			t.Fatalf("%q: indexes only, shape %v", s, r.Shape())
		}
		if r.Len() > 10*7*3 {
			t.Fatalf("%q: %d elements of %d", s, r.Len(), 10*7*3)
		}
	})
}
