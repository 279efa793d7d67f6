package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/io/source"
)

// A chunk of a Zarr store over HTTP is an object of its own whose size only
// a request tells: located one at a time, each costs a round trip for its
// size before the one for its bytes, 32 locates at a time (a read of 512
// chunks took 28 round trips). Objects reads the objects of a batch of
// chunks at once instead: whole, in one request each, when the batch's
// bytes are few enough to hold until they are decoded; else only their
// sizes, which the pool's sources then know, so that the fetcher reads the
// bytes in its own round.

// ObjectRequests bounds the requests Objects makes at once: the fetcher's
// default concurrency.
const ObjectRequests = 64

// ObjectBudget bounds the bytes a batch of chunks may take to be read
// whole by Objects (as the chunks' expected sizes estimate them).
const ObjectBudget = 64 << 20

// wholeFirst is how much of an object of unknown size the first request
// asks for: an object that ends before it is read in that one request.
const wholeFirst = 1 << 20

// Objects prepares the locates of the objects named by urls (the chunks of
// one batch, each expected to hold about expect bytes): it returns the
// bytes of each object read whole, or, when the batch would take more than
// ObjectBudget, nil after learning every object's size. An object that is
// not there (404) is in the map as nil; one whose request failed is left
// out, for its locate to read again and report.
func Objects(ctx context.Context, env *Env, urls []string, expect int64) map[string][]byte {
	if len(urls) == 0 {
		return nil
	}
	whole := expect >= 0 && expect <= ObjectBudget/int64(len(urls))
	var mu sync.Mutex
	got := map[string][]byte{}
	var g errgroup.Group
	g.SetLimit(ObjectRequests)
	seen := make(map[string]bool, len(urls))
	for _, u := range urls {
		if seen[u] {
			continue
		}
		seen[u] = true
		g.Go(func() error {
			src, err := env.Pool.Open(ctx, u)
			if err != nil {
				return nil
			}
			if !whole {
				src.Size(ctx) // the source keeps it
				return nil
			}
			b, err := ReadRemote(ctx, src, 0, wholeFirst, env.MetadataLimit())
			switch {
			case NotFound(err):
				b = nil
			case err != nil:
				return nil
			}
			mu.Lock()
			got[u] = b
			mu.Unlock()
			return nil
		})
	}
	g.Wait()
	if !whole {
		return nil
	}
	return got
}

// ReadRemote reads the remote object src from off to its end, of at most
// limit bytes, its size unknown: the first request asks for first bytes, and
// an object that ends before them is read in that one request; the answer
// tells the size of a longer one, whose rest a second request reads.
func ReadRemote(ctx context.Context, src source.Source, off, first, limit int64) ([]byte, error) {
	buf := make([]byte, min(first, limit+1))
	got, err := src.ReadAt(ctx, buf, off)
	switch {
	case errors.Is(err, io.EOF):
		return buf[:got], nil
	case err != nil:
		return nil, err
	}
	size, err := src.Size(ctx) // known from the answer: no request
	if err != nil {
		return nil, err
	}
	n := size - off
	if n > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes is more than the metadata limit of %d (h5.WithMaxMetadataBytes)", src.Name(), ErrFormat, n, limit)
	}
	all := make([]byte, n)
	copy(all, buf)
	if rest, err := src.ReadAt(ctx, all[got:], off+int64(got)); rest != len(all)-got {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: %d bytes at %d: %w", src.Name(), n, off, err)
	}
	return all, nil
}

// Prepared holds the objects a locator's Prepare read whole for the
// locates of its batch (Objects). A locator shared by concurrent reads
// keeps the last batch's: another read's locates then read their objects
// themselves.
type Prepared struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Read reads the objects at urls as Objects does and keeps them.
func (p *Prepared) Read(ctx context.Context, env *Env, urls []string, expect int64) {
	got := Objects(ctx, env, urls, expect)
	p.mu.Lock()
	p.m = got
	p.mu.Unlock()
}

// Take returns the chunk read for the object at url, once; ok is false
// when none was.
func (p *Prepared) Take(url string) (c engine.Chunk, ok bool) {
	p.mu.Lock()
	b, ok := p.m[url]
	delete(p.m, url)
	p.mu.Unlock()
	switch {
	case !ok:
		return engine.Chunk{}, false
	case b == nil:
		return engine.Chunk{Missing: true}, true // a 404
	}
	return engine.Chunk{Data: b, Len: int64(len(b))}, true
}
