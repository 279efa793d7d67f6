package hdf5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// RegionKind is the kind of selection a dataset region reference names.
type RegionKind uint8

// The kinds of region, as HDF5 serialises selections.
const (
	RegionNone   RegionKind = 0 // no elements
	RegionPoints RegionKind = 1 // a list of points
	RegionBlocks RegionKind = 2 // a union of hyperslab blocks
	RegionAll    RegionKind = 3 // every element
)

// RegionRef is a decoded dataset region reference: the dataset (its header
// address and path, as ObjectRef) and the elements selected in it (a
// regular hyperslab expanded into its blocks).
type RegionRef struct {
	ObjectRef
	Selection
}

// Selection is a dataspace selection as HDF5 serialises it, in region
// references and in the mappings of virtual datasets.
type Selection struct {
	Kind RegionKind
	// Points lists the coordinates of each selected point (RegionPoints),
	// in their order.
	Points [][]uint64
	// Blocks lists the hyperslab blocks (RegionBlocks): each is its first
	// and last coordinates, inclusive, in HDF5's order. It is nil for a
	// regular hyperslab outside a RegionRef, which Regular describes.
	Blocks [][2][]uint64
	// Regular describes a regular hyperslab (RegionBlocks), nil for a
	// list of blocks.
	Regular *Hyperslab
}

// Hyperslab is a regular hyperslab: per dimension, Count blocks of Block
// elements, the first at Start, each Stride after the last. A Count or
// Block may be Unlimited (virtual dataset mappings).
type Hyperslab struct {
	Start, Stride, Count, Block []uint64
}

// maxRegionItems bounds the points or blocks one region reference may list
// (a regular hyperslab's blocks times its rank), against hostile files.
const maxRegionItems = 1 << 22

func (f *File) decodeRegions(ctx context.Context, t *Datatype, n int, elem func(int) []byte) (any, error) {
	sz := f.r.Sizes()
	if int(t.Size) < sz.OffsetSize+4 {
		return nil, fmt.Errorf("%w: %d-byte region references", ErrFormat, t.Size)
	}
	out := make([]RegionRef, n)
	for i := range out {
		d := fileio.NewDecoder(elem(i), sz)
		addr, idx := d.Offset(), d.Uint32()
		if err := d.Err(); err != nil {
			return nil, err
		}
		if addr == 0 {
			continue // a null reference
		}
		c, err := f.collection(ctx, addr)
		if err != nil {
			return nil, err
		}
		obj, ok := c[uint16(idx)]
		if !ok || idx > 0xffff {
			return nil, fmt.Errorf("%w: no region %d in the global heap collection at %d", ErrFormat, idx, addr)
		}
		r, err := f.parseRegion(ctx, obj)
		if err != nil {
			return nil, fmt.Errorf("region reference %d: %w", i, err)
		}
		out[i] = r
	}
	return out, nil
}

// parseRegion decodes a heap object of a region reference: the dataset's
// header address, then its selection (see parseSelection), a regular
// hyperslab expanded into its blocks.
func (f *File) parseRegion(ctx context.Context, b []byte) (RegionRef, error) {
	d := fileio.NewDecoder(b, f.r.Sizes())
	var r RegionRef
	r.Addr = d.Offset()
	sel, err := parseSelection(d)
	if err == nil && sel.Regular != nil {
		sel.Blocks, err = sel.Regular.blocks()
	}
	if err != nil {
		return r, err
	}
	r.Selection = sel
	r.Path, err = f.PathOf(ctx, r.Addr)
	return r, err
}

// parseSelection decodes a selection serialised as H5S encodes it: its
// type and version, then hyperslab versions 1 to 3, point versions 1 and
// 2, all or none.
func parseSelection(d *fileio.Decoder) (Selection, error) {
	var s Selection
	s.Kind = RegionKind(d.Uint32())
	version := d.Uint32()
	if err := d.Err(); err != nil {
		return s, err
	}
	var err error
	switch s.Kind {
	case RegionNone, RegionAll:
		d.Skip(8) // reserved, length
	case RegionPoints:
		s.Points, err = parsePoints(d, version)
	case RegionBlocks:
		s.Blocks, s.Regular, err = parseBlocks(d, version)
	default:
		return s, fmt.Errorf("%w: selection type %d", ErrFormat, s.Kind)
	}
	if err == nil {
		err = d.Err()
	}
	return s, err
}

// uintReader reads the unsigned integers of a selection of the encoding
// width (4 or 8 bytes; 2 and 1 in version 3).
func uintReader(d *fileio.Decoder, width int) (func() uint64, error) {
	switch width {
	case 1:
		return func() uint64 { return uint64(d.Uint8()) }, nil
	case 2:
		return func() uint64 { return uint64(d.Uint16()) }, nil
	case 4:
		return func() uint64 { return uint64(d.Uint32()) }, nil
	case 8:
		return d.Uint64, nil
	}
	return nil, fmt.Errorf("%w: selection integers of %d bytes", ErrFormat, width)
}

// header reads the common start of a point or hyperslab selection after its
// version: the encoding width and the rank.
func selectionHeader(d *fileio.Decoder, version uint32, hyper bool) (width int, rank uint32, flags uint8, err error) {
	switch {
	case version == 1:
		d.Skip(8) // reserved, length
		width = 4
	case version == 2 && hyper:
		flags = d.Uint8()
		d.Skip(4) // length
		width = 8
	case version == 2 && !hyper:
		width = int(d.Uint8())
	case version == 3 && hyper:
		flags = d.Uint8()
		width = int(d.Uint8())
	default:
		return 0, 0, 0, fmt.Errorf("%w: selection version %d", ErrUnsupported, version)
	}
	rank = d.Uint32()
	if rank == 0 || rank > 32 {
		return 0, 0, 0, fmt.Errorf("%w: selection of rank %d", ErrFormat, rank)
	}
	return width, rank, flags, d.Err()
}

func parsePoints(d *fileio.Decoder, version uint32) ([][]uint64, error) {
	width, rank, _, err := selectionHeader(d, version, false)
	if err != nil {
		return nil, err
	}
	next, err := uintReader(d, width)
	if err != nil {
		return nil, err
	}
	n := next()
	if n > maxRegionItems || n*uint64(rank)*uint64(width) > uint64(d.Len()) {
		return nil, fmt.Errorf("%w: %d points of rank %d in %d bytes", ErrFormat, n, rank, d.Len())
	}
	out := make([][]uint64, n)
	for i := range out {
		out[i] = make([]uint64, rank)
		for j := range out[i] {
			out[i][j] = next()
		}
	}
	return out, nil
}

// parseBlocks reads a hyperslab selection: a list of blocks, or a regular
// hyperslab.
func parseBlocks(d *fileio.Decoder, version uint32) ([][2][]uint64, *Hyperslab, error) {
	width, rank, flags, err := selectionHeader(d, version, true)
	if err != nil {
		return nil, nil, err
	}
	next, err := uintReader(d, width)
	if err != nil {
		return nil, nil, err
	}
	if flags&1 != 0 { // regular: start, stride, count, block per dimension
		h, err := parseRegular(d, next, width, rank)
		return nil, h, err
	}
	n := next()
	if n > maxRegionItems || n*2*uint64(rank)*uint64(width) > uint64(d.Len()) {
		return nil, nil, fmt.Errorf("%w: %d blocks of rank %d in %d bytes", ErrFormat, n, rank, d.Len())
	}
	out := make([][2][]uint64, n)
	for i := range out {
		for k := range 2 {
			out[i][k] = make([]uint64, rank)
			for j := range out[i][k] {
				out[i][k][j] = next()
			}
		}
	}
	return out, nil, nil
}

// parseRegular reads a regular hyperslab; a count or block of all ones in
// the encoding's width is Unlimited.
func parseRegular(d *fileio.Decoder, next func() uint64, width int, rank uint32) (*Hyperslab, error) {
	h := &Hyperslab{make([]uint64, rank), make([]uint64, rank), make([]uint64, rank), make([]uint64, rank)}
	unlimited := ^uint64(0) >> (64 - 8*width)
	for j := range rank {
		h.Start[j], h.Stride[j], h.Count[j], h.Block[j] = next(), next(), next(), next()
		for _, v := range []*uint64{&h.Count[j], &h.Block[j]} {
			if *v == unlimited {
				*v = Unlimited
			}
		}
		if h.Count[j] == 0 || h.Block[j] == 0 {
			return nil, fmt.Errorf("%w: hyperslab count %d, block %d", ErrFormat, h.Count[j], h.Block[j])
		}
	}
	return h, d.Err()
}

// blocks expands a regular hyperslab into its blocks, in C order.
func (h *Hyperslab) blocks() ([][2][]uint64, error) {
	rank := len(h.Start)
	total := uint64(1)
	for j := range rank {
		if h.Count[j] == Unlimited || h.Block[j] == Unlimited {
			return nil, fmt.Errorf("%w: hyperslab with an unlimited count or block", ErrUnsupported)
		}
		if h.Count[j] > maxRegionItems || total*h.Count[j]*uint64(rank) > maxRegionItems {
			return nil, fmt.Errorf("%w: hyperslab of %d × %d blocks", ErrFormat, total, h.Count[j])
		}
		total *= h.Count[j]
	}
	out := make([][2][]uint64, 0, total)
	idx := make([]uint64, rank)
	for range total {
		lo, hi := make([]uint64, rank), make([]uint64, rank)
		for j := range rank {
			lo[j] = h.Start[j] + idx[j]*h.Stride[j]
			hi[j] = lo[j] + h.Block[j] - 1
		}
		out = append(out, [2][]uint64{lo, hi})
		for j := rank - 1; j >= 0; j-- {
			if idx[j]++; idx[j] < h.Count[j] {
				break
			}
			idx[j] = 0
		}
	}
	return out, nil
}
