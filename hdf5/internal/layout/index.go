package layout

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Chunk is where one chunk is stored. Addr is an HDF5 address: add the
// superblock's base address (fileio.Sizes.Base, usually 0) to get the file
// offset, or let fileio.Reader.Abs check and convert it.
type Chunk struct {
	Addr uint64 // address of the chunk's bytes, relative to the base address
	Size uint64 // stored (filtered) size in bytes
	// FilterMask has bit i set when filter i of the pipeline was not
	// applied to this chunk.
	FilterMask uint32
}

// AllFiltersSkipped is the FilterMask of a chunk stored without any
// filter: the partial edge chunks of a layout with FlagNoFilterEdgeChunks.
const AllFiltersSkipped = ^uint32(0)

// Entry is a stored chunk and its coordinates in the chunk grid.
type Entry struct {
	Coords []int // chunk grid coordinates: element offset / chunk size
	Chunk
}

// Index locates the chunks of a chunked dataset. Implementations are safe
// for concurrent use.
type Index interface {
	// Lookup returns the chunk at the given chunk grid coordinates. The
	// bool is false, with a nil error, when the chunk was never written:
	// its elements hold the dataset's fill value. Coordinates outside
	// the grid are an error.
	Lookup(ctx context.Context, coords []int) (Chunk, bool, error)
	// All returns every stored chunk inside the dataset's current
	// extent, in the index's order.
	All(ctx context.Context) ([]Entry, error)
}

// Index returns the chunk index of a chunked layout. dims are the
// dataset's current dimensions and maxDims its maximum dimensions, with
// fileio.Undefined for an unlimited dimension (the encoding HDF5 uses); a
// nil maxDims means maxDims equal dims. Fixed array, implicit and
// extensible array indexes number chunks over the maximum extent, so the
// dataspace's real maximum dimensions must be given for them. The element size is the one the
// layout stores. A layout whose index address is undefined (no chunk
// allocated yet) or a dataset with a zero dimension yields an Index with
// no chunks.
func (l *Layout) Index(ctx context.Context, r *fileio.Reader, dims, maxDims []uint64) (Index, error) {
	if l.Class != Chunked {
		return nil, fmt.Errorf("hdf5: %s layout has no chunk index", l.Class)
	}
	g, err := newGrid(l, dims, maxDims)
	if err != nil {
		return nil, err
	}
	if fileio.IsUndefined(l.Addr) || g.empty() {
		return emptyIndex{g}, nil
	}
	var idx Index
	switch l.IndexType {
	case BTree1:
		idx, err = newBTree1(r, l, g)
	case Single:
		idx, err = newSingle(r, l, g)
	case Implicit:
		idx, err = newImplicit(r, l, g)
	case FixedArray:
		idx, err = openFixedArray(ctx, r, l, g)
	case ExtensibleArray:
		idx, err = openExtensibleArray(ctx, r, l, g)
	case BTree2:
		idx, err = openBTree2(ctx, r, l, g)
	default:
		err = fmt.Errorf("%w: chunk index type %d", ErrUnsupported, l.IndexType)
	}
	if err != nil {
		return nil, fmt.Errorf("hdf5: %s chunk index at %d: %w", l.IndexType, l.Addr, err)
	}
	if l.Flags&FlagNoFilterEdgeChunks != 0 {
		idx = edgeIndex{idx, g}
	}
	return idx, nil
}

// edgeIndex marks the partial edge chunks of a layout with
// FlagNoFilterEdgeChunks as unfiltered: HDF5 stores them raw without
// recording it in their filter masks.
type edgeIndex struct {
	Index
	g *grid
}

func (e edgeIndex) Lookup(ctx context.Context, coords []int) (Chunk, bool, error) {
	c, ok, err := e.Index.Lookup(ctx, coords)
	if ok && e.g.partial(coords) {
		c.FilterMask = AllFiltersSkipped
	}
	return c, ok, err
}

func (e edgeIndex) All(ctx context.Context) ([]Entry, error) {
	all, err := e.Index.All(ctx)
	for i := range all {
		if e.g.partial(all[i].Coords) {
			all[i].FilterMask = AllFiltersSkipped
		}
	}
	return all, err
}

// emptyIndex is the index of a dataset with no chunk allocated.
type emptyIndex struct{ g *grid }

func (e emptyIndex) Lookup(_ context.Context, coords []int) (Chunk, bool, error) {
	return Chunk{}, false, e.g.check(coords)
}

func (e emptyIndex) All(context.Context) ([]Entry, error) { return nil, nil }
