package hdf5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Limits on old-style groups.
const (
	maxLocalHeap  = 64 << 20 // bytes in a local heap's data segment
	maxBtreeLevel = 64       // v1 B-tree depth
	maxBtreeNodes = 1 << 20  // v1 B-tree nodes visited for one group
)

// symbolTable reads the links of an old-style group: a version 1 B-tree
// of symbol nodes whose names live in a local heap.
type symbolTable struct {
	f     *File
	heap  []byte
	links []Link
	seen  map[uint64]bool
}

func (f *File) symbolTableLinks(ctx context.Context, body []byte) ([]Link, error) {
	d := fileio.NewDecoder(body, f.r.Sizes())
	btree, heapAddr := d.Offset(), d.Offset()
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("symbol table message: %w", err)
	}
	heap, err := f.localHeap(ctx, heapAddr)
	if err != nil {
		return nil, err
	}
	st := &symbolTable{f: f, heap: heap, seen: make(map[uint64]bool)}
	if err := st.node(ctx, btree, -1); err != nil {
		return nil, err
	}
	return st.links, nil
}

// localHeap returns the data segment of the local heap at addr.
func (f *File) localHeap(ctx context.Context, addr uint64) ([]byte, error) {
	sz := f.r.Sizes()
	d, err := f.r.Decoder(ctx, addr, uint64(8+2*sz.LengthSize+sz.OffsetSize))
	if err != nil {
		return nil, fmt.Errorf("local heap at %d: %w", addr, err)
	}
	d.Signature("HEAP")
	if v := d.Uint8(); d.Err() == nil && v != 0 {
		return nil, fmt.Errorf("%w: local heap version %d at %d", ErrFormat, v, addr)
	}
	d.Skip(3)
	size := d.Length()
	d.Length() // free list head
	data := d.Offset()
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("local heap at %d: %w", addr, err)
	}
	if size > maxLocalHeap {
		return nil, fmt.Errorf("%w: local heap at %d of %d bytes", ErrFormat, addr, size)
	}
	b, err := f.r.Bytes(ctx, data, size)
	if err != nil {
		return nil, fmt.Errorf("local heap data at %d: %w", data, err)
	}
	return b, nil
}

// heapString returns the NUL-terminated string at off in the heap.
func (st *symbolTable) heapString(off uint64) (string, error) {
	if off >= uint64(len(st.heap)) {
		return "", fmt.Errorf("%w: name offset %d past the %d-byte local heap", ErrFormat, off, len(st.heap))
	}
	for i, c := range st.heap[off:] {
		if c == 0 {
			return string(st.heap[off : off+uint64(i)]), nil
		}
	}
	return "", fmt.Errorf("%w: name at local heap offset %d is not terminated", ErrFormat, off)
}

// node walks the group B-tree node at addr; level is the level its parent
// expects, or -1 for the root.
func (st *symbolTable) node(ctx context.Context, addr uint64, level int) error {
	if st.seen[addr] {
		return fmt.Errorf("%w: group B-tree node at %d is reached twice", ErrFormat, addr)
	}
	st.seen[addr] = true
	if len(st.seen) > maxBtreeNodes {
		return fmt.Errorf("%w: group B-tree has more than %d nodes", ErrFormat, maxBtreeNodes)
	}
	sz := st.f.r.Sizes()
	hdr, err := st.f.r.Decoder(ctx, addr, uint64(8+2*sz.OffsetSize))
	if err != nil {
		return fmt.Errorf("group B-tree node at %d: %w", addr, err)
	}
	hdr.Signature("TREE")
	typ, lvl, n := hdr.Uint8(), int(hdr.Uint8()), int(hdr.Uint16())
	if err := hdr.Err(); err != nil {
		return fmt.Errorf("group B-tree node at %d: %w", addr, err)
	}
	switch {
	case typ != 0:
		return fmt.Errorf("%w: B-tree node at %d has type %d, want 0 (group)", ErrFormat, addr, typ)
	case level >= 0 && lvl != level, lvl > maxBtreeLevel:
		return fmt.Errorf("%w: group B-tree node at %d has level %d, want %d", ErrFormat, addr, lvl, level)
	}
	entry := uint64(sz.LengthSize + sz.OffsetSize)
	d, err := st.f.r.Decoder(ctx, addr+uint64(8+2*sz.OffsetSize), uint64(n)*entry+uint64(sz.LengthSize))
	if err != nil {
		return fmt.Errorf("group B-tree node at %d: %w", addr, err)
	}
	for range n {
		d.Length() // key: heap offset of the largest name below
		child := d.Offset()
		if err := d.Err(); err != nil {
			return fmt.Errorf("group B-tree node at %d: %w", addr, err)
		}
		if lvl > 0 {
			err = st.node(ctx, child, lvl-1)
		} else {
			err = st.symbolNode(ctx, child)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// symbolNode reads the entries of the symbol node (SNOD) at addr.
func (st *symbolTable) symbolNode(ctx context.Context, addr uint64) error {
	sz := st.f.r.Sizes()
	hdr, err := st.f.r.Decoder(ctx, addr, 8)
	if err != nil {
		return fmt.Errorf("symbol node at %d: %w", addr, err)
	}
	hdr.Signature("SNOD")
	version := hdr.Uint8()
	hdr.Skip(1)
	n := hdr.Uint16()
	if err := hdr.Err(); err != nil {
		return fmt.Errorf("symbol node at %d: %w", addr, err)
	}
	if version != 1 {
		return fmt.Errorf("%w: symbol node version %d at %d", ErrFormat, version, addr)
	}
	entry := uint64(2*sz.OffsetSize + 24)
	d, err := st.f.r.Decoder(ctx, addr+8, uint64(n)*entry)
	if err != nil {
		return fmt.Errorf("symbol node at %d: %w", addr, err)
	}
	for range n {
		nameOff, obj := d.Offset(), d.Offset()
		cache := d.Uint32()
		d.Skip(4)
		scratch := d.Bytes(16)
		if err := d.Err(); err != nil {
			return fmt.Errorf("symbol node at %d: %w", addr, err)
		}
		l, err := st.entry(nameOff, obj, cache, scratch)
		if err != nil {
			return fmt.Errorf("symbol node at %d: %w", addr, err)
		}
		st.links = append(st.links, l)
	}
	return nil
}

// entry makes a link of a symbol table entry. Cache type 2 marks a soft
// link whose value sits in the local heap at the offset the scratch pad
// holds.
func (st *symbolTable) entry(nameOff, obj uint64, cache uint32, scratch []byte) (Link, error) {
	name, err := st.heapString(nameOff)
	if err != nil {
		return Link{}, err
	}
	if name == "" {
		return Link{}, fmt.Errorf("%w: symbol table entry with an empty name", ErrFormat)
	}
	if cache != 2 {
		return Link{Name: name, Type: LinkHard, Addr: obj}, nil
	}
	target, err := st.heapString(uint64(fileio.DecodeUint(scratch[:4])))
	if err != nil {
		return Link{}, fmt.Errorf("soft link %q: %w", name, err)
	}
	return Link{Name: name, Type: LinkSoft, Target: target}, nil
}
