package btree2

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Type is the record type of a version 2 B-tree.
type Type uint8

// Record types used by the HDF5 library.
const (
	TypeHugeIndirect         Type = 1  // indirectly accessed, non-filtered huge fractal heap objects
	TypeHugeFilteredIndirect Type = 2  // indirectly accessed, filtered huge fractal heap objects
	TypeHugeDirect           Type = 3  // directly accessed, non-filtered huge fractal heap objects
	TypeHugeFilteredDirect   Type = 4  // directly accessed, filtered huge fractal heap objects
	TypeLinkName             Type = 5  // link name hash of an indexed group
	TypeLinkOrder            Type = 6  // link creation order of an indexed group
	TypeSharedMessage        Type = 7  // shared object header messages
	TypeAttrName             Type = 8  // attribute name hash of dense attribute storage
	TypeAttrOrder            Type = 9  // attribute creation order of dense attribute storage
	TypeChunk                Type = 10 // chunks of a dataset without filters
	TypeFilteredChunk        Type = 11 // chunks of a dataset with filters
)

// Limits on what a header may announce.
const (
	// MaxDepth bounds the tree depth. Each level multiplies the capacity
	// by at least two, and real trees stay far below this.
	MaxDepth = 32
	// MaxNodeSize bounds the node size in bytes.
	MaxNodeSize = 16 << 20
)

// ErrCorrupt reports a B-tree whose structure contradicts itself or the
// specification. It is package hdf5's ErrFormat.
var ErrCorrupt = fileio.ErrFormat

// prefixSize is the bytes of every node that are not records or
// pointers: signature, version, type and checksum.
const prefixSize = 4 + 1 + 1 + 4

// Header is the decoded B-tree header.
type Header struct {
	Type         Type   // record type
	NodeSize     uint32 // bytes allocated to every node
	RecordSize   uint16 // bytes of one record
	Depth        uint16 // 0 when the root is a leaf
	Root         uint64 // address of the root node; undefined in an empty tree
	RootRecords  uint16 // records in the root node
	TotalRecords uint64 // records in the whole tree
}

// level describes the nodes at one depth (0 = leaves).
type level struct {
	maxRecords uint64 // records a node at this depth can hold
	cumMax     uint64 // records a subtree rooted at this depth can hold
	cumSize    int    // bytes of a "total records" field counting such a subtree
}

// decodeHeader decodes and checks a header.
func decodeHeader(b []byte, sizes fileio.Sizes) (Header, error) {
	var h Header
	if err := fileio.VerifyChecksum(b, "B-tree v2 header"); err != nil {
		return h, err
	}
	d := fileio.NewDecoder(b, sizes)
	d.Signature("BTHD")
	if v := d.Uint8(); d.Err() == nil && v != 0 {
		return h, fmt.Errorf("hdf5: B-tree v2 header version %d not supported", v)
	}
	h.Type = Type(d.Uint8())
	h.NodeSize = d.Uint32()
	h.RecordSize = d.Uint16()
	h.Depth = d.Uint16()
	d.Skip(2) // split and merge percentages: only used when writing
	h.Root = d.Offset()
	h.RootRecords = d.Uint16()
	h.TotalRecords = d.Length()
	if err := d.Err(); err != nil {
		return h, fmt.Errorf("hdf5: B-tree v2 header: %w", err)
	}
	return h, nil
}

// headerSize returns the byte size of a header, checksum included.
func headerSize(s fileio.Sizes) int {
	return 4 + 1 + 1 + 4 + 2 + 2 + 1 + 1 + s.OffsetSize + 2 + s.LengthSize + 4
}

// levels computes, as the HDF5 library does, the capacity of the nodes at
// each depth and the widths of the record-count fields of internal nodes.
func (h Header) levels(s fileio.Sizes) ([]level, int, error) {
	if h.Depth > MaxDepth {
		return nil, 0, fmt.Errorf("%w: depth %d exceeds %d", ErrCorrupt, h.Depth, MaxDepth)
	}
	if h.NodeSize > MaxNodeSize || h.RecordSize == 0 || uint64(h.NodeSize) < prefixSize+uint64(h.RecordSize) {
		return nil, 0, fmt.Errorf("%w: node size %d cannot hold records of %d bytes", ErrCorrupt, h.NodeSize, h.RecordSize)
	}
	lv := make([]level, int(h.Depth)+1)
	leafMax := (uint64(h.NodeSize) - prefixSize) / uint64(h.RecordSize)
	lv[0] = level{maxRecords: leafMax, cumMax: leafMax}
	nrecSize := encSize(leafMax)
	for i := 1; i < len(lv); i++ {
		ptr := uint64(s.OffsetSize + nrecSize)
		if i > 1 {
			ptr += uint64(lv[i-1].cumSize)
		}
		if uint64(h.NodeSize) < prefixSize+ptr+uint64(h.RecordSize)+ptr {
			return nil, 0, fmt.Errorf("%w: %d-byte nodes cannot hold an internal node at depth %d", ErrCorrupt, h.NodeSize, i)
		}
		maxRec := (uint64(h.NodeSize) - prefixSize - ptr) / (uint64(h.RecordSize) + ptr)
		hi, lo := bits.Mul64(maxRec+1, lv[i-1].cumMax)
		cum, carry := bits.Add64(lo, maxRec, 0)
		if hi != 0 || carry != 0 {
			return nil, 0, fmt.Errorf("%w: capacity overflows at depth %d of %d", ErrCorrupt, i, h.Depth)
		}
		lv[i] = level{maxRecords: maxRec, cumMax: cum, cumSize: encSize(cum)}
	}
	return lv, nrecSize, nil
}

// encSize returns the bytes needed to store n: floor(log2 n)/8 + 1.
func encSize(n uint64) int {
	if n == 0 {
		return 1
	}
	return (bits.Len64(n)-1)/8 + 1
}

// readHeader reads the header at addr.
func readHeader(ctx context.Context, r *fileio.Reader, addr uint64) (Header, error) {
	b, err := r.Bytes(ctx, addr, uint64(headerSize(r.Sizes())))
	if err != nil {
		return Header{}, fmt.Errorf("hdf5: B-tree v2 header at %d: %w", addr, err)
	}
	h, err := decodeHeader(b, r.Sizes())
	if err != nil {
		return h, fmt.Errorf("%w (header at %d)", err, addr)
	}
	return h, nil
}
