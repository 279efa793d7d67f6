package btree2

import (
	"context"
	"fmt"
	"sort"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// maxCachedNodes bounds the decoded nodes a Tree keeps.
const maxCachedNodes = 4096

// Tree is an open version 2 B-tree. It is safe for concurrent use.
type Tree struct {
	Header
	r        *fileio.Reader
	addr     uint64
	levels   []level
	nrecSize int // bytes of the "number of records" field of a child pointer

	nodes *fileio.Memo[uint64, *node]
}

// node is a decoded node: its records and, for internal nodes, one child
// pointer more than records.
type node struct {
	records  [][]byte
	children []child
}

type child struct {
	addr    uint64
	records uint64 // records in the child node itself
	total   uint64 // records in the child's subtree
}

// Open reads and checks the B-tree header at addr.
func Open(ctx context.Context, r *fileio.Reader, addr uint64) (*Tree, error) {
	h, err := readHeader(ctx, r, addr)
	if err != nil {
		return nil, err
	}
	lv, nrecSize, err := h.levels(r.Sizes())
	if err != nil {
		return nil, fmt.Errorf("%w (header at %d)", err, addr)
	}
	if uint64(h.RootRecords) > lv[h.Depth].maxRecords {
		return nil, fmt.Errorf("%w: root holds %d records, at most %d fit (header at %d)",
			ErrCorrupt, h.RootRecords, lv[h.Depth].maxRecords, addr)
	}
	if h.TotalRecords > lv[h.Depth].cumMax {
		return nil, fmt.Errorf("%w: %d records, a depth %d tree holds at most %d (header at %d)",
			ErrCorrupt, h.TotalRecords, h.Depth, lv[h.Depth].cumMax, addr)
	}
	return &Tree{Header: h, r: r, addr: addr, levels: lv, nrecSize: nrecSize, nodes: fileio.NewMemo[uint64, *node](maxCachedNodes)}, nil
}

// Walk calls visit for every record of the tree at addr, in key order. It
// stops at the first error visit returns and returns it. The record slices
// must not be modified; they stay valid after visit returns.
func Walk(ctx context.Context, r *fileio.Reader, addr uint64, visit func(record []byte) error) error {
	t, err := Open(ctx, r, addr)
	if err != nil {
		return err
	}
	return t.Walk(ctx, visit)
}

// Walk calls visit for every record in key order, as the function Walk
// does.
func (t *Tree) Walk(ctx context.Context, visit func(record []byte) error) error {
	if t.TotalRecords == 0 || fileio.IsUndefined(t.Root) {
		return nil
	}
	w := walker{t: t, visit: visit, seen: make(map[uint64]bool)}
	if err := w.walk(ctx, child{addr: t.Root, records: uint64(t.RootRecords), total: t.TotalRecords}, int(t.Depth)); err != nil {
		return err
	}
	if w.count != t.TotalRecords {
		return fmt.Errorf("%w: header at %d announces %d records, found %d", ErrCorrupt, t.addr, t.TotalRecords, w.count)
	}
	return nil
}

type walker struct {
	t     *Tree
	visit func([]byte) error
	seen  map[uint64]bool
	count uint64
}

func (w *walker) walk(ctx context.Context, c child, depth int) error {
	if w.seen[c.addr] {
		return fmt.Errorf("%w: node at %d reached twice", ErrCorrupt, c.addr)
	}
	w.seen[c.addr] = true
	n, err := w.t.node(ctx, c, depth)
	if err != nil {
		return err
	}
	for i, rec := range n.records {
		if depth > 0 {
			if err := w.walk(ctx, n.children[i], depth-1); err != nil {
				return err
			}
		}
		if w.count++; w.count > w.t.TotalRecords {
			return fmt.Errorf("%w: more records than the %d the header at %d announces", ErrCorrupt, w.t.TotalRecords, w.t.addr)
		}
		if err := w.visit(rec); err != nil {
			return err
		}
	}
	if depth > 0 {
		return w.walk(ctx, n.children[len(n.records)], depth-1)
	}
	return nil
}

// Find returns the record for which cmp returns 0, descending from the
// root. cmp compares the sought key with a record: negative when the key
// sorts before the record, positive after, 0 on a match. Records are
// sorted in the tree's key order, so cmp must agree with it. The bool is
// false when no record matches. When several records compare equal (name
// hashes that collide, in trees of type 5 and 8), Find returns one of
// them: compare the full key in cmp, or use Walk.
func (t *Tree) Find(ctx context.Context, cmp func(record []byte) int) ([]byte, bool, error) {
	if t.TotalRecords == 0 || fileio.IsUndefined(t.Root) {
		return nil, false, nil
	}
	c := child{addr: t.Root, records: uint64(t.RootRecords), total: t.TotalRecords}
	for depth := int(t.Depth); ; depth-- {
		n, err := t.node(ctx, c, depth)
		if err != nil {
			return nil, false, err
		}
		i := sort.Search(len(n.records), func(i int) bool { return cmp(n.records[i]) <= 0 })
		if i < len(n.records) && cmp(n.records[i]) == 0 {
			return n.records[i], true, nil
		}
		if depth == 0 {
			return nil, false, nil
		}
		c = n.children[i]
	}
}

// node returns the node c points at, which lies at the given depth.
func (t *Tree) node(ctx context.Context, c child, depth int) (*node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, ok := t.nodes.Get(c.addr)
	if ok {
		if uint64(len(n.records)) != c.records {
			return nil, fmt.Errorf("%w: node at %d has %d records, its parent says %d", ErrCorrupt, c.addr, len(n.records), c.records)
		}
		return n, nil
	}
	n, err := t.readNode(ctx, c, depth)
	if err != nil {
		return nil, err
	}
	t.nodes.Put(c.addr, n)
	return n, nil
}

func (t *Tree) readNode(ctx context.Context, c child, depth int) (*node, error) {
	lv := t.levels[depth]
	if c.records > lv.maxRecords {
		return nil, fmt.Errorf("%w: node at %d has %d records, at most %d fit", ErrCorrupt, c.addr, c.records, lv.maxRecords)
	}
	if depth > 0 && c.records == 0 && c.total == 0 {
		return nil, fmt.Errorf("%w: empty internal node at %d", ErrCorrupt, c.addr)
	}
	sig, ptrSize := "BTLF", 0
	if depth > 0 {
		sig, ptrSize = "BTIN", t.pointerSize(depth)
	}
	// Bounded by the node size: records ≤ maxRecords, computed from it.
	size := 6 + c.records*uint64(t.RecordSize) + (c.records+1)*uint64(ptrSize) + 4
	if depth == 0 {
		size = 6 + c.records*uint64(t.RecordSize) + 4
	}
	b, err := t.r.Bytes(ctx, c.addr, size)
	if err != nil {
		return nil, fmt.Errorf("hdf5: B-tree v2 node at %d: %w", c.addr, err)
	}
	if err := fileio.VerifyChecksum(b, "B-tree v2 node"); err != nil {
		return nil, fmt.Errorf("%w (node at %d)", err, c.addr)
	}
	d := fileio.NewDecoder(b, t.r.Sizes())
	d.Signature(sig)
	if v := d.Uint8(); d.Err() == nil && v != 0 {
		return nil, fmt.Errorf("hdf5: B-tree v2 node at %d: version %d not supported", c.addr, v)
	}
	if typ := Type(d.Uint8()); d.Err() == nil && typ != t.Type {
		return nil, fmt.Errorf("%w: node at %d has record type %d, header says %d", ErrCorrupt, c.addr, typ, t.Type)
	}
	n := &node{records: make([][]byte, c.records)}
	for i := range n.records {
		n.records[i] = d.Bytes(int(t.RecordSize))
	}
	if depth > 0 {
		n.children = t.decodeChildren(d, int(c.records)+1, depth)
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("hdf5: B-tree v2 node at %d: %w", c.addr, err)
	}
	return n, nil
}

// pointerSize returns the bytes of one child pointer in an internal node
// at depth.
func (t *Tree) pointerSize(depth int) int {
	n := t.r.Sizes().OffsetSize + t.nrecSize
	if depth > 1 {
		n += t.levels[depth-1].cumSize
	}
	return n
}

func (t *Tree) decodeChildren(d *fileio.Decoder, n, depth int) []child {
	cs := make([]child, n)
	for i := range cs {
		cs[i].addr = d.Offset()
		cs[i].records = d.Uint(t.nrecSize)
		cs[i].total = cs[i].records
		if depth > 1 {
			cs[i].total = d.Uint(t.levels[depth-1].cumSize)
		}
		if d.Err() == nil && fileio.IsUndefined(cs[i].addr) {
			d.Failf("%w: undefined child address", ErrCorrupt)
		}
	}
	return cs
}
