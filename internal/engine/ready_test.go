package engine

import (
	"bytes"
	"context"
	"testing"

	"github.com/lindigo/lindi/selection"
)

// TestReady checks Options.Ready: every count it reports grows, the elements
// before it already hold their final values when it is reported, the last
// report is the whole output, and an ordered read on one worker reports
// along the way.
func TestReady(t *testing.T) {
	ta := testArray{rows: 37, cols: 23, chunks: []int{4, 5},
		missing: func(c []int) bool { return c[0] == 2 && c[1] == 1 },
		inline:  func(c []int) bool { return c[0] == 5 }}
	a := ta.build()
	cases := []struct {
		sel     string
		ordered bool
	}{
		{"...", true},
		{"3:30:2, 1:22", true},
		{"[0, 9, 10, 36], ::3", true},
		{"::-1, :", false},
		{":, [20, 3, 7]", false},
		{"7, :", true},
	}
	for _, c := range cases {
		sel, err := selection.Parse(c.sel)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sel.Resolve(a.Shape)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]byte, 2*r.Len())
		if err := Read(context.Background(), a, r, want, Options{}); err != nil {
			t.Fatal(err)
		}
		// Three workers may finish the first chunk last, and then report
		// only the end; one worker decodes in order, so an ordered read
		// must report along the way.
		for _, workers := range []int{3, 1} {
			out := make([]byte, len(want))
			var reports []int
			opt := Options{Workers: workers, Ready: func(n int) {
				if len(reports) > 0 && n <= reports[len(reports)-1] {
					t.Errorf("%s: count %d after %d", c.sel, n, reports[len(reports)-1])
				}
				if !bytes.Equal(out[:2*n], want[:2*n]) {
					t.Errorf("%s: the first %d elements are not final when reported", c.sel, n)
				}
				reports = append(reports, n)
			}}
			if err := Read(context.Background(), a, r, out, opt); err != nil {
				t.Fatal(err)
			}
			if len(reports) == 0 || reports[len(reports)-1] != r.Len() {
				t.Fatalf("%s, %d workers: reports %v, want the last to be %d", c.sel, workers, reports, r.Len())
			}
			if workers == 1 && c.ordered && r.Len() > 23 && len(reports) < 2 {
				t.Errorf("%s, one worker: only %v reported for an ordered read", c.sel, reports)
			}
			if !c.ordered && len(reports) != 1 {
				t.Errorf("%s, %d workers: reports %v for a read in descending order", c.sel, workers, reports)
			}
		}
	}
}

// TestReadyBatches checks the count across batches: it passes the end of
// a batch only when the next batch's first chunk is decoded.
func TestReadyBatches(t *testing.T) {
	const n = 3*batchChunks + 17
	a := &Chunked{
		Shape: []int{n}, Chunks: []int{1}, ItemSize: 1, Fill: []byte{7}, Name: "many",
		Locator: locateFunc(func(context.Context, []int) (Chunk, error) { return Chunk{Missing: true}, nil }),
	}
	r, _ := selection.Selection{}.Resolve(a.Shape)
	out := make([]byte, n)
	last := 0
	opt := Options{Ready: func(k int) {
		for i := last; i < k; i++ {
			if out[i] != 7 {
				t.Fatalf("element %d reported ready before it was written", i)
			}
		}
		last = k
	}}
	if err := Read(context.Background(), a, r, out, opt); err != nil {
		t.Fatal(err)
	}
	if last != n {
		t.Fatalf("last count %d, want %d", last, n)
	}
}
