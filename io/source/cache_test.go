package source

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slow counts reads and holds each until release is closed.
type slow struct {
	Source
	reads   atomic.Int64
	release chan struct{}
}

func (s *slow) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	s.reads.Add(1)
	select {
	case <-s.release:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return s.Source.ReadAt(ctx, p, off)
}

func TestLRUEviction(t *testing.T) {
	l, err := NewLRU(800)
	if err != nil {
		t.Fatal(err)
	}
	data := readFixture(t)
	c := NewCache(NewBytes("f", data), l)
	ctx := context.Background()
	read := func(off int64) {
		t.Helper()
		p := make([]byte, 100)
		if _, err := c.ReadAt(ctx, p, off); err != nil || string(p) != string(data[off:off+100]) {
			t.Fatalf("read %d: %v", off, err)
		}
	}
	for off := range int64(8) {
		read(off * 100)
	}
	if l.Used() != 800 || l.Len() != 8 {
		t.Fatalf("used %d len %d, want 800 and 8", l.Used(), l.Len())
	}
	read(0)   // hit: 0 becomes most recent
	read(900) // evicts 100, the least recent
	if _, ok := c.Get(100, 100); ok {
		t.Fatal("least recently used range kept")
	}
	if _, ok := c.Get(0, 100); !ok {
		t.Fatal("recently used range evicted")
	}
	if l.Used() > 800 {
		t.Fatalf("used %d > capacity", l.Used())
	}
	// One range above an eighth of the capacity is not cached.
	p := make([]byte, 101)
	c.ReadAt(ctx, p, 0)
	if _, ok := c.Get(0, 101); ok {
		t.Fatal("oversized range cached")
	}
}

func TestNewLRU(t *testing.T) {
	for _, n := range []int64{0, -1} {
		if _, err := NewLRU(n); err == nil {
			t.Fatalf("NewLRU(%d): no error", n)
		}
	}
}

func TestCacheSingleflight(t *testing.T) {
	data := readFixture(t)
	l, _ := NewLRU(DefaultCacheBytes)
	s := &slow{Source: NewBytes("f", data), release: make(chan struct{})}
	c := NewCache(s, l)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			p := make([]byte, 1000)
			if _, err := c.ReadAt(context.Background(), p, 5000); err != nil || string(p) != string(data[5000:6000]) {
				t.Errorf("read: %v", err)
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	close(s.release)
	wg.Wait()
	if n := s.reads.Load(); n != 1 {
		t.Fatalf("%d reads for 50 concurrent identical reads, want 1", n)
	}
	st := c.Stats()
	if st.CacheMisses != 1 {
		t.Fatalf("stats %+v, want 1 miss", st)
	}
}

// TestCacheLeaderCancelled: a caller whose context ends does not fail the
// others waiting on the same read.
func TestCacheLeaderCancelled(t *testing.T) {
	data := readFixture(t)
	l, _ := NewLRU(DefaultCacheBytes)
	s := &slow{Source: NewBytes("f", data), release: make(chan struct{})}
	c := NewCache(s, l)
	ctx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() { _, err := c.ReadAt(ctx, make([]byte, 10), 0); leader <- err }()
	for s.reads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	follower := make(chan error, 1)
	p := make([]byte, 10)
	go func() { _, err := c.ReadAt(context.Background(), p, 0); follower <- err }()
	time.Sleep(5 * time.Millisecond)
	cancel()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v", err)
	}
	close(s.release)
	if err := <-follower; err != nil || string(p) != string(data[:10]) {
		t.Fatalf("follower: %v", err)
	}
}

func TestCacheShortReadNotCached(t *testing.T) {
	data := []byte("0123456789")
	l, _ := NewLRU(DefaultCacheBytes)
	c := NewCache(NewBytes("f", data), l)
	p := make([]byte, 8)
	n, err := c.ReadAt(context.Background(), p, 5)
	if n != 5 || !errors.Is(err, io.EOF) || string(p[:n]) != "56789" {
		t.Fatalf("n %d err %v", n, err)
	}
	if l.Len() != 0 {
		t.Fatal("short read cached")
	}
}
