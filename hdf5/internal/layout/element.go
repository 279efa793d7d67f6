package layout

import (
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// element decodes the chunk entries of fixed and extensible arrays: an
// address alone for unfiltered chunks; an address, the stored size and the
// filter mask for filtered ones.
type element struct {
	sizes      fileio.Sizes
	size       int    // bytes of one element
	sizeLen    int    // bytes of the chunk size field; 0 when unfiltered
	chunkBytes uint64 // size of an unfiltered chunk
}

// newElement checks an array header's client ID (0 unfiltered, 1
// filtered) and element size and returns the matching decoder.
func newElement(s fileio.Sizes, client, size uint8, chunkBytes uint64) (element, error) {
	e := element{sizes: s, size: int(size), chunkBytes: chunkBytes}
	switch client {
	case 0:
		if e.size != s.OffsetSize {
			return e, fmt.Errorf("%w: unfiltered chunk elements of %d bytes, want %d", ErrCorrupt, size, s.OffsetSize)
		}
	case 1:
		e.sizeLen = e.size - s.OffsetSize - 4
		if e.sizeLen < 1 || e.sizeLen > 8 {
			return e, fmt.Errorf("%w: filtered chunk elements of %d bytes", ErrCorrupt, size)
		}
	default:
		return e, fmt.Errorf("%w: array client ID %d", ErrCorrupt, client)
	}
	return e, nil
}

// decode decodes one element; ok is false for a chunk never written.
func (e element) decode(b []byte) (c Chunk, ok bool) {
	d := fileio.NewDecoder(b, e.sizes)
	c.Addr = d.Offset()
	c.Size = e.chunkBytes
	if e.sizeLen > 0 {
		c.Size = d.Uint(e.sizeLen)
		c.FilterMask = d.Uint32()
	}
	if d.Err() != nil || fileio.IsUndefined(c.Addr) {
		return Chunk{}, false
	}
	return c, true
}

// bitSet reports bit i of an HDF5 bitmap, most significant bit first.
func bitSet(bitmap []byte, i uint64) bool {
	return i/8 < uint64(len(bitmap)) && bitmap[i/8]&(0x80>>(i%8)) != 0
}
