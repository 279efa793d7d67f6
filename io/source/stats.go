package source

import (
	"sync/atomic"
	"time"
)

// Stats is a snapshot of the work done by one source.
type Stats struct {
	Requests    int64         // reads issued to the object (each HTTP attempt counts)
	Bytes       int64         // bytes received
	Retries     int64         // attempts that were retried
	CacheHits   int64         // reads answered by a cache
	CacheMisses int64         // reads a cache passed on
	Resolves    int64         // URL resolutions (DANDI or a custom resolver)
	Time        time.Duration // wall time inside requests, summed over concurrent ones
}

// Add returns the field-wise sum of s and o.
func (s Stats) Add(o Stats) Stats {
	return Stats{
		Requests:    s.Requests + o.Requests,
		Bytes:       s.Bytes + o.Bytes,
		Retries:     s.Retries + o.Retries,
		CacheHits:   s.CacheHits + o.CacheHits,
		CacheMisses: s.CacheMisses + o.CacheMisses,
		Resolves:    s.Resolves + o.Resolves,
		Time:        s.Time + o.Time,
	}
}

// Reporter is implemented by sources that count their work. Every source in
// this package implements it.
type Reporter interface {
	Stats() Stats
}

// Counters accumulates Stats with atomic operations; its zero value is ready
// and it is safe for concurrent use.
type Counters struct {
	requests, bytes, retries, hits, misses, resolves, nanos atomic.Int64
}

// Snapshot returns the current values.
func (c *Counters) Snapshot() Stats {
	return Stats{
		Requests:    c.requests.Load(),
		Bytes:       c.bytes.Load(),
		Retries:     c.retries.Load(),
		CacheHits:   c.hits.Load(),
		CacheMisses: c.misses.Load(),
		Resolves:    c.resolves.Load(),
		Time:        time.Duration(c.nanos.Load()),
	}
}

func (c *Counters) add(requests, bytes int64, d time.Duration) {
	c.requests.Add(requests)
	c.bytes.Add(bytes)
	c.nanos.Add(int64(d))
}

func (c *Counters) record(start time.Time, n int) {
	c.add(1, int64(n), time.Since(start))
}
