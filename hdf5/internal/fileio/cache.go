package fileio

import (
	"container/list"
	"context"
	"errors"
	"sync"
)

// pageCache is an LRU of file pages bounded by a page count. Concurrent
// misses for one page share a single fetch.
type pageCache struct {
	pageSize int
	maxPages int
	fetch    func(context.Context, int64) ([]byte, error)
	stats    *counters

	mu       sync.Mutex
	lru      *list.List // of *page, most recent first
	pages    map[int64]*list.Element
	inflight map[int64]*call
}

type page struct {
	idx  int64
	data []byte
}

type call struct {
	done chan struct{}
	data []byte
	err  error
}

func newPageCache(pageSize, maxPages int, stats *counters, fetch func(context.Context, int64) ([]byte, error)) *pageCache {
	return &pageCache{
		pageSize: pageSize,
		maxPages: maxPages,
		fetch:    fetch,
		stats:    stats,
		lru:      list.New(),
		pages:    make(map[int64]*list.Element),
		inflight: make(map[int64]*call),
	}
}

// get returns page idx, fetching it on a miss. The returned slice must
// not be modified.
func (c *pageCache) get(ctx context.Context, idx int64) ([]byte, error) {
	// A fetch led by another caller fails when that caller's context is
	// cancelled; a waiter whose own context is live then tries again.
	for {
		c.mu.Lock()
		if e, ok := c.pages[idx]; ok {
			c.lru.MoveToFront(e)
			c.mu.Unlock()
			c.stats.hits.Add(1)
			return e.Value.(*page).data, nil
		}
		cl, waiting := c.inflight[idx]
		if !waiting {
			cl = &call{done: make(chan struct{})}
			c.inflight[idx] = cl
		}
		c.mu.Unlock()
		if !waiting {
			c.stats.misses.Add(1)
			cl.data, cl.err = c.fetch(ctx, idx)
			c.finish(idx, cl)
			return cl.data, cl.err
		}
		select {
		case <-cl.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if cl.err == nil || !isContextErr(cl.err) || ctx.Err() != nil {
			c.stats.hits.Add(1)
			return cl.data, cl.err
		}
	}
}

// peek returns page idx when it is cached, without fetching it.
func (c *pageCache) peek(idx int64) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.pages[idx]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*page).data, true
}

// put caches page idx, read by someone else.
func (c *pageCache) put(idx int64, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, cached := c.pages[idx]
	_, fetching := c.inflight[idx]
	if !cached && !fetching {
		c.insert(idx, data)
	}
}

// insert adds page idx, evicting the least recently used pages beyond
// maxPages; c.mu is held.
func (c *pageCache) insert(idx int64, data []byte) {
	c.pages[idx] = c.lru.PushFront(&page{idx: idx, data: data})
	for c.lru.Len() > c.maxPages {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.pages, old.Value.(*page).idx)
	}
}

func (c *pageCache) finish(idx int64, cl *call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.inflight, idx)
	close(cl.done)
	if cl.err != nil {
		return
	}
	c.insert(idx, cl.data)
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
