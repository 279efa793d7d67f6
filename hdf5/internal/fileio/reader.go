package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// Source is what a Reader reads from: the method set of
// github.com/lindigo/lindi/io/source.Source, so every source (file, HTTP,
// cache, memory) is one. It is declared here so that this package does not
// depend on the io packages' implementations.
type Source interface {
	ReadAt(ctx context.Context, p []byte, off int64) (n int, err error)
	Size(ctx context.Context) (int64, error)
	Name() string
}

// Defaults and limits of a Reader.
const (
	// DefaultPageSize is the page size of the metadata cache. 64 KiB
	// holds the superblock, root group and first object headers of a
	// typical file in one request, while a remote page still arrives in
	// about one round trip.
	DefaultPageSize = 64 << 10
	// DefaultCacheBytes bounds the memory held by the metadata cache.
	DefaultCacheBytes = 32 << 20
	// MaxRead is the largest read Bytes accepts: no metadata structure
	// in a sane file comes near it, and a hostile size field must not
	// turn into a huge allocation.
	MaxRead = 256 << 20
	// maxCachedPages is the largest span, in pages, read through the
	// cache; longer reads go straight to the source.
	maxCachedPages = 4
)

var (
	// ErrOutOfRange reports an address or range past the end of the file.
	ErrOutOfRange = errors.New("hdf5: address past end of file")
	// ErrTooLarge reports a read longer than MaxRead.
	ErrTooLarge = errors.New("hdf5: read too large")
)

// Option configures a Reader made by New.
type Option func(*config) error

type config struct {
	pageSize   int
	cacheBytes int64
	prefix     []byte
}

// WithPageSize sets the cache page size in bytes: a power of two from
// 512 bytes to 16 MiB.
func WithPageSize(n int) Option {
	return func(c *config) error {
		if n < 512 || n > 16<<20 || n&(n-1) != 0 {
			return fmt.Errorf("hdf5: page size %d: want a power of two from 512 to 16 MiB", n)
		}
		c.pageSize = n
		return nil
	}
}

// WithPrefix hands New the first bytes of the file, already read (the
// sniffing read of a caller that looked at the file first): the pages they
// cover wholly are cached at once instead of read again. b must not be
// modified afterwards.
func WithPrefix(b []byte) Option {
	return func(c *config) error {
		c.prefix = b
		return nil
	}
}

// WithCacheBytes bounds the metadata cache's memory to n bytes; n must be
// at least one page (it is rounded down to whole pages). The cache never
// holds more, except pages that concurrent reads are still copying from.
func WithCacheBytes(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("hdf5: cache size %d: want > 0", n)
		}
		c.cacheBytes = n
		return nil
	}
}

// Reader reads an HDF5 file's bytes through a page cache. Methods take
// file addresses, relative to Sizes().Base. It is safe for concurrent use.
type Reader struct {
	src   Source
	size  int64 // file size in bytes
	sizes Sizes
	cache *pageCache
	stats *counters
}

type counters struct {
	requests, bytes, hits, misses atomic.Int64
}

// Stats counts a Reader's work since New. Readers made by WithSizes share
// the counters of their parent.
type Stats struct {
	Requests  int64 // reads issued to the source
	BytesRead int64 // bytes those reads returned
	Hits      int64 // page lookups served by the cache
	Misses    int64 // page lookups that needed a request
}

// New returns a Reader over src with base address 0 and zero Sizes. It
// asks src for its size once; reads are bounded by it.
func New(ctx context.Context, src Source, opts ...Option) (*Reader, error) {
	c := config{pageSize: DefaultPageSize, cacheBytes: DefaultCacheBytes}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	if c.cacheBytes < int64(c.pageSize) {
		return nil, fmt.Errorf("hdf5: cache size %d smaller than one %d-byte page", c.cacheBytes, c.pageSize)
	}
	size, err := src.Size(ctx)
	if err != nil {
		return nil, fmt.Errorf("hdf5: size of %s: %w", src.Name(), err)
	}
	if size < 0 {
		return nil, fmt.Errorf("hdf5: %s reports negative size %d", src.Name(), size)
	}
	r := &Reader{src: src, size: size, stats: new(counters)}
	r.cache = newPageCache(c.pageSize, int(c.cacheBytes/int64(c.pageSize)), r.stats, r.fetchPage)
	ps := int64(c.pageSize)
	for pg := int64(0); pg < int64(r.cache.maxPages); pg++ {
		end := min((pg+1)*ps, size)
		if pg*ps >= end || end > int64(len(c.prefix)) {
			break
		}
		r.cache.put(pg, c.prefix[pg*ps:end:end])
	}
	return r, nil
}

// WithSizes returns a Reader sharing r's source, cache and counters whose
// addresses are relative to s.Base and whose Decoders use s. It fails
// unless s is valid and its base lies inside the file.
func (r *Reader) WithSizes(s Sizes) (*Reader, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Base > uint64(r.size) {
		return nil, fmt.Errorf("%w: base address %d, file size %d", ErrOutOfRange, s.Base, r.size)
	}
	c := *r
	c.sizes = s
	return &c, nil
}

// Sizes returns the field sizes and base address of r.
func (r *Reader) Sizes() Sizes { return r.sizes }

// Size returns the file's size in bytes.
func (r *Reader) Size() int64 { return r.size }

// Name returns the name of the underlying source.
func (r *Reader) Name() string { return r.src.Name() }

// Cached returns the n bytes at absolute offset off when they lie in one
// page of the cache, without I/O; the slice is shared and must not be
// modified.
func (r *Reader) Cached(off, n int64) ([]byte, bool) {
	ps := int64(r.cache.pageSize)
	if off < 0 || n <= 0 || off/ps != (off+n-1)/ps {
		return nil, false
	}
	p, ok := r.cache.peek(off / ps)
	at := off - off/ps*ps
	if !ok || at+n > int64(len(p)) {
		return nil, false
	}
	r.stats.hits.Add(1)
	return p[at : at+n : at+n], true
}

// Source returns the underlying source, for reading chunk data outside
// the metadata cache.
func (r *Reader) Source() Source { return r.src }

// Stats returns the Reader's counters.
func (r *Reader) Stats() Stats {
	return Stats{
		Requests:  r.stats.requests.Load(),
		BytesRead: r.stats.bytes.Load(),
		Hits:      r.stats.hits.Load(),
		Misses:    r.stats.misses.Load(),
	}
}

// Abs converts address addr of length n to an absolute file offset,
// failing with ErrOutOfRange when addr is Undefined or the range
// [addr, addr+n) does not lie inside the file.
func (r *Reader) Abs(addr, n uint64) (int64, error) {
	if IsUndefined(addr) {
		return 0, fmt.Errorf("%w: undefined address in %s", ErrOutOfRange, r.src.Name())
	}
	off := r.sizes.Base + addr
	if off < addr || off > uint64(r.size) || n > uint64(r.size)-off {
		return 0, fmt.Errorf("%w: %d bytes at address %d (base %d) in %s of %d bytes",
			ErrOutOfRange, n, addr, r.sizes.Base, r.src.Name(), r.size)
	}
	return int64(off), nil
}

// Bytes returns n bytes at address addr in a new slice. n is capped by
// MaxRead and the range must lie inside the file.
func (r *Reader) Bytes(ctx context.Context, addr, n uint64) ([]byte, error) {
	if n > MaxRead {
		return nil, fmt.Errorf("%w: %d bytes at address %d in %s (limit %d)", ErrTooLarge, n, addr, r.src.Name(), MaxRead)
	}
	if _, err := r.Abs(addr, n); err != nil {
		return nil, err
	}
	p := make([]byte, n)
	if err := r.ReadAt(ctx, p, addr); err != nil {
		return nil, err
	}
	return p, nil
}

// Decoder reads n bytes at addr and returns a Decoder over them using r's
// Sizes.
func (r *Reader) Decoder(ctx context.Context, addr, n uint64) (*Decoder, error) {
	b, err := r.Bytes(ctx, addr, n)
	if err != nil {
		return nil, err
	}
	return NewDecoder(b, r.sizes), nil
}

// ReadAt fills p with the bytes at address addr. Unlike io.ReaderAt it
// never returns a short read without an error: the whole range must lie
// inside the file.
func (r *Reader) ReadAt(ctx context.Context, p []byte, addr uint64) error {
	off, err := r.Abs(addr, uint64(len(p)))
	if err != nil {
		return err
	}
	if len(p) == 0 {
		return nil
	}
	ps := int64(r.cache.pageSize)
	first, last := off/ps, (off+int64(len(p))-1)/ps
	if last-first+1 > maxCachedPages {
		return r.direct(ctx, p, off)
	}
	if first == last { // the common case, without allocation
		data, err := r.cache.get(ctx, first)
		if err != nil {
			return err
		}
		return r.copyPage(p, off, first, data)
	}
	pages, err := r.pages(ctx, first, last)
	if err != nil {
		return err
	}
	for i, data := range pages {
		if err := r.copyPage(p, off, first+int64(i), data); err != nil {
			return err
		}
	}
	return nil
}

// copyPage copies the part of page pg that overlaps p, which is read at
// absolute offset off.
func (r *Reader) copyPage(p []byte, off, pg int64, data []byte) error {
	start := pg * int64(r.cache.pageSize)
	lo := max(off, start) - start
	hi := min(off+int64(len(p)), start+int64(len(data))) - start
	if hi <= lo {
		return fmt.Errorf("%w: page %d of %s is short", ErrOutOfRange, pg, r.src.Name())
	}
	copy(p[max(off, start)-off:], data[lo:hi])
	return nil
}

// pages returns pages first..last (first < last), fetched concurrently
// so that a remote read costs one round trip.
func (r *Reader) pages(ctx context.Context, first, last int64) ([][]byte, error) {
	out := make([][]byte, last-first+1)
	g, gctx := errgroup.WithContext(ctx)
	for i := range out {
		g.Go(func() error {
			var err error
			out[i], err = r.cache.get(gctx, first+int64(i))
			return err
		})
	}
	return out, g.Wait()
}

// direct reads p at absolute offset off from the source, uncached.
func (r *Reader) direct(ctx context.Context, p []byte, off int64) error {
	r.stats.requests.Add(1)
	n, err := r.src.ReadAt(ctx, p, off)
	r.stats.bytes.Add(int64(n))
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("hdf5: read %d bytes at %d in %s: %w", len(p), off, r.src.Name(), err)
}

// fetchPage reads page pg from the source; the last page may be short.
func (r *Reader) fetchPage(ctx context.Context, pg int64) ([]byte, error) {
	ps := int64(r.cache.pageSize)
	off := pg * ps
	n := min(ps, r.size-off)
	if n <= 0 {
		return nil, fmt.Errorf("%w: page %d of %s", ErrOutOfRange, pg, r.src.Name())
	}
	p := make([]byte, n)
	if err := r.direct(ctx, p, off); err != nil {
		return nil, err
	}
	return p, nil
}
