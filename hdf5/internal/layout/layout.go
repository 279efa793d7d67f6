package layout

import (
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

var (
	// ErrUnsupported reports a layout, index or filter this package does
	// not read. It is package hdf5's ErrUnsupported.
	ErrUnsupported = fileio.ErrUnsupported
	// ErrCorrupt reports a layout or chunk index that contradicts the
	// specification or itself. It is package hdf5's ErrFormat.
	ErrCorrupt = fileio.ErrFormat
)

// Class is the storage class of a dataset's raw data.
type Class uint8

// Storage classes, numbered as in the layout message.
const (
	Compact    Class = 0 // data inside the object header
	Contiguous Class = 1 // one block of the file
	Chunked    Class = 2 // chunks located by an index
	Virtual    Class = 3 // mapped from other datasets
)

// String returns the class name.
func (c Class) String() string {
	switch c {
	case Compact:
		return "compact"
	case Contiguous:
		return "contiguous"
	case Chunked:
		return "chunked"
	case Virtual:
		return "virtual"
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// IndexType identifies the structure that locates a dataset's chunks.
type IndexType uint8

// Chunk index types, numbered as in version 4 layout messages. Layout
// messages of versions 1 to 3 always use BTree1, which has no number there.
const (
	BTree1          IndexType = 0
	Single          IndexType = 1
	Implicit        IndexType = 2
	FixedArray      IndexType = 3
	ExtensibleArray IndexType = 4
	BTree2          IndexType = 5
)

// String returns the index type's name.
func (t IndexType) String() string {
	switch t {
	case BTree1:
		return "v1 B-tree"
	case Single:
		return "single chunk"
	case Implicit:
		return "implicit"
	case FixedArray:
		return "fixed array"
	case ExtensibleArray:
		return "extensible array"
	case BTree2:
		return "v2 B-tree"
	}
	return fmt.Sprintf("index(%d)", uint8(t))
}

// Flags of a version 4 chunked layout.
const (
	// FlagNoFilterEdgeChunks: partial edge chunks are stored unfiltered;
	// Index reports them with FilterMask AllFiltersSkipped.
	FlagNoFilterEdgeChunks = 1 << 0
	// FlagSingleFiltered: a single-chunk index stores the filtered size
	// and filter mask of its chunk.
	FlagSingleFiltered = 1 << 1
)

// maxRank bounds the dimensionality of a chunked layout (the HDF5
// library allows 32 dimensions plus the element size).
const maxRank = 32

// Layout is a decoded Data Layout message.
type Layout struct {
	Version uint8 // message version, 1 to 4
	Class   Class // storage class

	// Data holds a compact dataset's raw data; it aliases the message.
	Data []byte

	// Addr is the address of a contiguous dataset's data, of a chunk
	// index or of the global heap collection holding a virtual dataset's
	// mappings; Undefined when nothing was allocated.
	Addr uint64
	// HeapIndex is the index of a virtual dataset's mappings in the
	// collection at Addr.
	HeapIndex uint32
	// Size is a contiguous dataset's size in bytes. Versions 1 and 2 do
	// not store it: it is 0 there, and the size follows from the
	// dataspace and datatype.
	Size uint64

	// Chunk holds the chunk dimensions in elements, one per dataset
	// dimension (the element-size dimension the message stores last is
	// in ElemSize).
	Chunk []uint64
	// ElemSize is the element size in bytes stored with the chunk
	// dimensions.
	ElemSize uint64
	// Flags holds the version 4 chunked layout flags (FlagSingleFiltered,
	// FlagNoFilterEdgeChunks).
	Flags uint8
	// Index is the chunk index type.
	IndexType IndexType

	// SingleSize and SingleMask are the filtered size and filter mask
	// of the chunk of a Single index with FlagSingleFiltered.
	SingleSize uint64
	SingleMask uint32
	// PageBits is log2 of the elements per data block page of a
	// FixedArray index.
	PageBits uint8
	// EA holds the creation parameters of an ExtensibleArray index.
	EA EAParams
	// BT2 holds the creation parameters of a BTree2 index.
	BT2 BT2Params
}

// EAParams are the creation parameters a version 4 layout message stores
// for an extensible array chunk index.
type EAParams struct {
	MaxBits       uint8 // log2 of the maximum number of elements
	IndexElements uint8 // elements stored in the index block
	MinPointers   uint8 // minimum data block pointers in a super block
	MinElements   uint8 // minimum elements in a data block
	PageBits      uint8 // log2 of the elements per data block page
}

// BT2Params are the creation parameters a version 4 layout message stores
// for a version 2 B-tree chunk index.
type BT2Params struct {
	NodeSize     uint32
	SplitPercent uint8
	MergePercent uint8
}

// ChunkBytes returns the size in bytes of an unfiltered chunk: the
// product of the chunk dimensions and the element size. ok is false on
// overflow.
func (l *Layout) ChunkBytes() (n uint64, ok bool) {
	n = l.ElemSize
	for _, c := range l.Chunk {
		if c != 0 && n > ^uint64(0)/c {
			return 0, false
		}
		n *= c
	}
	return n, true
}

// Parse decodes a Data Layout message (versions 1 to 4). sizes gives the
// widths of addresses and lengths. The returned Layout's Data aliases msg.
func Parse(msg []byte, sizes fileio.Sizes) (*Layout, error) {
	d := fileio.NewDecoder(msg, sizes)
	l := &Layout{Version: d.Uint8(), Addr: fileio.Undefined}
	var err error
	switch l.Version {
	case 1, 2:
		err = l.parseV1(d)
	case 3, 4:
		err = l.parseV3(d)
	default:
		if d.Err() != nil {
			return nil, fmt.Errorf("hdf5: layout message: %w", d.Err())
		}
		return nil, fmt.Errorf("%w: layout message version %d", ErrUnsupported, l.Version)
	}
	if err == nil {
		err = d.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("hdf5: layout message version %d: %w", l.Version, err)
	}
	if l.Class == Chunked {
		if _, ok := l.ChunkBytes(); !ok {
			return nil, fmt.Errorf("%w: chunk of %v elements of %d bytes overflows", ErrCorrupt, l.Chunk, l.ElemSize)
		}
	}
	return l, nil
}

func (l *Layout) parseV1(d *fileio.Decoder) error {
	ndims := int(d.Uint8())
	l.Class = Class(d.Uint8())
	d.Skip(5)
	if ndims == 0 || ndims > maxRank+1 {
		return fmt.Errorf("%w: dimensionality %d", ErrCorrupt, ndims)
	}
	switch l.Class {
	case Compact:
	case Contiguous, Chunked:
		l.Addr = d.Offset()
	case Virtual:
		return fmt.Errorf("%w: virtual layout in a version %d message", ErrCorrupt, l.Version)
	default:
		return fmt.Errorf("%w: layout class %d", ErrCorrupt, l.Class)
	}
	dims := make([]uint64, ndims)
	for i := range dims {
		dims[i] = uint64(d.Uint32())
	}
	switch l.Class {
	case Chunked:
		return l.setChunkDims(dims)
	case Compact:
		l.Data = d.Bytes(int(d.Uint32()))
	}
	return nil
}

func (l *Layout) parseV3(d *fileio.Decoder) error {
	l.Class = Class(d.Uint8())
	switch l.Class {
	case Compact:
		n := d.Uint16()
		l.Data = d.Bytes(int(n))
	case Contiguous:
		l.Addr = d.Offset()
		l.Size = d.Length()
	case Chunked:
		if l.Version == 3 {
			return l.parseChunkedV3(d)
		}
		return l.parseChunkedV4(d)
	case Virtual:
		if l.Version < 4 {
			return fmt.Errorf("%w: virtual layout in a version %d message", ErrCorrupt, l.Version)
		}
		l.Addr = d.Offset()
		l.HeapIndex = d.Uint32()
	default:
		return fmt.Errorf("%w: layout class %d", ErrCorrupt, l.Class)
	}
	return nil
}

func (l *Layout) parseChunkedV3(d *fileio.Decoder) error {
	ndims := int(d.Uint8())
	if ndims < 2 || ndims > maxRank+1 {
		return fmt.Errorf("%w: chunk dimensionality %d", ErrCorrupt, ndims)
	}
	l.Addr = d.Offset()
	dims := make([]uint64, ndims)
	for i := range dims {
		dims[i] = uint64(d.Uint32())
	}
	return l.setChunkDims(dims)
}

func (l *Layout) parseChunkedV4(d *fileio.Decoder) error {
	l.Flags = d.Uint8()
	ndims := int(d.Uint8())
	width := int(d.Uint8())
	if d.Err() != nil {
		return d.Err()
	}
	if l.Flags&^(FlagNoFilterEdgeChunks|FlagSingleFiltered) != 0 {
		return fmt.Errorf("%w: chunked layout flags %#x", ErrCorrupt, l.Flags)
	}
	if ndims < 2 || ndims > maxRank+1 {
		return fmt.Errorf("%w: chunk dimensionality %d", ErrCorrupt, ndims)
	}
	if width < 1 || width > 8 {
		return fmt.Errorf("%w: chunk dimension width %d bytes", ErrCorrupt, width)
	}
	dims := make([]uint64, ndims)
	for i := range dims {
		dims[i] = d.Uint(width)
	}
	l.IndexType = IndexType(d.Uint8())
	switch l.IndexType {
	case Single:
		if l.Flags&FlagSingleFiltered != 0 {
			l.SingleSize = d.Length()
			l.SingleMask = d.Uint32()
		}
	case Implicit:
	case FixedArray:
		l.PageBits = d.Uint8()
	case ExtensibleArray:
		l.EA = EAParams{MaxBits: d.Uint8(), IndexElements: d.Uint8(), MinPointers: d.Uint8(), MinElements: d.Uint8(), PageBits: d.Uint8()}
	case BTree2:
		l.BT2 = BT2Params{NodeSize: d.Uint32(), SplitPercent: d.Uint8(), MergePercent: d.Uint8()}
	default:
		if d.Err() == nil {
			return fmt.Errorf("%w: chunk index type %d", ErrCorrupt, l.IndexType)
		}
	}
	l.Addr = d.Offset()
	return l.setChunkDims(dims)
}

// setChunkDims splits the stored chunk dimensions into the chunk shape
// and the trailing element size, rejecting zero sizes.
func (l *Layout) setChunkDims(dims []uint64) error {
	for i, n := range dims {
		if n == 0 {
			return fmt.Errorf("%w: chunk dimension %d is 0", ErrCorrupt, i)
		}
	}
	l.Chunk = dims[:len(dims)-1]
	l.ElemSize = dims[len(dims)-1]
	if len(l.Chunk) == 0 {
		return fmt.Errorf("%w: chunked layout without dimensions", ErrCorrupt)
	}
	return nil
}
