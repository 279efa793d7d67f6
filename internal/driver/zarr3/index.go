package zarr3

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
	"golang.org/x/sync/errgroup"
)

// A zarrshadow chunk index stands for the refs of an array with many chunks
// (more than 1000 by default): a Zarr v3 array of uint64, shaped like the
// chunk grid plus a last axis of 2, holding (offset, nbytes) of each chunk
// in one file, 2^64-1 for a chunk never written (the layout of a
// sharding_indexed index). Nothing of it is read when the store opens: the
// index array's zarr.json is read on the first locate, and each index chunk
// (a block of about 65,536 entries, blosc-compressed) on the first locate
// of a chunk it covers, shared by the concurrent locates waiting for it and
// kept while maxIndexBlocks more recent ones do not push it out. A read of
// chunks never touched before so costs three round trips, the index
// metadata, the index blocks and the chunks, each a round of concurrent
// requests.

// maxIndexBlocks bounds the index blocks kept per array (a block of 65,536
// entries is 1 MiB decoded).
const maxIndexBlocks = 64

// indexLocator locates the chunks of an array with a chunk index. A chunk
// the document lists by key is taken from there, as zarrshadow does.
type indexLocator struct {
	t    *tree
	keys chunkKeys
	ref  store.ChunkIndexRef
	grid []int // the array's chunk grid
	name string

	opened onceCache[struct{}, *openedIndex]
	blocks onceCache[int, *indexBlock] // at most maxIndexBlocks kept
}

// openedIndex is an index array ready to be read.
type openedIndex struct {
	arr   *engine.Chunked
	order binary.ByteOrder
	block []int // index chunk shape over the grid
	per   []int // blocks along each grid axis
	data  source.Source
}

// indexBlock is one index chunk's entries.
type indexBlock struct {
	lo, hi  []int    // the grid box it covers
	entries []uint64 // (offset, nbytes) pairs, C order over the box
}

func newIndexLocator(t *tree, keys chunkKeys, ref store.ChunkIndexRef, shape, chunks []int, name string) *indexLocator {
	grid := make([]int, len(shape))
	for i := range shape {
		grid[i] = (shape[i] + chunks[i] - 1) / chunks[i]
	}
	l := &indexLocator{t: t, keys: keys, ref: ref, grid: grid, name: name}
	l.blocks.max = maxIndexBlocks
	return l
}

func (l *indexLocator) Locate(ctx context.Context, coords []int) (engine.Chunk, error) {
	if key := l.keys.key(coords); l.keyed(key) {
		return l.t.refChunk(ctx, key)
	}
	ix, err := l.open(ctx)
	if err != nil {
		return engine.Chunk{}, err
	}
	id := 0
	for i, c := range coords {
		id = id*ix.per[i] + c/ix.block[i]
	}
	b, err := l.block(ctx, ix, id, coords)
	if err != nil {
		return engine.Chunk{}, err
	}
	k := 0
	for i, c := range coords {
		k = k*(b.hi[i]-b.lo[i]) + c - b.lo[i]
	}
	off, n := b.entries[2*k], b.entries[2*k+1]
	if off == empty {
		return engine.Chunk{Missing: true}, nil
	}
	if off > math.MaxInt64 || n > math.MaxInt64-off {
		return engine.Chunk{}, fmt.Errorf("chunk index %s: entry %v: %d bytes at %d: %w", l.ref.Index, coords, n, off, codecs.ErrCorrupt)
	}
	return engine.Chunk{Src: ix.data, Off: int64(off), Len: int64(n)}, nil
}

// keyed reports whether the document lists the chunk at key itself.
func (l *indexLocator) keyed(key string) bool {
	_, ok := l.t.refs.Ref(key)
	return ok
}

// open reads the index array's metadata and opens the data file, once.
func (l *indexLocator) open(ctx context.Context) (*openedIndex, error) {
	ix, err := l.opened.get(ctx, struct{}{}, func() (*openedIndex, error) { return l.read(ctx) })
	if err != nil {
		return nil, fmt.Errorf("chunk index %s of %s: %w", l.ref.Index, l.name, err)
	}
	return ix, nil
}

// read opens the index array and checks it against the data array's grid.
func (l *indexLocator) read(ctx context.Context) (*openedIndex, error) {
	where, err := l.t.refs.Resolve(l.ref.Index)
	if err != nil {
		return nil, err
	}
	file, err := l.t.refs.Resolve(l.ref.URL)
	if err != nil {
		return nil, err
	}
	sub := &tree{env: l.t.env, root: where}
	if source.IsURL(where) {
		if sub.st, err = store.NewRemote(where, nil); err != nil {
			return nil, err
		}
	} else {
		var opts []store.DirOption
		if l.t.env.FollowOutside {
			opts = append(opts, store.FollowOutside())
		}
		if sub.st, err = store.OpenDir(where, opts...); err != nil {
			return nil, err
		}
		sub.dir = true
	}
	n, err := sub.node(ctx, "")
	if err != nil {
		return nil, err
	}
	if n.Array == nil {
		return nil, fmt.Errorf("%w: not an array", driver.ErrFormat)
	}
	d := sub.dataset("", l.ref.Index, n)
	if d.Err != nil {
		return nil, d.Err
	}
	want := append(slices.Clone(l.grid), 2)
	if d.DType.Kind != zarrmeta.KindUint || d.DType.Size != 8 || !slices.Equal(d.Shape, want) {
		return nil, fmt.Errorf("%w: %s array of shape %v; an index of a chunk grid of %v is uint64 of shape %v", driver.ErrFormat, d.DType, d.Shape, l.grid, want)
	}
	fixed, ok := d.Storage.(*driver.Fixed)
	if !ok || fixed.Items != nil {
		return nil, fmt.Errorf("%w: an index array is stored in its own chunks", driver.ErrFormat)
	}
	// An index chunk of a remote store is read whole in one request, not
	// sized first: its key locator is an engine.Preparer (driver.Objects).
	ix := &openedIndex{arr: fixed.Array, order: binary.LittleEndian}
	if d.DType.Order == zarrmeta.BigEndian {
		ix.order = binary.BigEndian
	}
	entries := 1
	for i, g := range l.grid {
		b := max(1, min(d.Chunks[i], g))
		ix.block = append(ix.block, b)
		ix.per = append(ix.per, (g+b-1)/b)
		if entries *= b; entries > maxIndexEntries {
			return nil, fmt.Errorf("%w: index chunks of %v entries: more than %d a block", driver.ErrFormat, d.Chunks[:len(l.grid)], maxIndexEntries)
		}
	}
	if ix.data, err = l.t.env.Pool.Open(ctx, file); err != nil {
		return nil, err
	}
	return ix, nil
}

// block returns the entries of index block id (the one holding the chunk
// at coords), reading it on first use.
func (l *indexLocator) block(ctx context.Context, ix *openedIndex, id int, coords []int) (*indexBlock, error) {
	return l.blocks.get(ctx, id, func() (*indexBlock, error) {
		b := &indexBlock{}
		for i, c := range coords {
			lo := c / ix.block[i] * ix.block[i]
			b.lo, b.hi = append(b.lo, lo), append(b.hi, min(lo+ix.block[i], l.grid[i]))
		}
		var err error
		b.entries, err = l.readBlock(ctx, ix, b)
		return b, err
	})
}

// readBlock reads the entries of the grid box of b from the index array.
func (l *indexLocator) readBlock(ctx context.Context, ix *openedIndex, b *indexBlock) ([]uint64, error) {
	sel := make(selection.Selection, 0, len(b.lo)+1)
	for i := range b.lo {
		sel = append(sel, selection.Slice(b.lo[i], b.hi[i], 1))
	}
	sel = append(sel, selection.All())
	r, err := sel.Resolve(ix.arr.Shape)
	if err != nil {
		return nil, err
	}
	raw := make([]byte, r.Len()*8)
	if err := engine.Read(ctx, ix.arr, r, raw, engine.Options{}); err != nil {
		return nil, fmt.Errorf("chunk index %s of %s: %w", l.ref.Index, l.name, err)
	}
	out := make([]uint64, r.Len())
	for i := range out {
		out[i] = ix.order.Uint64(raw[8*i:])
	}
	return out, nil
}

// Prepare reads the index blocks the chunks at coords need, all at once
// (after the index array's metadata, on first use).
func (l *indexLocator) Prepare(ctx context.Context, coords [][]int) {
	indexed := coords[:0:0]
	for _, c := range coords {
		if !l.keyed(l.keys.key(c)) {
			indexed = append(indexed, c)
		}
	}
	if len(indexed) == 0 {
		return // all listed by key: the index is not needed
	}
	ix, err := l.open(ctx)
	if err != nil {
		return // the locates try again and report it
	}
	seen := map[int]bool{}
	var g errgroup.Group
	g.SetLimit(prepareRequests)
	for _, c := range indexed {
		id := 0
		for i, x := range c {
			id = id*ix.per[i] + x/ix.block[i]
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		g.Go(func() error {
			l.block(ctx, ix, id, c)
			return nil
		})
	}
	g.Wait()
}
