package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/lindigo/lindi/selection"
)

// TestReadField reads one byte of each 2-byte element — a field of a
// compound — and checks it against the same byte of a whole read, for
// remote, Fortran-order, missing, inline and raw-part chunks.
func TestReadField(t *testing.T) {
	arrays := map[string]testArray{
		"remote":  {rows: 10, cols: 7, chunks: []int{3, 4}},
		"fortran": {rows: 10, cols: 7, chunks: []int{3, 4}, forder: true},
		"missing": {rows: 10, cols: 7, chunks: []int{3, 4}, missing: func(c []int) bool { return c[0] == 1 }},
		"inline":  {rows: 10, cols: 7, chunks: []int{3, 4}, inline: func(c []int) bool { return c[1] == 0 }},
		"rows":    {rows: 10, cols: 7, chunks: []int{2, 7}},
	}
	sels := []string{"...", "[9, 0, 4, 4], [6, 1]", "2:6, :", "7, 3:", "1:9:3, ::-2"}
	for name, ta := range arrays {
		a := ta.build()
		for _, text := range sels {
			for off := range 2 {
				t.Run(fmt.Sprintf("%s/%s/%d", name, text, off), func(t *testing.T) {
					sel, err := selection.Parse(text)
					if err != nil {
						t.Fatal(err)
					}
					r, err := sel.Resolve(a.Shape)
					if err != nil {
						t.Fatal(err)
					}
					whole := make([]byte, 2*r.Len())
					if err := Read(context.Background(), a, r, whole, Options{}); err != nil {
						t.Fatal(err)
					}
					got := make([]byte, r.Len())
					if err := ReadField(context.Background(), a, r, off, 1, got, Options{}); err != nil {
						t.Fatal(err)
					}
					for i := range got {
						if got[i] != whole[2*i+off] {
							t.Fatalf("element %d: got %#x, want %#x", i, got[i], whole[2*i+off])
						}
					}
				})
			}
		}
	}
}

func TestReadFieldBounds(t *testing.T) {
	a := testArray{rows: 4, cols: 4, chunks: []int{2, 2}}.build()
	r, _ := selection.Selection{}.Resolve(a.Shape)
	for _, c := range [][2]int{{-1, 1}, {0, 0}, {1, 2}, {2, 1}} {
		if err := ReadField(context.Background(), a, r, c[0], c[1], make([]byte, 16*max(c[1], 0)), Options{}); err == nil {
			t.Errorf("bytes [%d, %d) of a 2-byte element: no error", c[0], c[0]+c[1])
		}
	}
}
