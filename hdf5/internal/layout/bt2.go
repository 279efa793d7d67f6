package layout

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/btree2"
	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// bt2Index is a version 2 B-tree chunk index, used when more than one
// dimension is unlimited. Records of type 10 (unfiltered) hold a chunk's
// address and scaled offsets (grid coordinates); records of type 11 add
// the stored size and filter mask.
type bt2Index struct {
	t       *btree2.Tree
	g       *grid
	sizes   fileio.Sizes
	sizeLen int // bytes of the chunk size field; 0 for type 10
	chunk   uint64
}

func openBTree2(ctx context.Context, r *fileio.Reader, l *Layout, g *grid) (*bt2Index, error) {
	t, err := btree2.Open(ctx, r, l.Addr)
	if err != nil {
		return nil, err
	}
	x := &bt2Index{t: t, g: g, sizes: r.Sizes(), chunk: g.chunkBytes}
	fixed := r.Sizes().OffsetSize + 8*len(g.n)
	switch t.Type {
	case btree2.TypeChunk:
		if int(t.RecordSize) != fixed {
			return nil, fmt.Errorf("%w: chunk records of %d bytes, want %d", ErrCorrupt, t.RecordSize, fixed)
		}
	case btree2.TypeFilteredChunk:
		x.sizeLen = int(t.RecordSize) - fixed - 4
		if x.sizeLen < 1 || x.sizeLen > 8 {
			return nil, fmt.Errorf("%w: filtered chunk records of %d bytes", ErrCorrupt, t.RecordSize)
		}
	default:
		return nil, fmt.Errorf("%w: B-tree of record type %d, want 10 or 11", ErrCorrupt, t.Type)
	}
	return x, nil
}

// decode splits a record into its chunk and its grid coordinates.
func (x *bt2Index) decode(rec []byte) (Chunk, []uint64) {
	d := fileio.NewDecoder(rec, x.sizes)
	c := Chunk{Addr: d.Offset(), Size: x.chunk}
	if x.sizeLen > 0 {
		c.Size = d.Uint(x.sizeLen)
		c.FilterMask = d.Uint32()
	}
	coords := make([]uint64, len(x.g.n))
	for i := range coords {
		coords[i] = d.Uint64()
	}
	return c, coords
}

// scaled returns the record's scaled offsets, without decoding the rest.
func (x *bt2Index) scaled(rec []byte) []byte {
	return rec[len(rec)-8*len(x.g.n):]
}

func (x *bt2Index) Lookup(ctx context.Context, coords []int) (Chunk, bool, error) {
	if err := x.g.check(coords); err != nil {
		return Chunk{}, false, err
	}
	rec, ok, err := x.t.Find(ctx, func(rec []byte) int {
		s := x.scaled(rec)
		for i, c := range coords {
			v := binary.LittleEndian.Uint64(s[8*i:])
			if uint64(c) != v {
				if uint64(c) < v {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	if err != nil || !ok {
		return Chunk{}, false, err
	}
	c, _ := x.decode(rec)
	if fileio.IsUndefined(c.Addr) {
		return Chunk{}, false, nil
	}
	return c, true, nil
}

func (x *bt2Index) All(ctx context.Context) ([]Entry, error) {
	var out []Entry
	err := x.t.Walk(ctx, func(rec []byte) error {
		c, coords := x.decode(rec)
		if !fileio.IsUndefined(c.Addr) && x.g.inside(coords) {
			out = append(out, Entry{Coords: toInts(coords), Chunk: c})
		}
		return nil
	})
	return out, err
}
