package engine

import (
	"context"
	"slices"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/io/source"
)

// HDF5 gives the engine's view of an HDF5 dataset's stored elements, read
// through its hdf5.Locator: dims is its shape as the engine reads it ([1] for
// a scalar), fill one element of fill value in stored order (nil: zeros), and
// name names it in errors. It reads the chunk index. The HDF5 driver reads
// its datasets through it, and package index the small datasets it inlines.
func HDF5(ctx context.Context, hd *hdf5.Dataset, dims []int, fill []byte, name string) (*Chunked, error) {
	loc, err := hd.Locator(ctx)
	if err != nil {
		return nil, err
	}
	return &Chunked{
		Shape: dims, Chunks: slices.Clone(loc.Grid()), ItemSize: int(hd.Datatype().Size),
		Fill: fill, Name: name, PadShort: loc.PadShort(), Pipeline: loc.Pipeline(),
		Locator: &hdf5Locator{loc: loc, hf: hd.File(), src: hd.File().Source()},
	}, nil
}

// hdf5Locator hands the engine the chunks an hdf5.Locator finds in the file.
type hdf5Locator struct {
	loc *hdf5.Locator
	hf  *hdf5.File
	src source.Source
}

func (l *hdf5Locator) Locate(ctx context.Context, coords []int) (Chunk, error) {
	c, err := l.loc.Locate(ctx, coords)
	if err != nil {
		return Chunk{}, err
	}
	out := Chunk{Data: c.Data, Missing: c.Missing, Pipeline: c.Pipeline}
	if c.Data == nil && !c.Missing {
		// Small data beside its metadata is often in a page read
		// already: a round trip saved.
		if b, ok := l.hf.Cached(c.Off, c.Len); ok {
			out.Data = b
		} else {
			out.Src, out.Off, out.Len = l.src, c.Off, c.Len
		}
	}
	return out, nil
}

// ChunkSize is the chunk's size in the chunk index (for compact and
// contiguous data, that of the stretch a virtual chunk covers): a Sizer
// that reads no data.
func (l *hdf5Locator) ChunkSize(ctx context.Context, coords []int) (int64, bool, error) {
	c, err := l.loc.Locate(ctx, coords)
	switch {
	case err != nil:
		return 0, false, err
	case c.Missing:
		return 0, true, nil
	case c.Data != nil:
		return int64(len(c.Data)), true, nil
	}
	return c.Len, true, nil
}
