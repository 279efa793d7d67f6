package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"golang.org/x/sync/singleflight"
)

// DefaultBlockSize is the block size suggested for Blocks: 64 KiB, a few
// milliseconds of transfer, large enough to hold most HDF5 object headers
// and B-tree nodes whole.
const DefaultBlockSize = 64 << 10

// Blocks is a Source that reads its source in aligned blocks kept in an LRU,
// so that the many small scattered reads of a metadata parser (HDF5 headers,
// B-tree nodes, heaps) cost one request per block rather than one per read.
// A read spanning several missing blocks fetches them in one request; reads
// larger than eight blocks bypass the blocks (they are data, not metadata).
// Concurrent reads of the same blocks share one request.
type Blocks struct {
	src    Source
	lru    *LRU
	bs     int64
	flight singleflight.Group
	stats  Counters
}

// NewBlocks returns a Source reading src through blockSize-byte blocks
// cached in lru.
func NewBlocks(src Source, lru *LRU, blockSize int64) (*Blocks, error) {
	if blockSize < 1 || blockSize > 64<<20 {
		return nil, fmt.Errorf("source: NewBlocks: block size %d not in [1, 64 MiB]", blockSize)
	}
	if lru == nil {
		return nil, fmt.Errorf("source: NewBlocks: nil LRU")
	}
	return &Blocks{src: src, lru: lru, bs: blockSize}, nil
}

// Name reports the name of the underlying source.
func (b *Blocks) Name() string { return b.src.Name() }

// Size reports the size of the underlying source.
func (b *Blocks) Size(ctx context.Context) (int64, error) { return b.src.Size(ctx) }

// Unwrap returns the underlying source.
func (b *Blocks) Unwrap() Source { return b.src }

// Stats reports the statistics of the underlying source plus block hits and
// misses.
func (b *Blocks) Stats() Stats {
	s := b.stats.Snapshot()
	if r, ok := b.src.(Reporter); ok {
		s = s.Add(r.Stats())
	}
	return s
}

// Close closes the underlying source if it is an io.Closer.
func (b *Blocks) Close() error {
	if c, ok := b.src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

func (b *Blocks) key(blk int64) string {
	return b.src.Name() + "\x00b" + strconv.FormatInt(b.bs, 10) + ":" + strconv.FormatInt(blk, 10)
}

// ReadAt copies len(p) bytes at off out of the blocks covering them.
func (b *Blocks) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("source: %s: %w: offset %d", b.src.Name(), ErrRange, off)
	}
	if len(p) == 0 {
		return 0, ctx.Err()
	}
	if int64(len(p)) > 8*b.bs {
		return b.src.ReadAt(ctx, p, off)
	}
	first, last := off/b.bs, (off+int64(len(p))-1)/b.bs
	n := 0
	for blk := first; blk <= last; blk++ {
		data, ok := b.lru.get(b.key(blk))
		if ok {
			b.stats.hits.Add(1)
		} else {
			var err error
			if data, err = b.fetch(ctx, blk, last); err != nil {
				return n, err
			}
		}
		start := max(off-blk*b.bs, 0)
		if start >= int64(len(data)) {
			return n, io.EOF
		}
		n += copy(p[n:], data[start:])
		if int64(len(data)) < b.bs && n < len(p) {
			return n, io.EOF // a short block ends the object
		}
	}
	return n, nil
}

// fetch reads blocks first..last in one request, stores them and returns
// block first. Blocks past the end of the object come back short or empty.
func (b *Blocks) fetch(ctx context.Context, first, last int64) ([]byte, error) {
	key := b.key(first) + "-" + strconv.FormatInt(last, 10)
	for {
		ch := b.flight.DoChan(key, func() (any, error) {
			b.stats.misses.Add(last - first + 1)
			buf := make([]byte, (last-first+1)*b.bs)
			n, err := b.src.ReadAt(ctx, buf, first*b.bs)
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			buf = buf[:n]
			for blk := first; blk <= last; blk++ {
				lo := min((blk-first)*b.bs, int64(n))
				hi := min(lo+b.bs, int64(n))
				if hi > lo {
					b.lru.put(b.key(blk), buf[lo:hi:hi])
				}
			}
			return buf[:min(b.bs, int64(n))], nil
		})
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r := <-ch:
			if r.Err != nil && ctx.Err() == nil && (errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, context.DeadlineExceeded)) {
				continue // the caller that led the read gave up; ours is live
			}
			if r.Err != nil {
				return nil, r.Err
			}
			return r.Val.([]byte), nil
		}
	}
}
