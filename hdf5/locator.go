package hdf5

import (
	"context"
	"fmt"
	"math"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/hdf5/internal/fileio"
	"github.com/lindigo/lindi/hdf5/internal/layout"
)

// Layout is how a dataset's raw data is stored.
type Layout uint8

// Storage layouts, numbered as in the layout message. A virtual dataset
// has no Locator (ErrUnsupported): its elements are those of other
// datasets, which its Mappings name.
const (
	LayoutCompact    Layout = 0 // in the object header
	LayoutContiguous Layout = 1 // one block of the file
	LayoutChunked    Layout = 2 // chunks found through an index
	LayoutVirtual    Layout = 3 // mapped from other datasets
)

// String returns "compact", "contiguous", "chunked" or "virtual".
func (l Layout) String() string { return layout.Class(l).String() }

// VirtualChunkBytes is about the size of the chunks a Locator cuts
// contiguous data into (whole rows of the first dimension, at least one),
// so that reading a few rows fetches little and a large read can run in
// parallel.
const VirtualChunkBytes = 1 << 20

// Chunk is where one chunk of a dataset is stored: exactly one of Missing,
// Data, or the range Off, Len of the file's Source.
type Chunk struct {
	// Data holds the stored bytes of compact data, which live in the
	// object header. It is shared; do not modify it.
	Data []byte
	// Off and Len locate the stored bytes in File.Source: absolute
	// offsets, the superblock's base address already added, checked to
	// lie inside the file.
	Off, Len int64
	// Missing is set for a chunk that was never written: its elements
	// hold the dataset's fill value.
	Missing bool
	// Pipeline decodes the stored bytes: the dataset's filters minus
	// those this chunk skipped (its filter mask, or all of them for a
	// partial edge chunk stored unfiltered). It is nil for compact and
	// contiguous data and empty for a chunk stored raw.
	Pipeline *codecs.Pipeline
}

// Locator maps a dataset's chunk grid coordinates to where each chunk is
// stored. Compact and contiguous data are located as chunks too (one
// chunk; virtual chunks of whole rows), so that one reader serves every
// layout. A Locator is safe for concurrent use.
type Locator struct {
	ds       *Dataset
	class    layout.Class
	shape    []int // [1] for a scalar
	grid     []int
	counts   []int // chunks along each dimension
	padShort bool

	data      []byte       // compact
	off       int64        // contiguous: absolute offset, -1 when unallocated
	chunkLen  int64        // contiguous: bytes per virtual chunk
	total     int64        // contiguous: bytes of the whole dataset
	idx       layout.Index // chunked
	edgesRaw  bool         // chunked: partial edge chunks skip all filters
	full      *codecs.Pipeline
	chunkDims []uint64 // chunked, for the edge rule
}

// Locator returns the dataset's chunk locator. The first call reads the
// chunk index of a chunked dataset (a failure is not remembered: the next
// call tries again); later calls return the same Locator. It fails with
// ErrUnsupported for a filter the codec registry (WithCodecs) cannot
// decode, and for dimensions that do not fit an int.
func (ds *Dataset) Locator(ctx context.Context) (*Locator, error) {
	ds.loc.mu.Lock()
	defer ds.loc.mu.Unlock()
	if ds.loc.l != nil {
		return ds.loc.l, nil
	}
	l, err := ds.newLocator(ctx)
	if err != nil {
		return nil, fmt.Errorf("hdf5: locate chunks of %s: %w", ds.path, err)
	}
	ds.loc.l = l
	return l, nil
}

func (ds *Dataset) newLocator(ctx context.Context) (*Locator, error) {
	if ds.err != nil {
		return nil, ds.err
	}
	l := &Locator{ds: ds, class: ds.layout.Class}
	var err error
	if l.shape, err = ds.gridShape(); err != nil {
		return nil, err
	}
	switch l.class {
	case layout.Compact:
		err = l.initCompact()
	case layout.Contiguous:
		err = l.initContiguous()
	case layout.Chunked:
		err = l.initChunked(ctx)
	case layout.Virtual:
		err = fmt.Errorf("%w: a virtual dataset has no chunks: its elements are read through its mappings", ErrUnsupported)
	default:
		err = fmt.Errorf("%w: %s layout", ErrUnsupported, l.class)
	}
	if err != nil {
		return nil, err
	}
	l.counts = make([]int, len(l.shape))
	for i, n := range l.shape {
		l.counts[i] = n / l.grid[i]
		if n%l.grid[i] != 0 {
			l.counts[i]++
		}
	}
	return l, nil
}

// gridShape returns the dataset's shape as a reader sees it: [1] for a
// scalar, [0] for a null dataspace.
func (ds *Dataset) gridShape() ([]int, error) {
	switch ds.space.Kind {
	case SpaceScalar:
		return []int{1}, nil
	case SpaceNull:
		return []int{0}, nil
	}
	shape := make([]int, len(ds.space.Dims))
	for i, n := range ds.space.Dims {
		if n > math.MaxInt32*1024 {
			return nil, fmt.Errorf("%w: dimension of %d elements", ErrUnsupported, n)
		}
		shape[i] = int(n)
	}
	return shape, nil
}

func (l *Locator) initCompact() error {
	total, err := l.ds.NumBytes()
	if err != nil {
		return err
	}
	l.data = l.ds.layout.Data[:min(uint64(len(l.ds.layout.Data)), total)]
	if l.data == nil {
		l.data = []byte{} // Data, not a range, locates compact data
	}
	l.padShort = true
	l.grid = make([]int, len(l.shape))
	for i, n := range l.shape {
		l.grid[i] = max(n, 1)
	}
	return nil
}

func (l *Locator) initContiguous() error {
	total, err := l.ds.NumBytes()
	if err != nil {
		return err
	}
	if total > math.MaxInt64 {
		return fmt.Errorf("%w: %d bytes of contiguous data", ErrUnsupported, total)
	}
	l.total, l.padShort, l.off = int64(total), true, -1
	itemSize := int64(l.ds.dtype.Size)
	rowBytes := itemSize // saturates past VirtualChunkBytes: one row per chunk then
	for _, n := range l.shape[1:] {
		rowBytes = min(rowBytes*int64(max(n, 1)), VirtualChunkBytes+1)
	}
	rows := max(1, min(l.shape[0], VirtualChunkBytes/max(int(rowBytes), 1)))
	l.grid = append([]int{rows}, l.shape[1:]...)
	for i := range l.grid {
		l.grid[i] = max(l.grid[i], 1)
	}
	if total == 0 {
		return nil // no chunk to locate; chunkLen could overflow
	}
	l.chunkLen = itemSize
	for _, c := range l.grid {
		l.chunkLen *= int64(c) // at most total: every factor is a whole dimension or fewer rows
	}
	lay := l.ds.layout
	if fileio.IsUndefined(lay.Addr) {
		return nil
	}
	if lay.Size != 0 && lay.Size < total {
		return fmt.Errorf("%w: %d bytes of contiguous storage, want %d", ErrFormat, lay.Size, total)
	}
	l.off, err = l.ds.f.r.Abs(lay.Addr, total)
	return err
}

func (l *Locator) initChunked(ctx context.Context) error {
	ds := l.ds
	if ds.space.Kind != SpaceSimple {
		return fmt.Errorf("%w: chunked layout of a %s dataspace", ErrFormat, ds.space.Kind)
	}
	idx, err := ds.layout.Index(ctx, ds.f.r, ds.space.Dims, ds.space.MaxDims)
	if err != nil {
		return err
	}
	if len(ds.layout.Chunk) != len(l.shape) {
		return fmt.Errorf("%w: %d chunk dimensions for %d dataset dimensions", ErrFormat, len(ds.layout.Chunk), len(l.shape))
	}
	l.grid = make([]int, len(l.shape))
	for i, c := range ds.layout.Chunk {
		if c > math.MaxInt32 {
			return fmt.Errorf("%w: chunk dimension of %d elements", ErrUnsupported, c)
		}
		l.grid[i] = int(c)
	}
	if l.full, err = ds.Pipeline(); err != nil {
		return err
	}
	l.idx, l.chunkDims = idx, ds.layout.Chunk
	l.edgesRaw = ds.layout.Flags&layout.FlagNoFilterEdgeChunks != 0
	return nil
}

// Layout returns the layout of the dataset the Locator locates.
func (l *Locator) Layout() Layout { return Layout(l.class) }

// Grid returns the chunk shape to read the dataset in: the chunk shape of
// chunked data, the whole shape of compact data, and for contiguous data
// virtual chunks of whole rows of about VirtualChunkBytes. A scalar
// dataset is read as shape [1]. Every element is at least 1. The slice is
// shared; do not modify it.
func (l *Locator) Grid() []int { return l.grid }

// Pipeline returns the pipeline of a chunk that went through every
// filter: nil for compact and contiguous data, which have no filters.
func (l *Locator) Pipeline() *codecs.Pipeline { return l.full }

// PadShort reports whether a raw chunk may be shorter than Grid: true for
// compact and contiguous data, whose last (or only) chunk ends where the
// stored data does. The elements past its end read as zero bytes.
func (l *Locator) PadShort() bool { return l.padShort }

// Locate returns where the chunk at the given grid coordinates (element
// offset / Grid, per dimension) is stored. Coordinates outside the grid
// are an error.
func (l *Locator) Locate(ctx context.Context, coords []int) (Chunk, error) {
	if err := l.check(coords); err != nil {
		return Chunk{}, fmt.Errorf("hdf5: locate chunk of %s: %w", l.ds.path, err)
	}
	switch l.class {
	case layout.Compact:
		return Chunk{Data: l.data}, nil
	case layout.Contiguous:
		return l.contiguous(coords), nil
	}
	ch, err := l.chunked(ctx, coords)
	if err != nil {
		return Chunk{}, fmt.Errorf("hdf5: locate chunk %v of %s: %w", coords, l.ds.path, err)
	}
	return ch, nil
}

// check reports coordinates outside the grid.
func (l *Locator) check(coords []int) error {
	if len(coords) != len(l.counts) {
		return fmt.Errorf("%d chunk coordinates for %d dimensions", len(coords), len(l.counts))
	}
	for i, c := range coords {
		if c < 0 || c >= l.counts[i] {
			return fmt.Errorf("chunk coordinates %v outside the %v grid", coords, l.counts)
		}
	}
	return nil
}

func (l *Locator) contiguous(coords []int) Chunk {
	if l.off < 0 {
		return Chunk{Missing: true}
	}
	start := int64(coords[0]) * l.chunkLen
	return Chunk{Off: l.off + start, Len: min(l.chunkLen, l.total-start)}
}

func (l *Locator) chunked(ctx context.Context, coords []int) (Chunk, error) {
	stored, ok, err := l.idx.Lookup(ctx, coords)
	if err != nil || !ok {
		return Chunk{Missing: !ok}, err
	}
	off, err := l.ds.f.r.Abs(stored.Addr, stored.Size)
	if err != nil {
		return Chunk{}, err
	}
	mask := stored.FilterMask
	if l.edgesRaw && l.isEdge(coords) {
		mask = layout.AllFiltersSkipped
	}
	pipe := l.full
	if mask != 0 {
		if pipe, err = l.ds.pipes.get(mask); err != nil {
			return Chunk{}, err
		}
	}
	return Chunk{Off: off, Len: int64(stored.Size), Pipeline: pipe}, nil
}

// isEdge reports whether the chunk at coords (inside the grid) extends
// past the dataset's shape.
func (l *Locator) isEdge(coords []int) bool {
	for i, c := range coords {
		start := uint64(c) * l.chunkDims[i] // less than the dimension: no overflow
		if l.ds.space.Dims[i]-start < l.chunkDims[i] {
			return true
		}
	}
	return false
}
