package fileio

import "sync"

// Memo is a map of parsed structures (B-tree nodes, heap collections, array
// pages) safe for concurrent use and bounded to a number of entries: when
// full it is emptied before the next entry goes in. Metadata is cheap to read
// again through the page cache, and a hard bound matters more than the hit
// rate when a hostile file names endless distinct addresses.
type Memo[K comparable, V any] struct {
	mu  sync.Mutex
	max int
	m   map[K]V
}

// NewMemo returns an empty Memo holding at most limit entries (at least 1).
func NewMemo[K comparable, V any](limit int) *Memo[K, V] {
	return &Memo[K, V]{max: max(limit, 1), m: make(map[K]V)}
}

// Get returns the value stored for k and whether there is one.
func (c *Memo[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

// Put stores v for k, emptying the memo first when it is full.
func (c *Memo[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; !ok && len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = v
}
