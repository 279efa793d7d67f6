package hdf5

import (
	"encoding/binary"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// TestRegularBlocks: a version 2 (regular) hyperslab expands to its blocks.
func TestRegularBlocks(t *testing.T) {
	b := []byte{2, 0, 0, 0, 1} // version 2, regular
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 2)           // rank
	for _, v := range []uint64{4, 2, 2, 1, 9, 1, 1, 1} { // axis 0: start 4 stride 2 count 2 block 1; axis 1: 9
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	d := fileio.NewDecoder(b[4:], fileio.Sizes{OffsetSize: 8, LengthSize: 8})
	_, h, err := parseBlocks(d, 2)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := h.blocks()
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 || blocks[0][0][0] != 4 || blocks[1][0][0] != 6 || blocks[1][1][1] != 9 {
		t.Errorf("blocks = %v", blocks)
	}
}

// FuzzRegion checks that no serialised selection makes the parsers panic or
// allocate without bound.
func FuzzRegion(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0}, uint8(1))
	f.Add([]byte{2, 0, 0, 0, 8, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, kind uint8) {
		if len(b) < 4 {
			return
		}
		version := binary.LittleEndian.Uint32(b)
		d := fileio.NewDecoder(b[4:], fileio.Sizes{OffsetSize: 8, LengthSize: 8})
		if kind%2 == 0 {
			parseBlocks(d, version)
		} else {
			parsePoints(d, version)
		}
	})
}
