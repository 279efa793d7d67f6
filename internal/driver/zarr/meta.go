package zarr

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
)

// ReadMeta reads the whole metadata document name (a LINDI container's
// lindi.json), as readMeta does.
func ReadMeta(ctx context.Context, env *driver.Env, name string) ([]byte, error) {
	return readMeta(ctx, env, name, 0, -1)
}

// readMeta reads n bytes at off of the object name (to its end when n < 0),
// a metadata document of at most env.MetadataLimit() bytes. A local file is opened for the read
// alone (a Zarr directory holds one per group and array); a URL goes through
// the file's source pool.
func readMeta(ctx context.Context, env *driver.Env, name string, off, n int64) ([]byte, error) {
	src := env.Pool.PerRead(name)
	if store.IsURL(name) {
		var err error
		if src, err = env.Pool.Open(ctx, name); err != nil {
			return nil, err
		}
	}
	return readSource(ctx, env, src, off, n, store.IsURL(name))
}

// readSource reads a metadata document from src, as readMeta does; a remote
// one of unknown length in one request when it is short.
func readSource(ctx context.Context, env *driver.Env, src source.Source, off, n int64, remote bool) ([]byte, error) {
	if n < 0 && remote {
		return driver.ReadRemote(ctx, src, off, firstRead, env.MetadataLimit())
	}
	if n < 0 {
		size, err := src.Size(ctx)
		if err != nil {
			return nil, err
		}
		n = size - off
	}
	if limit := env.MetadataLimit(); n > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes is more than the metadata limit of %d (h5.WithMaxMetadataBytes)", src.Name(), driver.ErrFormat, n, limit)
	}
	buf := make([]byte, n)
	got, err := src.ReadAt(ctx, buf, off)
	if got == len(buf) {
		return buf, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = fmt.Errorf("%s: %d bytes at %d: %w", src.Name(), n, off, io.ErrUnexpectedEOF)
	}
	return nil, err
}

// firstRead is how much of a remote document of unknown size the first
// request asks for: a LINDI JSON file up to this size is opened in one GET,
// with no request to learn its size first, and the answer to that GET tells
// the size of a longer one, read in a second.
const firstRead = 8 << 20

// notFound reports whether err says that a key, file or URL does not exist.
func notFound(err error) bool {
	return errors.Is(err, store.ErrNotFound) || driver.NotFound(err)
}
