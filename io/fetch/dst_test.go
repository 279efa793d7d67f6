package fetch

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lindigo/lindi/io/source"
)

// TestFetchDst checks Range.Dst: ranges read together whose Dsts lie back
// to back are read straight into them and delivered as Dst; any other
// layout is delivered as usual, leaving Dst alone, and every delivery holds
// the range's bytes.
func TestFetchDst(t *testing.T) {
	file := readFixture(t)
	src := source.NewBytes("f", file)
	out := make([]byte, 4000)
	const mark = 0xA5
	cases := []struct {
		name   string
		ranges func() []Range
		home   []bool // whether range i must arrive in its Dst
	}{
		{"back to back", func() []Range {
			return []Range{{Src: src, Off: 100, Len: 50, Dst: out[0:50]}, {Src: src, Off: 150, Len: 70, Dst: out[50:120]}, {Src: src, Off: 220, Len: 30, Dst: out[120:150]}}
		}, []bool{true, true, true}},
		{"split in parts", func() []Range {
			return []Range{{Src: src, Off: 0, Len: 3000, Dst: out[500:3500]}}
		}, []bool{true}},
		{"gap in the file", func() []Range {
			return []Range{{Src: src, Off: 100, Len: 50, Dst: out[0:50]}, {Src: src, Off: 160, Len: 50, Dst: out[50:100]}, {Src: src, Off: 210, Len: 5, Dst: out[100:105]}}
		}, []bool{true, true, true}},
		{"gap in memory", func() []Range {
			return []Range{{Src: src, Off: 100, Len: 50, Dst: out[0:50]}, {Src: src, Off: 150, Len: 50, Dst: out[51:101]}}
		}, []bool{false, false}},
		{"out of order in memory", func() []Range {
			return []Range{{Src: src, Off: 150, Len: 50, Dst: out[0:50]}, {Src: src, Off: 100, Len: 50, Dst: out[50:100]}}
		}, []bool{false, false}},
		{"one without Dst", func() []Range {
			return []Range{{Src: src, Off: 100, Len: 50, Dst: out[0:50]}, {Src: src, Off: 150, Len: 50}}
		}, []bool{false, false}},
		{"overlapping ranges", func() []Range {
			return []Range{{Src: src, Off: 100, Len: 50, Dst: out[0:50]}, {Src: src, Off: 120, Len: 50, Dst: out[50:100]}}
		}, []bool{false, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i := range out {
				out[i] = mark
			}
			rs := c.ranges()
			f, err := New(WithMinPartSize(1000), WithMaxGap(64))
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			got := map[int][]byte{}
			err = f.Fetch(context.Background(), rs, func(i int, d []byte) error {
				mu.Lock()
				defer mu.Unlock()
				got[i] = d
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rs {
				want := file[r.Off : r.Off+r.Len]
				if !bytes.Equal(got[i], want) {
					t.Fatalf("range %d: wrong bytes", i)
				}
				inDst := r.Dst != nil && &got[i][0] == &r.Dst[0]
				if inDst != c.home[i] {
					t.Errorf("range %d delivered in its Dst: %v, want %v", i, inDst, c.home[i])
				}
				if !c.home[i] && r.Dst != nil && bytes.Count(r.Dst, []byte{mark}) != len(r.Dst) {
					t.Fatalf("range %d: Dst written though delivered elsewhere", i)
				}
			}
		})
	}
	f, _ := New()
	err := f.Fetch(context.Background(), []Range{{Src: src, Off: 0, Len: 10, Dst: out[:9]}}, func(int, []byte) error { return nil })
	if err == nil {
		t.Error("a Dst of the wrong length was accepted")
	}
}

// TestSplitAtGapsBound checks that splitting blocks at gaps for Dst never
// makes a batch take more reads than the fetcher keeps in flight, and that
// a remote source's blocks are not split.
func TestSplitAtGapsBound(t *testing.T) {
	file := readFixture(t)
	src := &countingSource{Source: source.NewBytes("f", file)}
	out := make([]byte, 300)
	rs := []Range{
		{Src: src, Off: 0, Len: 50, Dst: out[0:50]},
		{Src: src, Off: 60, Len: 50, Dst: out[50:100]},
		{Src: src, Off: 120, Len: 50, Dst: out[100:150]},
		{Src: src, Off: 180, Len: 50, Dst: out[150:200]},
	}
	for _, c := range []struct{ conc, reads int }{{1, 1}, {2, 1}, {4, 4}, {8, 4}} {
		src.n.Store(0)
		f, err := New(WithConcurrency(c.conc), WithMaxGap(64))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Fetch(context.Background(), rs, func(int, []byte) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got := int(src.n.Load()); got != c.reads {
			t.Errorf("concurrency %d: %d reads, want %d", c.conc, got, c.reads)
		}
	}
}

type countingSource struct {
	source.Source
	n atomic.Int64
}

// Local says the source is local, as the bytes it counts reads of are.
func (c *countingSource) Local() bool { return true }

func (c *countingSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	c.n.Add(1)
	return c.Source.ReadAt(ctx, p, off)
}

// TestLayoutFitsSlots checks that splitting ranges in parts does not make a
// batch take more reads than the fetcher keeps in flight, which would cost
// the reads past the slots a round trip.
func TestLayoutFitsSlots(t *testing.T) {
	file := make([]byte, 3*100_000)
	src := &countingSource{Source: source.NewBytes("f", file)}
	rs := []Range{{Src: src, Off: 0, Len: 100_000}, {Src: src, Off: 100_000, Len: 100_000}, {Src: src, Off: 200_000, Len: 100_000}}
	f, err := New(WithConcurrency(8), WithMinPartSize(1000), WithMaxGap(0), WithMaxMerged(1000))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Fetch(context.Background(), rs, func(int, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := src.n.Load(); n > 8 || n < 3 {
		t.Errorf("%d reads for 3 ranges and 8 slots", n)
	}
}

// remoteCounting is a countingSource that is not local.
type remoteCounting struct{ countingSource }

func (c *remoteCounting) Local() bool { return false }

func TestNoSplitRemote(t *testing.T) {
	file := readFixture(t)
	src := &remoteCounting{countingSource{Source: source.NewBytes("f", file)}}
	out := make([]byte, 300)
	rs := []Range{
		{Src: src, Off: 0, Len: 50, Dst: out[0:50]},
		{Src: src, Off: 60, Len: 50, Dst: out[50:100]},
	}
	f, _ := New(WithMaxGap(64))
	if err := f.Fetch(context.Background(), rs, func(int, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := src.n.Load(); n != 1 {
		t.Errorf("%d reads of a remote source, want the one coalesced read", n)
	}
}
