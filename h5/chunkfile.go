package h5

import (
	"context"
	"os"
)

// chunkFile is a local file opened anew for each read: a Zarr directory store
// has one file per chunk and per metadata document, too many to keep open.
type chunkFile string

func (c chunkFile) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	fh, err := os.Open(string(c))
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	return fh.ReadAt(p, off)
}

func (c chunkFile) Size(context.Context) (int64, error) {
	st, err := os.Stat(string(c))
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (c chunkFile) Name() string { return string(c) }
