package layout

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// fixedArray is a fixed array chunk index: a header ("FAHD") and one data
// block ("FADB") holding one element per chunk of the maximum grid, in
// row-major order. A large data block is split into pages, each with its
// own checksum, and a bitmap says which pages were ever written.
type fixedArray struct {
	r       *fileio.Reader
	g       *grid
	lin     *linear
	el      element
	nelmts  uint64
	dblock  uint64 // data block address
	pageN   uint64 // elements per page; 0 when not paged
	npages  uint64
	prefix  uint64 // bytes before the first page
	bitmap  []byte // page initialization bits
	unpaged []byte // all elements when not paged

	pages *fileio.Memo[uint64, []byte]
}

func openFixedArray(ctx context.Context, r *fileio.Reader, l *Layout, g *grid) (*fixedArray, error) {
	s := r.Sizes()
	b, err := r.Bytes(ctx, l.Addr, uint64(4+1+1+1+1+s.LengthSize+s.OffsetSize+4))
	if err != nil {
		return nil, err
	}
	if err := fileio.VerifyChecksum(b, "fixed array header"); err != nil {
		return nil, err
	}
	d := fileio.NewDecoder(b, s)
	d.Signature("FAHD")
	version, client, elSize, pageBits := d.Uint8(), d.Uint8(), d.Uint8(), d.Uint8()
	a := &fixedArray{r: r, g: g, nelmts: d.Length(), dblock: d.Offset(), pages: fileio.NewMemo[uint64, []byte](maxCachedNodes)}
	if err := d.Err(); err != nil {
		return nil, err
	}
	if version != 0 {
		return nil, fmt.Errorf("%w: fixed array header version %d", ErrUnsupported, version)
	}
	if a.el, err = newElement(s, client, elSize, g.chunkBytes); err != nil {
		return nil, err
	}
	if a.lin, err = g.linear(g.order(-1)); err != nil {
		return nil, err
	}
	if a.nelmts < a.lin.total {
		return nil, fmt.Errorf("%w: fixed array of %d elements for %d chunks", ErrCorrupt, a.nelmts, a.lin.total)
	}
	if a.nelmts > uint64(r.Size())/uint64(a.el.size) {
		return nil, fmt.Errorf("%w: fixed array of %d elements exceeds the file", ErrCorrupt, a.nelmts)
	}
	if fileio.IsUndefined(a.dblock) {
		return a, nil
	}
	if pageBits < 64 && a.nelmts > 1<<pageBits {
		a.pageN = 1 << pageBits
		a.npages = ceilDiv(a.nelmts, a.pageN)
	}
	return a, a.readDataBlock(ctx, l.Addr)
}

// readDataBlock reads the data block's prefix: the page bitmap when
// paged, every element otherwise.
func (a *fixedArray) readDataBlock(ctx context.Context, header uint64) error {
	s := a.r.Sizes()
	head := uint64(4 + 1 + 1 + s.OffsetSize)
	body := a.nelmts * uint64(a.el.size)
	if a.pageN > 0 {
		body = ceilDiv(a.npages, 8)
	}
	b, err := a.r.Bytes(ctx, a.dblock, head+body+4)
	if err != nil {
		return fmt.Errorf("data block at %d: %w", a.dblock, err)
	}
	if err := fileio.VerifyChecksum(b, "fixed array data block"); err != nil {
		return fmt.Errorf("data block at %d: %w", a.dblock, err)
	}
	d := fileio.NewDecoder(b, s)
	d.Signature("FADB")
	d.Skip(2) // version and client ID, as in the header
	if h := d.Offset(); d.Err() == nil && h != header {
		return fmt.Errorf("%w: data block at %d belongs to header %d, not %d", ErrCorrupt, a.dblock, h, header)
	}
	rest := d.Bytes(int(body))
	if a.pageN > 0 {
		a.bitmap = rest
	} else {
		a.unpaged = rest
	}
	a.prefix = head + body + 4
	return d.Err()
}

// element returns the raw element number idx, or nil when its page was
// never written.
func (a *fixedArray) element(ctx context.Context, idx uint64) ([]byte, error) {
	es := uint64(a.el.size)
	if a.pageN == 0 {
		if a.unpaged == nil {
			return nil, nil
		}
		return a.unpaged[idx*es : (idx+1)*es], nil
	}
	p := idx / a.pageN
	if !bitSet(a.bitmap, p) {
		return nil, nil
	}
	page, err := a.page(ctx, p)
	if err != nil {
		return nil, err
	}
	i := idx % a.pageN
	return page[i*es : (i+1)*es], nil
}

// page returns the elements of page p, checking its checksum.
func (a *fixedArray) page(ctx context.Context, p uint64) ([]byte, error) {
	page, ok := a.pages.Get(p)
	if ok {
		return page, nil
	}
	es := uint64(a.el.size)
	n := min(a.pageN, a.nelmts-p*a.pageN)
	addr := a.dblock + a.prefix + p*(a.pageN*es+4)
	b, err := a.r.Bytes(ctx, addr, n*es+4)
	if err != nil {
		return nil, fmt.Errorf("data block page %d at %d: %w", p, addr, err)
	}
	if err := fileio.VerifyChecksum(b, "fixed array data block page"); err != nil {
		return nil, fmt.Errorf("data block page %d at %d: %w", p, addr, err)
	}
	page = b[:n*es]
	a.pages.Put(p, page)
	return page, nil
}

func (a *fixedArray) Lookup(ctx context.Context, coords []int) (Chunk, bool, error) {
	if err := a.g.check(coords); err != nil {
		return Chunk{}, false, err
	}
	b, err := a.element(ctx, a.lin.index(coords))
	if err != nil || b == nil {
		return Chunk{}, false, err
	}
	c, ok := a.el.decode(b)
	return c, ok, nil
}

func (a *fixedArray) All(ctx context.Context) ([]Entry, error) {
	var out []Entry
	for idx := range a.lin.total {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		coords := a.lin.coords(idx)
		if !a.g.inside(coords) {
			continue
		}
		b, err := a.element(ctx, idx)
		if err != nil {
			return nil, err
		}
		if c, ok := a.el.decode(b); ok {
			out = append(out, Entry{Coords: toInts(coords), Chunk: c})
		}
	}
	return out, nil
}
