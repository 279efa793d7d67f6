package layout

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// extensibleArray is an extensible array chunk index, used when one
// dimension is unlimited. Chunks are numbered in row-major order with the
// unlimited dimension first. The first elements sit in the index block
// ("EAIB"); the rest in data blocks ("EADB") that double in size every two
// super block levels. The first data blocks are pointed to by the index
// block, later ones by super blocks ("EASB"); big data blocks are split
// into pages, and a super block's bitmap says which pages were written.
type extensibleArray struct {
	r      *fileio.Reader
	g      *grid
	lin    *linear
	el     element
	hdr    uint64 // header address, echoed by every block
	maxIdx uint64 // one past the highest element ever set

	idxElmts  uint64 // elements in the index block
	sblks     []sblkInfo
	inIblock  int      // super blocks whose data blocks the index block points to
	pageN     uint64   // elements per data block page
	offSize   int      // bytes of the block offset field
	elements  []byte   // the index block's elements
	dblkAddrs []uint64 // data blocks pointed to by the index block
	sblkAddrs []uint64 // super blocks pointed to by the index block

	blocks *fileio.Memo[uint64, []byte] // data block and page elements by address
	supers *fileio.Memo[uint64, *superBlock]
}

// sblkInfo describes the data blocks of one super block level.
type sblkInfo struct {
	ndblks    uint64 // data blocks in the super block
	dblkElmts uint64 // elements per data block
	start     uint64 // first element, counted after the index block's
	startDblk uint64 // first data block, counted over all super blocks
}

type superBlock struct {
	bitmap []byte // page initialization bits, dblkPages per data block
	dblks  []uint64
}

// eaHeader is the part of the extensible array header the reader needs.
type eaHeader struct {
	client, elSize, maxBits, idxElmts, minElmts, minPtrs, pageBits uint8
	maxIdx, iblock                                                 uint64
}

func openExtensibleArray(ctx context.Context, r *fileio.Reader, l *Layout, g *grid) (*extensibleArray, error) {
	h, err := readEAHeader(ctx, r, l.Addr)
	if err != nil {
		return nil, err
	}
	unlim := -1
	for i, m := range g.max {
		if fileio.IsUndefined(m) {
			if unlim >= 0 {
				return nil, fmt.Errorf("%w: extensible array index with two unlimited dimensions", ErrCorrupt)
			}
			unlim = i
		}
	}
	if unlim < 0 {
		return nil, fmt.Errorf("%w: extensible array index without an unlimited maximum dimension", ErrCorrupt)
	}
	a := &extensibleArray{r: r, g: g, hdr: l.Addr, maxIdx: h.maxIdx, blocks: fileio.NewMemo[uint64, []byte](maxCachedNodes), supers: fileio.NewMemo[uint64, *superBlock](maxCachedNodes)}
	if a.lin, err = g.linear(g.order(unlim)); err != nil {
		return nil, err
	}
	if a.el, err = newElement(r.Sizes(), h.client, h.elSize, g.chunkBytes); err != nil {
		return nil, err
	}
	if err := a.initInfo(h); err != nil {
		return nil, err
	}
	if fileio.IsUndefined(h.iblock) {
		a.maxIdx = 0
		return a, nil
	}
	return a, a.readIndexBlock(ctx, h.iblock)
}

func readEAHeader(ctx context.Context, r *fileio.Reader, addr uint64) (eaHeader, error) {
	var h eaHeader
	s := r.Sizes()
	b, err := r.Bytes(ctx, addr, uint64(4+1+1+6+6*s.LengthSize+s.OffsetSize+4))
	if err != nil {
		return h, err
	}
	if err := fileio.VerifyChecksum(b, "extensible array header"); err != nil {
		return h, err
	}
	d := fileio.NewDecoder(b, s)
	d.Signature("EAHD")
	if v := d.Uint8(); d.Err() == nil && v != 0 {
		return h, fmt.Errorf("%w: extensible array header version %d", ErrUnsupported, v)
	}
	h.client, h.elSize, h.maxBits, h.idxElmts = d.Uint8(), d.Uint8(), d.Uint8(), d.Uint8()
	h.minElmts, h.minPtrs, h.pageBits = d.Uint8(), d.Uint8(), d.Uint8()
	d.Skip(4 * s.LengthSize) // super and data block counts and sizes: statistics
	h.maxIdx = d.Length()
	d.Skip(s.LengthSize) // elements realized
	h.iblock = d.Offset()
	return h, d.Err()
}

// initInfo derives the block geometry from the creation parameters, as
// the HDF5 library does.
func (a *extensibleArray) initInfo(h eaHeader) error {
	if h.minElmts == 0 || h.minElmts&(h.minElmts-1) != 0 || h.minPtrs < 2 || h.minPtrs&(h.minPtrs-1) != 0 {
		return fmt.Errorf("%w: extensible array block minimums %d elements, %d pointers (want powers of two)", ErrCorrupt, h.minElmts, h.minPtrs)
	}
	minBits := bits.TrailingZeros8(h.minElmts)
	if h.maxBits > 63 || int(h.maxBits) < minBits || h.pageBits > 63 {
		return fmt.Errorf("%w: extensible array of 2^%d elements, pages of 2^%d", ErrCorrupt, h.maxBits, h.pageBits)
	}
	a.idxElmts = uint64(h.idxElmts)
	a.pageN = 1 << h.pageBits
	a.offSize = (int(h.maxBits) + 7) / 8
	a.sblks = make([]sblkInfo, 1+int(h.maxBits)-minBits)
	var start, startDblk uint64
	for u := range a.sblks {
		si := sblkInfo{ndblks: 1 << (u / 2), dblkElmts: uint64(h.minElmts) << ((u + 1) / 2), start: start, startDblk: startDblk}
		a.sblks[u] = si
		start += si.ndblks * si.dblkElmts // ends at 2^(maxBits+1) - minElmts: no overflow
		startDblk += si.ndblks
	}
	a.inIblock = 2 * bits.TrailingZeros8(h.minPtrs)
	if a.inIblock > len(a.sblks) {
		return fmt.Errorf("%w: %d super blocks in the index block, %d in all", ErrCorrupt, a.inIblock, len(a.sblks))
	}
	if a.maxIdx > a.idxElmts && a.maxIdx-a.idxElmts > start {
		return fmt.Errorf("%w: %d elements set in an array of %d", ErrCorrupt, a.maxIdx, a.idxElmts+start)
	}
	return nil
}

func (a *extensibleArray) readIndexBlock(ctx context.Context, addr uint64) error {
	s := a.r.Sizes()
	ndblk := a.dblksInIblock()
	nsblk := len(a.sblks) - a.inIblock
	es := a.el.size
	size := 4 + 1 + 1 + s.OffsetSize + int(a.idxElmts)*es + (ndblk+nsblk)*s.OffsetSize + 4
	b, err := a.r.Bytes(ctx, addr, uint64(size))
	if err != nil {
		return fmt.Errorf("index block at %d: %w", addr, err)
	}
	if err := fileio.VerifyChecksum(b, "extensible array index block"); err != nil {
		return fmt.Errorf("index block at %d: %w", addr, err)
	}
	d := fileio.NewDecoder(b, s)
	d.Signature("EAIB")
	d.Skip(2) // version, client ID
	a.checkOwner(d, addr)
	a.elements = d.Bytes(int(a.idxElmts) * es)
	a.dblkAddrs = decodeAddrs(d, ndblk)
	a.sblkAddrs = decodeAddrs(d, nsblk)
	if err := d.Err(); err != nil {
		return fmt.Errorf("index block at %d: %w", addr, err)
	}
	return nil
}

// dblksInIblock returns the number of data block addresses in the index
// block: those of the first inIblock super block levels.
func (a *extensibleArray) dblksInIblock() int {
	n := 0
	for u := range a.inIblock {
		n += int(a.sblks[u].ndblks)
	}
	return n
}

func decodeAddrs(d *fileio.Decoder, n int) []uint64 {
	if n > d.Len() {
		d.Skip(n) // records the truncation
		return nil
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = d.Offset()
	}
	return out
}

// checkOwner decodes a block's header address and fails unless it is
// this array's header.
func (a *extensibleArray) checkOwner(d *fileio.Decoder, addr uint64) {
	if h := d.Offset(); d.Err() == nil && h != a.hdr {
		d.Failf("%w: block at %d belongs to header %d, not %d", ErrCorrupt, addr, h, a.hdr)
	}
}

// locate returns the raw element idx. When the element lies in a block or
// page never written it returns nil and the first index after that block.
func (a *extensibleArray) locate(ctx context.Context, idx uint64) ([]byte, uint64, error) {
	es := uint64(a.el.size)
	if idx >= a.maxIdx {
		return nil, ^uint64(0), nil
	}
	if idx < a.idxElmts {
		return a.elements[idx*es : (idx+1)*es], idx + 1, nil
	}
	rel := idx - a.idxElmts
	u := bits.Len64(rel/a.sblks[0].dblkElmts+1) - 1
	si := a.sblks[u]
	off := rel - si.start
	d, e := off/si.dblkElmts, off%si.dblkElmts
	dblkStart := idx - e // first element of this data block
	var dblk uint64
	var sb *superBlock
	if u < a.inIblock {
		dblk = a.dblkAddrs[si.startDblk+d]
	} else {
		saddr := a.sblkAddrs[u-a.inIblock]
		if fileio.IsUndefined(saddr) {
			return nil, idx - off + si.ndblks*si.dblkElmts, nil
		}
		var err error
		if sb, err = a.superBlock(ctx, saddr, si); err != nil {
			return nil, 0, err
		}
		dblk = sb.dblks[d]
	}
	if fileio.IsUndefined(dblk) {
		return nil, dblkStart + si.dblkElmts, nil
	}
	if si.dblkElmts <= a.pageN {
		b, err := a.dataBlock(ctx, dblk, si.dblkElmts)
		if err != nil {
			return nil, 0, err
		}
		return b[e*es : (e+1)*es], idx + 1, nil
	}
	if sb == nil {
		return nil, 0, fmt.Errorf("%w: paged data block %d in the index block", ErrUnsupported, d)
	}
	pages := si.dblkElmts / a.pageN
	p, pe := e/a.pageN, e%a.pageN
	if !bitSet(sb.bitmap, d*pages+p) {
		return nil, idx - pe + a.pageN, nil
	}
	prefix := uint64(4 + 1 + 1 + a.r.Sizes().OffsetSize + a.offSize + 4)
	b, err := a.page(ctx, dblk+prefix+p*(a.pageN*es+4))
	if err != nil {
		return nil, 0, err
	}
	return b[pe*es : (pe+1)*es], idx + 1, nil
}

func (a *extensibleArray) cached(addr uint64) []byte {
	b, _ := a.blocks.Get(addr)
	return b
}

// dataBlock returns the elements of an unpaged data block.
func (a *extensibleArray) dataBlock(ctx context.Context, addr, n uint64) ([]byte, error) {
	if b := a.cached(addr); b != nil {
		return b, nil
	}
	s := a.r.Sizes()
	head := uint64(4 + 1 + 1 + s.OffsetSize + a.offSize)
	b, err := a.r.Bytes(ctx, addr, head+n*uint64(a.el.size)+4)
	if err != nil {
		return nil, fmt.Errorf("data block at %d: %w", addr, err)
	}
	if err := fileio.VerifyChecksum(b, "extensible array data block"); err != nil {
		return nil, fmt.Errorf("data block at %d: %w", addr, err)
	}
	d := fileio.NewDecoder(b, s)
	d.Signature("EADB")
	d.Skip(2)
	a.checkOwner(d, addr)
	d.Skip(a.offSize)
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("data block at %d: %w", addr, err)
	}
	elems := b[head : len(b)-4]
	a.blocks.Put(addr, elems)
	return elems, nil
}

// page returns the elements of one data block page.
func (a *extensibleArray) page(ctx context.Context, addr uint64) ([]byte, error) {
	if b := a.cached(addr); b != nil {
		return b, nil
	}
	b, err := a.r.Bytes(ctx, addr, a.pageN*uint64(a.el.size)+4)
	if err != nil {
		return nil, fmt.Errorf("data block page at %d: %w", addr, err)
	}
	if err := fileio.VerifyChecksum(b, "extensible array data block page"); err != nil {
		return nil, fmt.Errorf("data block page at %d: %w", addr, err)
	}
	elems := b[:len(b)-4]
	a.blocks.Put(addr, elems)
	return elems, nil
}

func (a *extensibleArray) superBlock(ctx context.Context, addr uint64, si sblkInfo) (*superBlock, error) {
	sb, ok := a.supers.Get(addr)
	if ok {
		return sb, nil
	}
	s := a.r.Sizes()
	if si.ndblks > uint64(a.r.Size())/uint64(s.OffsetSize) {
		return nil, fmt.Errorf("%w: super block at %d with %d data blocks exceeds the file", ErrCorrupt, addr, si.ndblks)
	}
	var bitmapLen uint64
	if si.dblkElmts > a.pageN {
		hi, pages := bits.Mul64(si.ndblks, si.dblkElmts/a.pageN)
		if hi != 0 || pages/8 > uint64(a.r.Size()) {
			return nil, fmt.Errorf("%w: super block at %d with a page bitmap larger than the file", ErrCorrupt, addr)
		}
		bitmapLen = ceilDiv(pages, 8)
	}
	head := uint64(4 + 1 + 1 + s.OffsetSize + a.offSize)
	b, err := a.r.Bytes(ctx, addr, head+bitmapLen+si.ndblks*uint64(s.OffsetSize)+4)
	if err != nil {
		return nil, fmt.Errorf("super block at %d: %w", addr, err)
	}
	if err := fileio.VerifyChecksum(b, "extensible array super block"); err != nil {
		return nil, fmt.Errorf("super block at %d: %w", addr, err)
	}
	d := fileio.NewDecoder(b, s)
	d.Signature("EASB")
	d.Skip(2)
	a.checkOwner(d, addr)
	d.Skip(a.offSize)
	sb = &superBlock{bitmap: d.Bytes(int(bitmapLen))}
	sb.dblks = decodeAddrs(d, int(si.ndblks))
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("super block at %d: %w", addr, err)
	}
	a.supers.Put(addr, sb)
	return sb, nil
}

func (a *extensibleArray) Lookup(ctx context.Context, coords []int) (Chunk, bool, error) {
	if err := a.g.check(coords); err != nil {
		return Chunk{}, false, err
	}
	b, _, err := a.locate(ctx, a.lin.index(coords))
	if err != nil || b == nil {
		return Chunk{}, false, err
	}
	c, ok := a.el.decode(b)
	return c, ok, nil
}

// All visits the written blocks only, skipping missing ones whole.
func (a *extensibleArray) All(ctx context.Context) ([]Entry, error) {
	var out []Entry
	for idx := uint64(0); idx < a.maxIdx; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, next, err := a.locate(ctx, idx)
		if err != nil {
			return nil, err
		}
		if b != nil {
			coords := a.lin.coords(idx)
			if c, ok := a.el.decode(b); ok && a.g.inside(coords) {
				out = append(out, Entry{Coords: toInts(coords), Chunk: c})
			}
		}
		if next <= idx {
			return nil, fmt.Errorf("%w: extensible array walk stalled at element %d", ErrCorrupt, idx)
		}
		idx = next
	}
	return out, nil
}
