package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/io/source"
)

func TestFetchBytes(t *testing.T) {
	file := readFixture(t)
	size := int64(len(file))
	tests := []struct {
		name string
		opts []Option
	}{
		{"defaults", nil},
		{"no gap", []Option{WithMaxGap(0)}},
		{"small merges", []Option{WithMaxMerged(4096)}},
		{"no merging", []Option{WithMaxMerged(1), WithMaxGap(0)}},
		{"tiny parts", []Option{WithPartSize(1000)}},
		{"serial", []Option{WithConcurrency(1)}},
		{"tight budget", []Option{WithBudget(10000), WithPartSize(3000)}},
	}
	for k, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(k), 7))
			a := source.NewBytes("a", file)
			b := &counting{Source: source.NewBytes("b", file)}
			rs := append(randomRanges(rng, a, size, 700), randomRanges(rng, b, size, 300)...)
			rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
			c := newCollector()
			if err := f.Fetch(context.Background(), rs, c.deliver); err != nil {
				t.Fatal(err)
			}
			if len(c.dups) > 0 {
				t.Fatalf("ranges delivered twice: %v", c.dups)
			}
			if len(c.got) != len(rs) {
				t.Fatalf("%d deliveries for %d ranges", len(c.got), len(rs))
			}
			for i, r := range rs {
				if d := c.got[i]; d == nil || !bytes.Equal(d, file[r.Off:r.Off+r.Len]) {
					t.Fatalf("range %d [%d, +%d): wrong bytes", i, r.Off, r.Len)
				}
			}
		})
	}
}

// TestFetchOwnership scribbles over every delivered slice and checks the
// others are intact: deliveries never alias one another.
func TestFetchOwnership(t *testing.T) {
	file := readFixture(t)
	src := source.NewBytes("f", file)
	rs := []Range{{Src: src, Off: 100, Len: 50}, {Src: src, Off: 100, Len: 50}, {Src: src, Off: 120, Len: 10}, {Src: src, Off: 150, Len: 10}, {Src: src, Off: 160, Len: 5}, {Src: src, Off: 90, Len: 200}}
	f, _ := New()
	c := newCollector()
	if err := f.Fetch(context.Background(), rs, func(i int, d []byte) error {
		if err := c.deliver(i, d); err != nil {
			return err
		}
		if !bytes.Equal(d, file[rs[i].Off:rs[i].Off+rs[i].Len]) {
			t.Errorf("range %d: wrong bytes", i)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, d := range c.got {
		for k := range d {
			d[k] ^= byte(i + 1)
		}
	}
	for i, d := range c.got {
		for k := range d {
			if d[k]^byte(i+1) != file[rs[i].Off+int64(k)] {
				t.Fatalf("range %d byte %d changed by another range's owner", i, k)
			}
		}
	}
}

func TestFetchCoalesces(t *testing.T) {
	file := readFixture(t)
	tests := []struct {
		name   string
		opts   []Option
		ranges func(source.Source) []Range
		reads  int64
	}{
		{"1000 adjacent", nil, func(s source.Source) []Range { return grid(s, 1000, 1000, 1000) }, 4},
		{"1000 adjacent, serial", []Option{WithConcurrency(1)}, func(s source.Source) []Range { return grid(s, 1000, 1000, 1000) }, 1},
		{"1000 adjacent, big min part", []Option{WithMinPartSize(1 << 20)}, func(s source.Source) []Range { return grid(s, 1000, 1000, 1000) }, 1},
		{"one large range", []Option{WithMinPartSize(1000)}, func(s source.Source) []Range { return []Range{{Src: s, Off: 0, Len: 1_280_000}} }, 64},
		{"1000 adjacent, parts", []Option{WithPartSize(250_000)}, func(s source.Source) []Range { return grid(s, 1000, 1000, 1000) }, 4},
		{"gaps under max", nil, func(s source.Source) []Range { return grid(s, 100, 100, 1000) }, 1},
		{"gaps over max", []Option{WithMaxGap(899)}, func(s source.Source) []Range { return grid(s, 100, 100, 1000) }, 100},
		{"merge cap", []Option{WithMaxMerged(10_000)}, func(s source.Source) []Range { return grid(s, 1000, 1000, 1000) }, 100},
		{"duplicates", nil, func(s source.Source) []Range {
			return []Range{{Src: s, Off: 10, Len: 10}, {Src: s, Off: 10, Len: 10}, {Src: s, Off: 10, Len: 10}}
		}, 1},
		{"empty only", nil, func(s source.Source) []Range {
			return []Range{{Src: s, Off: 10, Len: 0}, {Src: s, Off: 1 << 40, Len: 0}}
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			src := &counting{Source: source.NewBytes("f", file)}
			rs := tt.ranges(src)
			c := newCollector()
			if err := f.Fetch(context.Background(), rs, c.deliver); err != nil {
				t.Fatal(err)
			}
			if got := src.reads.Load(); got != tt.reads {
				t.Fatalf("%d reads, want %d", got, tt.reads)
			}
			for i, r := range rs {
				d, ok := c.got[i]
				if !ok || d == nil || (r.Len > 0 && !bytes.Equal(d, file[r.Off:r.Off+r.Len])) || int64(len(d)) != r.Len {
					t.Fatalf("range %d: wrong bytes", i)
				}
			}
		})
	}
}

// grid returns n ranges of size bytes every step bytes.
func grid(s source.Source, n int, size, step int64) []Range {
	rs := make([]Range, n)
	for i := range rs {
		rs[i] = Range{Src: s, Off: int64(i) * step, Len: size}
	}
	return rs
}

func TestFetchErrors(t *testing.T) {
	file := readFixture(t)
	mem := source.NewBytes("mem", file)
	bad := &failing{Source: mem, bad: 5000}
	errDeliver := errors.New("no room")
	tests := []struct {
		name    string
		ranges  []Range
		deliver func(int, []byte) error
		is      error
		text    string
	}{
		{"read error", append(grid(bad, 50, 100, 1000), Range{Src: bad, Off: 5000, Len: 10}), nil, errBroken, "mem bytes ["},
		{"past end", []Range{{Src: mem, Off: int64(len(file)) - 5, Len: 10}}, nil, io.ErrUnexpectedEOF, "mem"},
		{"deliver error", grid(mem, 10, 10, 10), func(i int, _ []byte) error {
			if i == 3 {
				return errDeliver
			}
			return nil
		}, errDeliver, "mem bytes [30, 40)"},
		{"negative offset", []Range{{Src: mem, Off: -1, Len: 4}}, nil, nil, "negative"},
		{"negative length", []Range{{Src: mem, Off: 1, Len: -4}}, nil, nil, "negative"},
		{"nil source", []Range{{Src: nil, Off: 1, Len: 4}}, nil, nil, "nil source"},
		{"overflow", []Range{{Src: mem, Off: 1 << 62, Len: 1<<63 - 1}}, nil, nil, "overflows"},
		{"too large", []Range{{Src: mem, Off: 0, Len: DefaultMaxRange + 1}}, nil, ErrTooLarge, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := New(WithMaxGap(0), WithMaxMerged(1))
			deliver := tt.deliver
			if deliver == nil {
				deliver = func(int, []byte) error { return nil }
			}
			err := f.Fetch(context.Background(), tt.ranges, deliver)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("err = %q, want it to mention %q", err, tt.text)
			}
		})
	}
}

func TestFetchCancel(t *testing.T) {
	base := runtime.NumGoroutine()
	f, _ := New(WithMaxGap(0), WithMaxMerged(1), WithConcurrency(8))
	src := &blocking{}
	ctx, cancel := context.WithCancel(context.Background())
	rs := grid(src, 1000, 10, 100)
	done := make(chan error, 1)
	go func() { done <- f.Fetch(ctx, rs, func(int, []byte) error { return nil }) }()
	for src.started.Load() < 8 {
		time.Sleep(time.Millisecond)
	}
	t0 := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want Canceled", err)
		}
		if d := time.Since(t0); d > 100*time.Millisecond {
			t.Fatalf("returned after %v", d)
		}
	case <-time.After(time.Second):
		t.Fatal("Fetch did not return")
	}
	if n := src.started.Load(); n != 8 {
		t.Errorf("%d reads started, want the 8 the limit allows", n)
	}
	settle(t, base)
}

func TestFetchBudgetShared(t *testing.T) {
	// Two Fetch calls on one Fetcher share its limit: with concurrency 2,
	// at most two reads run at once across both.
	file := readFixture(t)
	var running, peak atomicMax
	src := &observing{Source: source.NewBytes("f", file), running: &running, peak: &peak}
	f, _ := New(WithConcurrency(2), WithMaxGap(0), WithMaxMerged(1))
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			errs <- f.Fetch(context.Background(), grid(src, 50, 10, 100), func(int, []byte) error { return nil })
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if p := peak.load(); p > 2 || p < 1 {
		t.Fatalf("peak concurrency %d, want ≤ 2", p)
	}
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name string
		opt  Option
		ok   bool
	}{
		{"concurrency 0", WithConcurrency(0), false},
		{"concurrency 1", WithConcurrency(1), true},
		{"concurrency huge", WithConcurrency(1 << 20), false},
		{"gap -1", WithMaxGap(-1), false},
		{"gap 0", WithMaxGap(0), true},
		{"merged 0", WithMaxMerged(0), false},
		{"part 0", WithPartSize(0), false},
		{"budget 0", WithBudget(0), false},
		{"budget 1", WithBudget(1), true},
		{"max range 0", WithMaxRange(0), false},
		{"min part 0", WithMinPartSize(0), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opt)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestDefault(t *testing.T) {
	d := Default()
	if d == nil || d.Concurrency() != DefaultConcurrency || Default() != d {
		t.Fatal("Default is not one shared default Fetcher")
	}
}

func TestFetchCache(t *testing.T) {
	file := readFixture(t)
	lru, _ := source.NewLRU(1 << 20)
	under := &counting{Source: source.NewBytes("f", file)}
	c := source.NewCache(under, lru)
	f, _ := New()
	rs := grid(c, 100, 100, 200)
	for round := range 2 {
		col := newCollector()
		if err := f.Fetch(context.Background(), rs, col.deliver); err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			if !bytes.Equal(col.got[i], file[r.Off:r.Off+r.Len]) {
				t.Fatalf("round %d range %d: wrong bytes", round, i)
			}
		}
	}
	if n := under.reads.Load(); n != 1 {
		t.Fatalf("%d reads, want 1 (second round from the cache)", n)
	}
	if h := c.Stats().CacheHits; h != 100 {
		t.Fatalf("%d hits, want 100", h)
	}
}

func TestSizeFor(t *testing.T) {
	tests := []struct {
		name        string
		opts        []Option
		total       int64
		merge, part int64
	}{
		{"small batch", nil, 1000, DefaultMinPartSize, DefaultMinPartSize},
		{"spread", nil, 64 << 20, 1<<20 + 1, 1<<20 + 1},
		{"huge batch", nil, 64 << 30, DefaultPartSize, DefaultPartSize},
		{"serial", []Option{WithConcurrency(1)}, 3 << 20, 3<<20 + 1, 3<<20 + 1},
		{"merge cap", []Option{WithMaxMerged(1000)}, 64 << 20, 1000, 1<<20 + 1},
		{"min above part", []Option{WithMinPartSize(1 << 30)}, 1, DefaultPartSize, DefaultPartSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.sizeFor(tt.total, f.concurrency); got.merge != tt.merge || got.part != tt.part {
				t.Fatalf("sizeFor(%d) = %+v, want merge %d part %d", tt.total, got, tt.merge, tt.part)
			}
		})
	}
}

// A source opens as many connections ahead as a default Fetcher keeps
// reads in flight: fewer would leave reads dialling, more would go unused.
func TestWarmConnsMatchConcurrency(t *testing.T) {
	if source.DefaultWarmConns != DefaultConcurrency {
		t.Errorf("source.DefaultWarmConns = %d, DefaultConcurrency = %d", source.DefaultWarmConns, DefaultConcurrency)
	}
}

// limited is a source whose host lets n requests run at once.
type limited struct {
	counting
	n int
}

func (l *limited) Concurrency() int { return l.n }

// TestLayoutFollowsHostLimit checks that a batch is split for as many
// reads as its host lets run, not for the fetcher's slots: a server taking
// 16 at a time gets about 16 requests for 320 chunks, not 64.
func TestLayoutFollowsHostLimit(t *testing.T) {
	file := make([]byte, 20<<20)
	var rs []Range
	for off := int64(0); off < int64(len(file)); off += 64 << 10 {
		rs = append(rs, Range{Off: off, Len: 64 << 10})
	}
	for _, c := range []struct{ host, min, max int }{{16, 10, 16}, {64, 40, 64}, {0, 40, 64}} {
		src := &limited{counting: counting{Source: source.NewBytes("f", file)}, n: c.host}
		for i := range rs {
			rs[i].Src = src
		}
		if err := Default().Fetch(context.Background(), rs, func(int, []byte) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got := int(src.reads.Load()); got < c.min || got > c.max {
			t.Errorf("host limit %d: %d reads, want %d to %d", c.host, got, c.min, c.max)
		}
	}
}
