package zarr3

import (
	"context"
	"sync"
)

// onceCache holds what locates read once and share: the shards' indexes, a
// chunk index's metadata and blocks. Each key's value is read by the first
// caller, the concurrent ones waiting for it (or for their context), and
// kept; a failed read is not kept, so that the next call tries again. With
// max > 0, at most max values are kept, the least recently used dropped.
type onceCache[K comparable, V any] struct {
	max int

	mu   sync.Mutex
	m    map[K]*onceEntry[V]
	tick int
}

type onceEntry[V any] struct {
	done chan struct{}
	v    V
	err  error
	used int
}

// get returns the value of key, calling read to make it the first time.
func (c *onceCache[K, V]) get(ctx context.Context, key K, read func() (V, error)) (V, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]*onceEntry[V]{}
	}
	c.tick++
	e, ok := c.m[key]
	if ok {
		e.used = c.tick
		c.mu.Unlock()
		select {
		case <-e.done:
			return e.v, e.err
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
	e = &onceEntry[V]{done: make(chan struct{}), used: c.tick}
	c.m[key] = e
	c.evict()
	c.mu.Unlock()
	e.v, e.err = read()
	if e.err != nil {
		c.mu.Lock()
		if c.m[key] == e {
			delete(c.m, key)
		}
		c.mu.Unlock()
	}
	close(e.done)
	return e.v, e.err
}

// evict drops the least recently used finished entries beyond max. It is
// called with mu held.
func (c *onceCache[K, V]) evict() {
	for c.max > 0 && len(c.m) > c.max {
		var old K
		found, oldest := false, 0
		for k, e := range c.m {
			select {
			case <-e.done:
			default:
				continue // being read: its waiters need it
			}
			if !found || e.used < oldest {
				old, oldest, found = k, e.used, true
			}
		}
		if !found {
			return
		}
		delete(c.m, old)
	}
}
