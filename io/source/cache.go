package source

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"golang.org/x/sync/singleflight"
)

// DefaultCacheBytes is the suggested capacity of an LRU: 256 MiB.
const DefaultCacheBytes = 256 << 20

// LRU holds byte ranges read from sources, bounded by their total size and
// evicting the least recently used. One LRU may back many Caches. It is safe
// for concurrent use.
type LRU struct {
	max   int64
	mu    sync.Mutex
	used  int64
	order *list.List // of *entry, most recent first
	items map[string]*list.Element
}

type entry struct {
	key  string
	data []byte
}

// NewLRU returns an LRU holding at most maxBytes bytes of data.
func NewLRU(maxBytes int64) (*LRU, error) {
	if maxBytes <= 0 {
		return nil, fmt.Errorf("source: NewLRU(%d): capacity must be positive", maxBytes)
	}
	return &LRU{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}, nil
}

// Len reports the number of ranges held.
func (l *LRU) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.items)
}

// Used reports the bytes held.
func (l *LRU) Used() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.used
}

func (l *LRU) get(key string) ([]byte, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.items[key]
	if !ok {
		return nil, false
	}
	l.order.MoveToFront(e)
	return e.Value.(*entry).data, true
}

// put stores data (owned by the LRU from now on) unless it alone exceeds
// an eighth of the capacity: one huge read must not flush everything.
func (l *LRU) put(key string, data []byte) {
	size := int64(len(data))
	if size > l.max/8 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.items[key]; ok {
		l.order.MoveToFront(e)
		return
	}
	l.items[key] = l.order.PushFront(&entry{key: key, data: data})
	l.used += size
	for l.used > l.max {
		last := l.order.Back()
		ent := last.Value.(*entry)
		l.order.Remove(last)
		delete(l.items, ent.key)
		l.used -= int64(len(ent.data))
	}
}

// Cache is a Source that keeps the ranges read through it in an LRU, keyed by
// source name, offset and length, and collapses concurrent reads of the same
// range into one read of the underlying source.
type Cache struct {
	src    Source
	lru    *LRU
	flight singleflight.Group
	stats  Counters
}

// NewCache returns a caching Source reading through src into lru.
func NewCache(src Source, lru *LRU) *Cache { return &Cache{src: src, lru: lru} }

// Name reports the name of the underlying source.
func (c *Cache) Name() string { return c.src.Name() }

// Size reports the size of the underlying source.
func (c *Cache) Size(ctx context.Context) (int64, error) { return c.src.Size(ctx) }

// Unwrap returns the underlying source.
func (c *Cache) Unwrap() Source { return c.src }

// Stats reports the statistics of the underlying source plus the cache's
// hits and misses.
func (c *Cache) Stats() Stats {
	s := c.stats.Snapshot()
	if r, ok := c.src.(Reporter); ok {
		s = s.Add(r.Stats())
	}
	return s
}

// Close closes the underlying source if it is an io.Closer.
func (c *Cache) Close() error {
	if cl, ok := c.src.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// Get returns a copy of the cached range [off, off+n), if held.
func (c *Cache) Get(off, n int64) ([]byte, bool) {
	b, ok := c.lru.get(c.key(off, n))
	if !ok {
		return nil, false
	}
	c.stats.hits.Add(1)
	out := make([]byte, len(b))
	copy(out, b)
	return out, true
}

// Put stores a copy of data as the range at off.
func (c *Cache) Put(off int64, data []byte) {
	c.lru.put(c.key(off, int64(len(data))), bytes.Clone(data))
}

func (c *Cache) key(off, n int64) string {
	return c.src.Name() + "\x00" + strconv.FormatInt(off, 10) + "+" + strconv.FormatInt(n, 10)
}

// ReadAt serves p from the cache or reads it through, sharing the read with
// concurrent callers asking for the same range. Short reads (io.EOF) and
// errors are not cached.
func (c *Cache) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if len(p) == 0 || off < 0 {
		return c.src.ReadAt(ctx, p, off)
	}
	key := c.key(off, int64(len(p)))
	if b, ok := c.lru.get(key); ok {
		c.stats.hits.Add(1)
		return copy(p, b), nil
	}
	for {
		ch := c.flight.DoChan(key, func() (any, error) {
			c.stats.misses.Add(1)
			buf := make([]byte, len(p))
			n, err := c.src.ReadAt(ctx, buf, off)
			if err == nil {
				c.lru.put(key, buf)
			}
			return buf[:n], err
		})
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case r := <-ch:
			// The read belonged to a caller whose context ended: ours is
			// still live, so read again.
			if r.Err != nil && ctx.Err() == nil && (errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, context.DeadlineExceeded)) {
				continue
			}
			b := r.Val.([]byte)
			return copy(p, b), r.Err
		}
	}
}

func (c *Cache) knownSize() (int64, bool) { return knownSize(c.src) }

// tailResult is what a shared tail read gives its callers.
type tailResult struct {
	b    []byte
	size int64
}

// ReadTail reads the last len(p) bytes of the source (see TailReader).
// When the source knows its size it reads at size-len(p) through ReadAt,
// served from the cache when held; otherwise it asks the source's ReadTail
// (one request over HTTP), sharing it with concurrent callers asking for
// the same length, and keeps the answer as the range it turned out to be.
func (c *Cache) ReadTail(ctx context.Context, p []byte) (int, int64, error) {
	size, tr, err := tailOf(ctx, c.src)
	switch {
	case err != nil:
		return 0, -1, err
	case tr == nil:
		return readTailAt(ctx, c, p, size)
	case len(p) == 0:
		return tr.ReadTail(ctx, p)
	}
	key := c.src.Name() + "\x00tail+" + strconv.Itoa(len(p))
	for {
		ch := c.flight.DoChan(key, func() (any, error) {
			c.stats.misses.Add(1)
			buf := make([]byte, len(p))
			n, size, err := tr.ReadTail(ctx, buf)
			if err == nil {
				c.lru.put(c.key(size-int64(n), int64(n)), buf[:n])
			}
			return tailResult{buf[:n], size}, err
		})
		select {
		case <-ctx.Done():
			return 0, -1, ctx.Err()
		case r := <-ch:
			if r.Err != nil && ctx.Err() == nil && (errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, context.DeadlineExceeded)) {
				continue
			}
			t := r.Val.(tailResult)
			return copy(p, t.b), t.size, r.Err
		}
	}
}
