package hdf5

import (
	"context"
	"fmt"
	"io"
)

// NewReader opens the HDF5 file held by r, which has the given size in
// bytes, as Open does for a source. Like archive/zip.NewReader it suits an
// *os.File, a *bytes.Reader or an io.SectionReader; reads may run
// concurrently, so r's ReadAt must be safe for that (io.ReaderAt's contract).
func NewReader(r io.ReaderAt, size int64, opts ...Option) (*File, error) {
	if r == nil {
		return nil, fmt.Errorf("hdf5: NewReader: nil io.ReaderAt")
	}
	if size < 0 {
		return nil, fmt.Errorf("hdf5: NewReader: negative size %d", size)
	}
	return Open(context.Background(), readerAtSource{r: r, size: size}, opts...)
}

// readerAtSource adapts an io.ReaderAt of known size to a source.Source.
// An io.ReaderAt cannot be cancelled: ReadAt only checks ctx before it
// starts.
type readerAtSource struct {
	r    io.ReaderAt
	size int64
}

// ReadAt reads len(p) bytes at off, unless ctx is already done.
func (s readerAtSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.r.ReadAt(p, off)
}

// Size returns the size given to NewReader.
func (s readerAtSource) Size(context.Context) (int64, error) { return s.size, nil }

// Name names the source in errors; an io.ReaderAt has no name of its own.
func (readerAtSource) Name() string { return "io.ReaderAt" }
