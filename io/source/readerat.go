package source

import (
	"context"
	"io"
)

// readerAt adapts a Source to io.ReaderAt with a context fixed at creation.
type readerAt struct {
	ctx context.Context
	src Source
}

// NewReaderAt returns an io.ReaderAt reading src with ctx, for code written
// against the standard interface (archive/tar, io.SectionReader). It stores
// ctx: use it for the span of one operation only.
func NewReaderAt(ctx context.Context, src Source) io.ReaderAt {
	return readerAt{ctx: ctx, src: src}
}

// ReadAt reads from the source with the stored context.
func (r readerAt) ReadAt(p []byte, off int64) (int, error) { return r.src.ReadAt(r.ctx, p, off) }
