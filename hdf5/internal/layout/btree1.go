package layout

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// maxCachedNodes bounds the decoded index nodes or blocks an index keeps.
const maxCachedNodes = 4096

// btree1 is a version 1 B-tree of raw data chunks (node type 1). Each key
// holds a chunk's size, filter mask and element offsets; a node's key i is
// the first chunk under child i, so a lookup descends by key.
type btree1 struct {
	r    *fileio.Reader
	root uint64
	g    *grid
	rank int

	nodes *fileio.Memo[uint64, *b1node]
}

type b1node struct {
	level    uint8
	keys     []b1key // len(children)+1
	children []uint64
}

type b1key struct {
	size    uint32
	mask    uint32
	offsets []uint64 // element offsets, one per dataset dimension
}

func newBTree1(r *fileio.Reader, l *Layout, g *grid) (*btree1, error) {
	return &btree1{r: r, root: l.Addr, g: g, rank: len(l.Chunk), nodes: fileio.NewMemo[uint64, *b1node](maxCachedNodes)}, nil
}

// Lookup descends from the root along the keys.
func (t *btree1) Lookup(ctx context.Context, coords []int) (Chunk, bool, error) {
	if err := t.g.check(coords); err != nil {
		return Chunk{}, false, err
	}
	target := make([]uint64, t.rank)
	for i, c := range coords {
		target[i] = uint64(c) * t.g.chunk[i]
	}
	addr, level := t.root, -1
	for {
		n, err := t.node(ctx, addr, level)
		if err != nil {
			return Chunk{}, false, err
		}
		i := n.find(target)
		if i < 0 {
			return Chunk{}, false, nil
		}
		if n.level == 0 {
			k := n.keys[i]
			if compareOffsets(k.offsets, target) != 0 {
				return Chunk{}, false, nil
			}
			return Chunk{Addr: n.children[i], Size: uint64(k.size), FilterMask: k.mask}, true, nil
		}
		addr, level = n.children[i], int(n.level)-1
	}
}

// find returns the last child whose first key is ≤ target, or -1.
func (n *b1node) find(target []uint64) int {
	lo, hi := 0, len(n.children) // first child with key > target
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if compareOffsets(n.keys[m].offsets, target) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

func compareOffsets(a, b []uint64) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// All walks the whole tree.
func (t *btree1) All(ctx context.Context) ([]Entry, error) {
	var out []Entry
	seen := make(map[uint64]bool)
	var walk func(addr uint64, level int) error
	walk = func(addr uint64, level int) error {
		if seen[addr] {
			return fmt.Errorf("%w: B-tree node at %d reached twice", ErrCorrupt, addr)
		}
		seen[addr] = true
		n, err := t.node(ctx, addr, level)
		if err != nil {
			return err
		}
		for i, child := range n.children {
			if n.level > 0 {
				if err := walk(child, int(n.level)-1); err != nil {
					return err
				}
				continue
			}
			k := n.keys[i]
			coords := make([]uint64, t.rank)
			for d, off := range k.offsets {
				coords[d] = off / t.g.chunk[d]
			}
			if t.g.inside(coords) {
				out = append(out, Entry{Coords: toInts(coords), Chunk: Chunk{Addr: child, Size: uint64(k.size), FilterMask: k.mask}})
			}
		}
		return nil
	}
	if err := walk(t.root, -1); err != nil {
		return nil, err
	}
	return out, nil
}

// node returns the node at addr, which must be at the given level (any
// level for the root: -1).
func (t *btree1) node(ctx context.Context, addr uint64, level int) (*b1node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, ok := t.nodes.Get(addr)
	if !ok {
		var err error
		if n, err = t.readNode(ctx, addr); err != nil {
			return nil, err
		}
		t.nodes.Put(addr, n)
	}
	if level >= 0 && int(n.level) != level {
		return nil, fmt.Errorf("%w: B-tree node at %d has level %d, want %d", ErrCorrupt, addr, n.level, level)
	}
	return n, nil
}

func (t *btree1) readNode(ctx context.Context, addr uint64) (*b1node, error) {
	s := t.r.Sizes()
	prefix := uint64(8 + 2*s.OffsetSize)
	head, err := t.r.Bytes(ctx, addr, prefix)
	if err != nil {
		return nil, fmt.Errorf("hdf5: B-tree node at %d: %w", addr, err)
	}
	d := fileio.NewDecoder(head, s)
	d.Signature("TREE")
	typ, level, entries := d.Uint8(), d.Uint8(), d.Uint16()
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("hdf5: B-tree node at %d: %w", addr, err)
	}
	if typ != 1 {
		return nil, fmt.Errorf("%w: B-tree node at %d has type %d, want 1 (raw data chunks)", ErrCorrupt, addr, typ)
	}
	if entries == 0 {
		return nil, fmt.Errorf("%w: empty B-tree node at %d", ErrCorrupt, addr)
	}
	keySize := uint64(8 + 8*(t.rank+1))
	// At most 65535 entries of bounded size: well under fileio.MaxRead.
	body, err := t.r.Bytes(ctx, addr+prefix, uint64(entries)*(keySize+uint64(s.OffsetSize))+keySize)
	if err != nil {
		return nil, fmt.Errorf("hdf5: B-tree node at %d with %d entries: %w", addr, entries, err)
	}
	d = fileio.NewDecoder(body, s)
	n := &b1node{level: level, keys: make([]b1key, entries+1), children: make([]uint64, entries)}
	for i := range n.keys {
		k := &n.keys[i]
		k.size, k.mask = d.Uint32(), d.Uint32()
		k.offsets = make([]uint64, t.rank)
		for j := range k.offsets {
			k.offsets[j] = d.Uint64()
		}
		d.Skip(8) // offset in the element-size dimension: always 0
		if i < int(entries) {
			n.children[i] = d.Offset()
		}
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("hdf5: B-tree node at %d: %w", addr, err)
	}
	return n, nil
}
