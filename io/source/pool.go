package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// Pool hands out one shared Source per name, so that the thousands of refs a
// LINDI file makes to one URL share one source: one set of statistics, one
// resolved URL, one open file. Its methods are safe for concurrent use.
type Pool struct {
	cfg    *config
	mu     sync.Mutex
	srcs   map[string]Source
	closed bool
}

// NamedStats pairs a source name with its statistics.
type NamedStats struct {
	Name string
	Stats
}

// NewPool returns an empty Pool that opens sources with opts (see Open).
func NewPool(opts ...Option) (*Pool, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return &Pool{cfg: c, srcs: map[string]Source{}}, nil
}

// Open returns the pool's source for name, opening it on first use. The
// source belongs to the pool: callers must not close it. A failed open is not
// remembered.
func (p *Pool) Open(ctx context.Context, name string) (Source, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if s, ok := p.srcs[name]; ok {
		return s, nil
	}
	s, err := open(ctx, name, p.cfg)
	if err != nil {
		return nil, err
	}
	p.srcs[name] = s
	return s, nil
}

// Add makes s the pool's source for name, as if Open had opened it: for
// bytes the caller supplies. It fails if the pool already has a source of
// that name or is closed. The pool closes s (if it is an io.Closer) on Close.
func (p *Pool) Add(name string, s Source) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	if _, ok := p.srcs[name]; ok {
		return fmt.Errorf("source: pool already has %s", Redact(name))
	}
	p.srcs[name] = s
	return nil
}

// Stats reports the statistics of every source opened so far, sorted by name.
func (p *Pool) Stats() []NamedStats {
	p.mu.Lock()
	out := make([]NamedStats, 0, len(p.srcs))
	for name, s := range p.srcs {
		if r, ok := s.(Reporter); ok {
			out = append(out, NamedStats{Name: Redact(name), Stats: r.Stats()})
		}
	}
	p.mu.Unlock()
	slices.SortFunc(out, func(a, b NamedStats) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Close closes every source of the pool and makes later Opens fail. It
// returns the errors of the sources that failed to close, joined.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	for _, s := range p.srcs {
		if c, ok := s.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	p.srcs = nil
	return errors.Join(errs...)
}
