package hdf5

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"

	"github.com/lindigo/lindi/hdf5/internal/btree2"
	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// fractalHeap is a parsed fractal heap header ("FRHP"): the store of dense
// links and dense attributes.
type fractalHeap struct {
	f           *File
	addr        uint64
	idLen       int
	filtered    bool
	filterLen   int  // bytes of the I/O filter pipeline message
	checksummed bool // direct blocks carry a checksum
	maxManaged  uint32
	hugeTree    uint64 // version 2 B-tree of huge objects
	width       uint64
	startSize   uint64
	maxDirect   uint64
	maxHeapBits int
	root        uint64
	rootRows    int
	offSize     int // bytes of a heap offset in IDs and block headers
	lenSize     int // bytes of an object length in managed IDs
	directRows  int // rows of direct blocks in an indirect block
}

// Limits on fractal heaps, far beyond what the library writes.
const (
	maxHeapBlock = 64 << 20 // bytes in one heap block
	maxHeapDepth = 16       // nested indirect blocks
	// maxHugeObject bounds a huge object (a dense attribute's value).
	maxHugeObject = 256 << 20
)

// openFractalHeap reads and checks the fractal heap header at addr.
func (f *File) openFractalHeap(ctx context.Context, addr uint64) (*fractalHeap, error) {
	sz := f.r.Sizes()
	fixed := 22 + 12*sz.LengthSize + 3*sz.OffsetSize
	d, err := f.r.Decoder(ctx, addr, uint64(fixed))
	if err != nil {
		return nil, fmt.Errorf("fractal heap at %d: %w", addr, err)
	}
	h := &fractalHeap{f: f, addr: addr}
	if err := h.decode(d); err != nil {
		return nil, fmt.Errorf("fractal heap at %d: %w", addr, err)
	}
	extra := uint64(0)
	if h.filterLen > 0 {
		extra = uint64(sz.LengthSize+4) + uint64(h.filterLen)
	}
	full, err := f.r.Bytes(ctx, addr, uint64(fixed)+extra+4)
	if err != nil {
		return nil, fmt.Errorf("fractal heap at %d: %w", addr, err)
	}
	if err := fileio.VerifyChecksum(full, "fractal heap header"); err != nil {
		return nil, fmt.Errorf("fractal heap at %d: %w", addr, err)
	}
	return h, nil
}

func (h *fractalHeap) decode(d *fileio.Decoder) error {
	d.Signature("FRHP")
	if v := d.Uint8(); d.Err() == nil && v != 0 {
		return fmt.Errorf("%w: fractal heap version %d", ErrFormat, v)
	}
	h.idLen = int(d.Uint16())
	h.filterLen = int(d.Uint16())
	h.filtered = h.filterLen > 0
	flags := d.Uint8()
	h.checksummed = flags&2 != 0
	h.maxManaged = d.Uint32()
	d.Length() // next huge object ID
	h.hugeTree = d.Offset()
	d.Length() // free space
	d.Offset() // free space manager
	for range 8 {
		d.Length() // managed/allocated space, iterator, object counts and sizes
	}
	h.width = uint64(d.Uint16())
	h.startSize = d.Length()
	h.maxDirect = d.Length()
	h.maxHeapBits = int(d.Uint16())
	d.Uint16() // starting rows of the root indirect block
	h.root = d.Offset()
	h.rootRows = int(d.Uint16())
	if err := d.Err(); err != nil {
		return err
	}
	return h.check()
}

func (h *fractalHeap) check() error {
	pow2 := func(v uint64) bool { return v != 0 && v&(v-1) == 0 }
	switch {
	case h.width == 0 || !pow2(h.width) || h.width > 1<<12:
		return fmt.Errorf("%w: fractal heap table width %d", ErrFormat, h.width)
	case !pow2(h.startSize) || !pow2(h.maxDirect) || h.startSize > h.maxDirect || h.maxDirect > maxHeapBlock:
		return fmt.Errorf("%w: fractal heap block sizes %d..%d", ErrFormat, h.startSize, h.maxDirect)
	case h.maxHeapBits == 0 || h.maxHeapBits > 64:
		return fmt.Errorf("%w: fractal heap address space of %d bits", ErrFormat, h.maxHeapBits)
	case h.rootRows > 64:
		return fmt.Errorf("%w: fractal heap root with %d rows", ErrFormat, h.rootRows)
	}
	h.offSize = (h.maxHeapBits + 7) / 8
	// The length field holds the smaller of a direct block's size and the
	// largest managed object, as the library sizes it: the bytes for
	// log2(max direct) bits, or floor(log2(max managed))/8 + 1.
	h.lenSize = min((bits.Len64(h.maxDirect-1)+7)/8, (bits.Len32(h.maxManaged)-1)/8+1)
	h.directRows = bits.Len64(h.maxDirect) - bits.Len64(h.startSize) + 2
	return nil
}

// rowSize returns the size of the blocks in row r of an indirect block.
func (h *fractalHeap) rowSize(r int) uint64 {
	if r == 0 {
		return h.startSize
	}
	return h.startSize << (r - 1)
}

// object returns the bytes of the object with heap ID id.
func (h *fractalHeap) object(ctx context.Context, id []byte) ([]byte, error) {
	if len(id) == 0 {
		return nil, fmt.Errorf("%w: empty fractal heap ID", ErrFormat)
	}
	if v := id[0] >> 6; v != 0 {
		return nil, fmt.Errorf("%w: fractal heap ID version %d", ErrFormat, v)
	}
	switch id[0] >> 4 & 3 {
	case 0:
		return h.managed(ctx, id[1:])
	case 1:
		return h.huge(ctx, id[1:])
	case 2:
		return h.tiny(id)
	}
	return nil, fmt.Errorf("%w: fractal heap ID type 3", ErrFormat)
}

// huge returns an object too large for a direct block, stored on its own
// in the file: its heap ID holds the address and length when they fit,
// else a key into the heap's huge object B-tree (record type 1: address,
// length, key).
func (h *fractalHeap) huge(ctx context.Context, id []byte) ([]byte, error) {
	if h.filtered {
		return nil, fmt.Errorf("%w: filtered huge objects in the fractal heap at %d", ErrUnsupported, h.addr)
	}
	sz := h.f.r.Sizes()
	var addr, n uint64
	if len(id) >= sz.OffsetSize+sz.LengthSize {
		d := fileio.NewDecoder(id, sz)
		addr, n = d.Offset(), d.Length()
	} else {
		var err error
		if addr, n, err = h.hugeRecord(ctx, fileio.DecodeUint(id[:min(len(id), 8)])); err != nil {
			return nil, err
		}
	}
	if n > maxHugeObject {
		return nil, fmt.Errorf("%w: huge heap object of %d bytes", ErrFormat, n)
	}
	b, err := h.f.r.Bytes(ctx, addr, n)
	if err != nil {
		return nil, fmt.Errorf("huge heap object at %d: %w", addr, err)
	}
	return b, nil
}

// hugeRecord looks key up in the huge object B-tree.
func (h *fractalHeap) hugeRecord(ctx context.Context, key uint64) (addr, n uint64, err error) {
	if fileio.IsUndefined(h.hugeTree) {
		return 0, 0, fmt.Errorf("%w: huge object %d in a heap without a huge object B-tree", ErrFormat, key)
	}
	t, err := btree2.Open(ctx, h.f.r, h.hugeTree)
	if err != nil {
		return 0, 0, fmt.Errorf("huge object B-tree: %w", err)
	}
	sz := h.f.r.Sizes()
	size := 2*sz.LengthSize + sz.OffsetSize
	if t.Type != btree2.TypeHugeIndirect || int(t.RecordSize) < size {
		return 0, 0, fmt.Errorf("%w: huge object B-tree of type %d with %d-byte records", ErrFormat, t.Type, t.RecordSize)
	}
	keyOf := func(rec []byte) uint64 {
		return fileio.DecodeUint(rec[sz.OffsetSize+sz.LengthSize : size])
	}
	rec, ok, err := t.Find(ctx, func(rec []byte) int { return cmp.Compare(key, keyOf(rec)) })
	if err != nil {
		return 0, 0, fmt.Errorf("huge object B-tree: %w", err)
	}
	if !ok {
		return 0, 0, fmt.Errorf("%w: no huge object %d in the fractal heap at %d", ErrFormat, key, h.addr)
	}
	d := fileio.NewDecoder(rec, sz)
	return d.Offset(), d.Length(), d.Err()
}

// tiny returns an object stored in its heap ID.
func (h *fractalHeap) tiny(id []byte) ([]byte, error) {
	n, data := int(id[0]&0x0f)+1, id[1:]
	if h.idLen > 18 {
		if len(id) < 2 {
			return nil, fmt.Errorf("%w: tiny heap ID of %d bytes", ErrFormat, len(id))
		}
		n, data = int(id[0]&0x0f)<<8|int(id[1])+1, id[2:]
	}
	if n > len(data) {
		return nil, fmt.Errorf("%w: tiny object of %d bytes in a %d-byte ID", ErrFormat, n, len(id))
	}
	return data[:n], nil
}

// managed returns a managed object given the ID bytes after the flags.
func (h *fractalHeap) managed(ctx context.Context, id []byte) ([]byte, error) {
	if h.filtered {
		return nil, fmt.Errorf("%w: filtered fractal heap at %d", ErrUnsupported, h.addr)
	}
	if len(id) < h.offSize+h.lenSize {
		return nil, fmt.Errorf("%w: managed heap ID of %d bytes", ErrFormat, len(id)+1)
	}
	off := fileio.DecodeUint(id[:h.offSize])
	n := fileio.DecodeUint(id[h.offSize : h.offSize+h.lenSize])
	if n == 0 || n > h.maxDirect {
		return nil, fmt.Errorf("%w: managed object of %d bytes", ErrFormat, n)
	}
	if fileio.IsUndefined(h.root) {
		return nil, fmt.Errorf("%w: object in an empty fractal heap", ErrFormat)
	}
	if h.rootRows == 0 {
		return h.fromDirect(ctx, h.root, 0, h.startSize, off, n)
	}
	return h.fromIndirect(ctx, h.root, 0, h.rootRows, off, n, 0)
}

// fromDirect reads n bytes at heap offset off from the direct block at
// addr, which starts at heap offset blockOff and is size bytes long.
func (h *fractalHeap) fromDirect(ctx context.Context, addr, blockOff, size, off, n uint64) ([]byte, error) {
	hdr := uint64(5 + h.f.r.Sizes().OffsetSize + h.offSize)
	d, err := h.f.r.Decoder(ctx, addr, hdr)
	if err != nil {
		return nil, fmt.Errorf("fractal heap direct block at %d: %w", addr, err)
	}
	d.Signature("FHDB")
	d.Skip(1 + h.f.r.Sizes().OffsetSize)
	if got := d.Uint(h.offSize); d.Err() == nil && got != blockOff {
		return nil, fmt.Errorf("%w: direct block at %d has heap offset %d, want %d", ErrFormat, addr, got, blockOff)
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("fractal heap direct block at %d: %w", addr, err)
	}
	rel := off - blockOff
	if rel < hdr || rel+n > size {
		return nil, fmt.Errorf("%w: object at heap offset %d (%d bytes) outside its %d-byte direct block",
			ErrFormat, off, n, size)
	}
	return h.f.r.Bytes(ctx, addr+rel, n)
}

// fromIndirect finds heap offset off in the indirect block at addr, which
// starts at heap offset blockOff and has rows rows.
func (h *fractalHeap) fromIndirect(ctx context.Context, addr, blockOff uint64, rows int, off, n uint64, depth int) ([]byte, error) {
	if depth > maxHeapDepth {
		return nil, fmt.Errorf("%w: fractal heap indirect blocks nest deeper than %d", ErrFormat, maxHeapDepth)
	}
	rel := off - blockOff
	row, col := -1, uint64(0)
	var inRow uint64
	for r := range rows {
		span := h.width * h.rowSize(r)
		if rel < span {
			row, col, inRow = r, rel/h.rowSize(r), rel%h.rowSize(r)
			break
		}
		rel -= span
	}
	if row < 0 {
		return nil, fmt.Errorf("%w: heap offset %d beyond the indirect block at %d", ErrFormat, off, addr)
	}
	sz := h.f.r.Sizes()
	entry := uint64(row)*h.width + col
	pos := uint64(5+sz.OffsetSize+h.offSize) + entry*uint64(sz.OffsetSize)
	d, err := h.f.r.Decoder(ctx, addr, pos+uint64(sz.OffsetSize))
	if err != nil {
		return nil, fmt.Errorf("fractal heap indirect block at %d: %w", addr, err)
	}
	d.Signature("FHIB")
	d.Seek(int(pos))
	child := d.Offset()
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("fractal heap indirect block at %d: %w", addr, err)
	}
	if fileio.IsUndefined(child) {
		return nil, fmt.Errorf("%w: heap offset %d lies in an unallocated block", ErrFormat, off)
	}
	childOff := off - inRow
	size := h.rowSize(row)
	if row < h.directRows {
		return h.fromDirect(ctx, child, childOff, size, off, n)
	}
	childRows := bits.Len64(size) - bits.Len64(h.startSize*h.width) + 1
	return h.fromIndirect(ctx, child, childOff, childRows, off, n, depth+1)
}
