package source

import (
	"context"
	"errors"
	"testing"
)

func TestPool(t *testing.T) {
	ctx := context.Background()
	p, err := NewPool()
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Open(ctx, fixture)
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Open(ctx, fixture)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatal("two sources for one name")
	}
	if _, err := p.Open(ctx, "http://127.0.0.1:1/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadAt(ctx, make([]byte, 100), 0); err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	if len(st) != 2 || st[0].Name != fixture || st[1].Name != "http://127.0.0.1:1/a" {
		t.Fatalf("Stats = %+v", st)
	}
	if st[0].Requests != 1 || st[0].Bytes != 100 {
		t.Fatalf("file stats = %+v", st[0])
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadAt(ctx, make([]byte, 1), 0); err == nil {
		t.Fatal("read after Close succeeded")
	}
	if _, err := p.Open(ctx, fixture); !errors.Is(err, ErrClosed) {
		t.Fatalf("Open after Close: %v", err)
	}
}

func TestPoolCache(t *testing.T) {
	ctx := context.Background()
	lru, err := NewLRU(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPool(WithCache(lru))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := p.Open(ctx, fixture)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.ReadAt(ctx, make([]byte, 64), 512); err != nil {
			t.Fatal(err)
		}
	}
	st := p.Stats()[0]
	if st.Requests != 1 || st.CacheHits != 2 || st.CacheMisses != 1 {
		t.Fatalf("stats = %+v, want 1 request, 2 hits, 1 miss", st.Stats)
	}
}
