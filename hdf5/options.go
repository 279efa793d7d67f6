package hdf5

import (
	"fmt"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Option configures Open and NewReader. An option checks its value when it
// is applied: Open and NewReader fail with an error naming the option and
// the value.
type Option func(*options) error

type options struct {
	pageSize   int
	cacheBytes int64
	codecs     *codecs.Registry
	prefix     []byte
}

// defaultOptions are the bounded defaults Open starts from.
func defaultOptions() options {
	return options{pageSize: fileio.DefaultPageSize, cacheBytes: fileio.DefaultCacheBytes, codecs: codecs.Builtin()}
}

// apply applies opts in order and checks that they agree with each other.
func (o *options) apply(opts []Option) error {
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return err
		}
	}
	if o.cacheBytes < int64(o.pageSize) {
		return fmt.Errorf("hdf5: WithMetadataCacheBytes(%d): smaller than one %d-byte page", o.cacheBytes, o.pageSize)
	}
	return nil
}

// WithPageSize sets the page size of the metadata cache: a power of two
// from 512 bytes to 16 MiB (64 KiB by default). Larger pages cost fewer
// round trips on a remote file with scattered metadata.
func WithPageSize(n int) Option {
	return func(o *options) error {
		if n < 512 || n > 16<<20 || n&(n-1) != 0 {
			return fmt.Errorf("hdf5: WithPageSize(%d): want a power of two from 512 to 16 MiB", n)
		}
		o.pageSize = n
		return nil
	}
}

// WithMetadataCacheBytes bounds the memory of the page cache that holds the
// file's metadata (32 MiB by default); n must hold at least one page. Raw
// data located by a Locator is not read through this cache.
func WithMetadataCacheBytes(n int64) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("hdf5: WithMetadataCacheBytes(%d): want a positive size", n)
		}
		o.cacheBytes = n
		return nil
	}
}

// WithPrefix hands Open the first bytes of the file when the caller has
// already read them (to tell the format, say): the metadata pages they
// cover are not read again, which saves a round trip on a remote file. b
// must be the file's bytes from offset 0 and must not be modified
// afterwards.
func WithPrefix(b []byte) Option {
	return func(o *options) error {
		o.prefix = b
		return nil
	}
}

// WithCodecs sets the registry that Dataset.Pipeline and the Locators
// build filter pipelines with (codecs.Builtin() by default). A nil registry
// is an error.
func WithCodecs(r *codecs.Registry) Option {
	return func(o *options) error {
		if r == nil {
			return fmt.Errorf("hdf5: WithCodecs(nil): want a registry")
		}
		o.codecs = r
		return nil
	}
}
