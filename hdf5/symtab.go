package hdf5

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
	"golang.org/x/sync/errgroup"
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
	f    *File
	heap []byte

	mu   sync.Mutex
	seen map[uint64]bool
}

// maxNodeReads bounds the B-tree nodes of one group read at once: a wide
// group's symbol nodes then cost one round trip, not one each.
const maxNodeReads = 16

func (f *File) openSymbolTable(ctx context.Context, body []byte) (*symbolTable, uint64, error) {
	d := fileio.NewDecoder(body, f.r.Sizes())
	btree, heapAddr := d.Offset(), d.Offset()
	if err := d.Err(); err != nil {
		return nil, 0, fmt.Errorf("symbol table message: %w", err)
	}
	heap, err := f.localHeap(ctx, heapAddr)
	if err != nil {
		return nil, 0, err
	}
	return &symbolTable{f: f, heap: heap, seen: make(map[uint64]bool)}, btree, nil
}

func (f *File) symbolTableLinks(ctx context.Context, body []byte) ([]Link, error) {
	st, btree, err := f.openSymbolTable(ctx, body)
	if err != nil {
		return nil, err
	}
	return st.node(ctx, btree, -1)
}

// symbolTableLink looks name up in an old-style group, reading only the
// B-tree nodes on the way to its symbol node.
func (f *File) symbolTableLink(ctx context.Context, body []byte, name string) (Link, bool, error) {
	d := fileio.NewDecoder(body, f.r.Sizes())
	addr, heapAddr := d.Offset(), d.Offset()
	if err := d.Err(); err != nil {
		return Link{}, false, fmt.Errorf("symbol table message: %w", err)
	}
	st := &symbolTable{f: f, seen: make(map[uint64]bool)}
	// The heap and the root node do not depend on each other: read them at
	// once, which on a remote file saves a round trip.
	var (
		lvl            int
		keys, children []uint64
	)
	eg, gctx := errgroup.WithContext(ctx)
	eg.Go(func() (err error) {
		st.heap, err = f.localHeap(gctx, heapAddr)
		return err
	})
	eg.Go(func() (err error) {
		if err = st.visit(addr); err == nil {
			lvl, keys, children, err = st.readNode(gctx, addr, -1)
		}
		return err
	})
	if err := eg.Wait(); err != nil {
		return Link{}, false, err
	}
	for {
		// Child i holds the names after key i up to key i+1.
		i := 0
		for ; i < len(children); i++ {
			k, err := st.heapString(keys[i+1])
			if err != nil {
				return Link{}, false, err
			}
			if name <= k {
				break
			}
		}
		if i == len(children) {
			return Link{}, false, nil
		}
		if lvl == 0 {
			links, err := st.symbolNode(ctx, children[i])
			if err != nil {
				return Link{}, false, err
			}
			for _, l := range links {
				if l.Name == name {
					return l, true, nil
				}
			}
			return Link{}, false, nil
		}
		addr = children[i]
		if err := st.visit(addr); err != nil {
			return Link{}, false, err
		}
		var err error
		if lvl, keys, children, err = st.readNode(ctx, addr, lvl-1); err != nil {
			return Link{}, false, err
		}
	}
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

// visit marks the B-tree node at addr as read, failing for a node reached
// twice or a tree too large.
func (st *symbolTable) visit(addr uint64) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.seen[addr] {
		return fmt.Errorf("%w: group B-tree node at %d is reached twice", ErrFormat, addr)
	}
	st.seen[addr] = true
	if len(st.seen) > maxBtreeNodes {
		return fmt.Errorf("%w: group B-tree has more than %d nodes", ErrFormat, maxBtreeNodes)
	}
	return nil
}

// readNode reads the group B-tree node at addr: its level, its n+1 keys
// (heap offsets of names) and n children. level is the level its parent
// expects, or -1 for the root.
func (st *symbolTable) readNode(ctx context.Context, addr uint64, level int) (int, []uint64, []uint64, error) {
	sz := st.f.r.Sizes()
	hdr, err := st.f.r.Decoder(ctx, addr, uint64(8+2*sz.OffsetSize))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("group B-tree node at %d: %w", addr, err)
	}
	hdr.Signature("TREE")
	typ, lvl, n := hdr.Uint8(), int(hdr.Uint8()), int(hdr.Uint16())
	if err := hdr.Err(); err != nil {
		return 0, nil, nil, fmt.Errorf("group B-tree node at %d: %w", addr, err)
	}
	switch {
	case typ != 0:
		return 0, nil, nil, fmt.Errorf("%w: B-tree node at %d has type %d, want 0 (group)", ErrFormat, addr, typ)
	case level >= 0 && lvl != level, lvl > maxBtreeLevel:
		return 0, nil, nil, fmt.Errorf("%w: group B-tree node at %d has level %d, want %d", ErrFormat, addr, lvl, level)
	}
	entry := uint64(sz.LengthSize + sz.OffsetSize)
	d, err := st.f.r.Decoder(ctx, addr+uint64(8+2*sz.OffsetSize), uint64(n)*entry+uint64(sz.LengthSize))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("group B-tree node at %d: %w", addr, err)
	}
	keys, children := make([]uint64, n+1), make([]uint64, n)
	for i := range n {
		keys[i] = d.Length()
		children[i] = d.Offset()
	}
	keys[n] = d.Length()
	if err := d.Err(); err != nil {
		return 0, nil, nil, fmt.Errorf("group B-tree node at %d: %w", addr, err)
	}
	return lvl, keys, children, nil
}

// node returns the links below the group B-tree node at addr, in tree
// order, reading its children concurrently; level is the level its parent
// expects, or -1 for the root.
func (st *symbolTable) node(ctx context.Context, addr uint64, level int) ([]Link, error) {
	if err := st.visit(addr); err != nil {
		return nil, err
	}
	lvl, _, children, err := st.readNode(ctx, addr, level)
	if err != nil {
		return nil, err
	}
	parts := make([][]Link, len(children))
	eg, gctx := errgroup.WithContext(ctx)
	eg.SetLimit(maxNodeReads)
	for i, child := range children {
		eg.Go(func() error {
			var err error
			if lvl > 0 {
				parts[i], err = st.node(gctx, child, lvl-1)
			} else {
				parts[i], err = st.symbolNode(gctx, child)
			}
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(parts...), nil
}

// symbolNode reads the entries of the symbol node (SNOD) at addr.
func (st *symbolTable) symbolNode(ctx context.Context, addr uint64) ([]Link, error) {
	sz := st.f.r.Sizes()
	hdr, err := st.f.r.Decoder(ctx, addr, 8)
	if err != nil {
		return nil, fmt.Errorf("symbol node at %d: %w", addr, err)
	}
	hdr.Signature("SNOD")
	version := hdr.Uint8()
	hdr.Skip(1)
	n := hdr.Uint16()
	if err := hdr.Err(); err != nil {
		return nil, fmt.Errorf("symbol node at %d: %w", addr, err)
	}
	if version != 1 {
		return nil, fmt.Errorf("%w: symbol node version %d at %d", ErrFormat, version, addr)
	}
	entry := uint64(2*sz.OffsetSize + 24)
	links := make([]Link, 0, n)
	d, err := st.f.r.Decoder(ctx, addr+8, uint64(n)*entry)
	if err != nil {
		return nil, fmt.Errorf("symbol node at %d: %w", addr, err)
	}
	for range n {
		nameOff, obj := d.Offset(), d.Offset()
		cache := d.Uint32()
		d.Skip(4)
		scratch := d.Bytes(16)
		if err := d.Err(); err != nil {
			return nil, fmt.Errorf("symbol node at %d: %w", addr, err)
		}
		l, err := st.entry(nameOff, obj, cache, scratch)
		if err != nil {
			return nil, fmt.Errorf("symbol node at %d: %w", addr, err)
		}
		links = append(links, l)
	}
	return links, nil
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
