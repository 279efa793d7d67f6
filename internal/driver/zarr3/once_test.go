package zarr3

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestOnceCache: concurrent gets of a key read it once; a failure is not
// kept; with max, the least recently used finished values go first.
func TestOnceCache(t *testing.T) {
	ctx := context.Background()
	var c onceCache[int, int]
	var reads atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			v, err := c.get(ctx, 1, func() (int, error) {
				reads.Add(1)
				<-release
				return 7, nil
			})
			if v != 7 || err != nil {
				t.Errorf("get = %d, %v", v, err)
			}
		})
	}
	close(release)
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Errorf("%d reads of one key", n)
	}

	fail := errors.New("no")
	if _, err := c.get(ctx, 2, func() (int, error) { return 0, fail }); err != fail {
		t.Fatalf("got %v", err)
	}
	if v, err := c.get(ctx, 2, func() (int, error) { return 9, nil }); v != 9 || err != nil {
		t.Errorf("after a failure: %d, %v; want a new read", v, err)
	}

	lru := onceCache[int, int]{max: 2}
	get := func(k int) {
		lru.get(ctx, k, func() (int, error) { reads.Add(1); return k, nil })
	}
	get(1)
	get(2)
	get(1) // 2 is now the least recently used
	get(3)
	reads.Store(0)
	get(1)
	if reads.Load() != 0 {
		t.Error("the recently used value was dropped")
	}
	get(2)
	if reads.Load() != 1 {
		t.Error("the least recently used value was kept")
	}
}
