package hdf5

import "github.com/lindigo/lindi/hdf5/internal/fileio"

// Option configures Open.
type Option func(*options)

type options struct {
	reader []fileio.Option
}

// WithPageSize sets the page size of the metadata cache: a power of two
// from 512 bytes to 16 MiB (64 KiB by default). Larger pages cost fewer
// round trips on a remote file with scattered metadata; Open reports an
// invalid size.
func WithPageSize(n int) Option {
	return func(o *options) { o.reader = append(o.reader, fileio.WithPageSize(n)) }
}

// WithCacheBytes bounds the memory of the metadata page cache (32 MiB by
// default); n must hold at least one page, or Open fails.
func WithCacheBytes(n int64) Option {
	return func(o *options) { o.reader = append(o.reader, fileio.WithCacheBytes(n)) }
}
