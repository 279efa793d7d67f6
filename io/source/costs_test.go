package source

import (
	"context"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
)

// TestCostsMeasured checks that an HTTP source's host shows its costs once
// it answered a body large enough to time, and not after tiny bodies only,
// with an adaptive limit and with a fixed one.
func TestCostsMeasured(t *testing.T) {
	data := make([]byte, 2<<20)
	for _, opt := range []Option{WithConcurrency(0), WithConcurrency(4)} {
		srv := serve(t, netsim.Blobs(map[string][]byte{"/f": data}))
		h, err := NewHTTP(srv.URL+"/f", WithResolver(nil), opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := Costs(h); ok {
			t.Fatal("costs known before any request")
		}
		ctx := context.Background()
		for off := range int64(8) {
			if _, err := h.ReadAt(ctx, make([]byte, 1000), off*1000); err != nil {
				t.Fatal(err)
			}
		}
		if rtt, rate, ok := Costs(h); ok {
			t.Fatalf("after 1 KB bodies only: costs %v, %.0f B/s known", rtt, rate)
		}
		if _, err := h.ReadAt(ctx, make([]byte, 1<<20), 4096); err != nil {
			t.Fatal(err)
		}
		rtt, rate, ok := Costs(h)
		if !ok || rtt < 0 || rate <= 0 {
			t.Fatalf("after a 1 MB body: costs %v, %.0f B/s, %v", rtt, rate, ok)
		}
		// Through a cache the costs are its source's.
		lru, _ := NewLRU(1 << 20)
		if r2, rate2, ok := Costs(NewCache(h, lru)); !ok || r2 != rtt || rate2 != rate {
			t.Fatalf("through a cache: %v, %.0f, %v", r2, rate2, ok)
		}
	}
	if _, _, ok := Costs(NewBytes("b", data)); ok {
		t.Fatal("bytes in memory have costs")
	}
}

// TestBodyRateLow checks the throughput estimate: bodies too small or
// timed at an instant are ignored, and it falls to a slower body faster
// than it climbs to a faster one.
func TestBodyRateLow(t *testing.T) {
	l := newHostLimiter("h", 0)
	l.seeRTT(0.02)
	l.bodyRate(minRateBody-1, time.Microsecond)
	l.bodyRate(1<<20, 0)
	if _, _, ok := l.costs(); ok {
		t.Fatal("an estimate from a small body or an instant")
	}
	const mb = 1 << 20
	l.bodyRate(100*mb, time.Second) // 100 MiB/s
	if _, r, ok := l.costs(); !ok || r != 100*mb {
		t.Fatalf("first body: %.0f, %v; want %d", r, ok, 100*mb)
	}
	l.bodyRate(50*mb, time.Second)
	_, down, _ := l.costs()
	l.bodyRate(100*mb, time.Second)
	_, up, _ := l.costs()
	if fell, rose := 100*mb-down, up-down; down >= 100*mb || rose >= fell || rose <= 0 {
		t.Fatalf("100 → 50 MiB/s gave %.0f, then 100 gave %.0f: want a fast fall, a slow climb", down, up)
	}
	if rtt, _, _ := l.costs(); rtt != 20*time.Millisecond {
		t.Fatalf("rtt %v, want 20ms", rtt)
	}
}
