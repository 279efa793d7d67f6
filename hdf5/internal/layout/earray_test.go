package layout

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// eaImage builds, in memory, an extensible array whose data blocks are
// paged: HDF5's default parameters page only blocks of more than 1024
// elements, which takes over 130000 chunks, too many for a fixture.
//
// Parameters: 8-bit maximum (1-byte block offsets), 1 element in the
// index block, data blocks of at least 2 elements, super blocks of at
// least 2 data blocks, pages of 4 elements. Element idx holds address
// 1000+idx. Layout of the element space:
//
//	idx 0        index block element
//	idx 1..2     super block 0: one data block of 2, in the index block
//	idx 3..6     super block 1: one data block of 4, in the index block (never written)
//	idx 7..14    super block 2: two data blocks of 4 (idx 12 never written)
//	idx 15..30   super block 3: two data blocks of 8, paged by 4; only the
//	             first page of the first block written
func eaImage() []byte {
	img := make([]byte, 1024)
	undef := ^uint64(0)
	put := func(at int, sig string, fields ...any) {
		b := []byte(sig)
		for _, f := range fields {
			switch v := f.(type) {
			case byte:
				b = append(b, v)
			case uint64:
				b = binary.LittleEndian.AppendUint64(b, v)
			}
		}
		b = binary.LittleEndian.AppendUint32(b, fileio.Checksum(b))
		copy(img[at:], b)
	}
	el := func(idx uint64) uint64 { return 1000 + idx }
	// Header: version, client, element size, max bits, index block
	// elements, min data block elements, min pointers, page bits; six
	// statistics; index block address.
	put(0, "EAHD", byte(0), byte(0), byte(8), byte(8), byte(1), byte(2), byte(2), byte(2),
		uint64(4), uint64(0), uint64(5), uint64(0), uint64(31), uint64(31), uint64(100))
	// Index block: header address, 1 element, 2 data block addresses, 8-2
	// super block addresses.
	put(100, "EAIB", byte(0), byte(0), uint64(0), el(0),
		uint64(300), undef,
		uint64(400), uint64(700), undef, undef, undef, undef)
	put(300, "EADB", byte(0), byte(0), uint64(0), byte(1), el(1), el(2))
	put(400, "EASB", byte(0), byte(0), uint64(0), byte(7), uint64(500), uint64(600))
	put(500, "EADB", byte(0), byte(0), uint64(0), byte(7), el(7), el(8), el(9), el(10))
	put(600, "EADB", byte(0), byte(0), uint64(0), byte(11), el(11), undef, el(13), el(14))
	// Paged super block: bitmap of 2 blocks × 2 pages, first page only.
	put(700, "EASB", byte(0), byte(0), uint64(0), byte(15), byte(0x80), uint64(800), undef)
	// Paged data block: its prefix has a checksum, then each page has one.
	put(800, "EADB", byte(0), byte(0), uint64(0), byte(15))
	put(819, "", el(15), el(16), el(17), el(18))
	return img
}

func TestExtensibleArrayPaged(t *testing.T) {
	ctx := context.Background()
	// Shift the image by 16 bytes of base address, to check Base too.
	r, err := fileio.New(ctx, &memSource{name: "ea", data: append(make([]byte, 16), eaImage()...)})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = r.WithSizes(fileio.Sizes{OffsetSize: 8, LengthSize: 8, Base: 16}); err != nil {
		t.Fatal(err)
	}
	l := &Layout{Class: Chunked, Chunk: []uint64{1}, ElemSize: 1, IndexType: ExtensibleArray, Addr: 0}
	idx, err := l.Index(ctx, r, []uint64{31}, []uint64{fileio.Undefined})
	if err != nil {
		t.Fatal(err)
	}
	stored := func(i int) bool {
		return i <= 2 || (i >= 7 && i <= 18 && i != 12)
	}
	var want []Entry
	for i := range 31 {
		t.Run("", func(t *testing.T) {
			c, ok, err := idx.Lookup(ctx, []int{i})
			if err != nil {
				t.Fatal(err)
			}
			w := Chunk{Addr: 1000 + uint64(i), Size: 1}
			if ok != stored(i) || (ok && c != w) {
				t.Fatalf("Lookup(%d) = %+v, %v; want %+v, %v", i, c, ok, w, stored(i))
			}
		})
		if stored(i) {
			want = append(want, Entry{Coords: []int{i}, Chunk: Chunk{Addr: 1000 + uint64(i), Size: 1}})
		}
	}
	all, err := idx.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want) {
		t.Fatalf("All has %d entries, want %d", len(all), len(want))
	}
	for i := range all {
		if all[i].Coords[0] != want[i].Coords[0] || all[i].Chunk != want[i].Chunk {
			t.Fatalf("All[%d] = %+v, want %+v", i, all[i], want[i])
		}
	}
}
