package zarr3

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/zarrmeta"
	"golang.org/x/sync/errgroup"
)

// shardSpec is the configuration of a sharding_indexed codec.
type shardSpec struct {
	chunks     []int  // the inner chunk shape
	inner      *chain // the inner chunks' codecs
	indexOrder binary.ByteOrder
	indexCRC   bool // the index ends in a crc32c of its entries
	atStart    bool // the index is at the start of the shard, not at its end
}

func parseShard(cfg map[string]any, ndim, depth int) (*shardSpec, error) {
	s := &shardSpec{indexOrder: binary.LittleEndian}
	var err error
	if s.chunks, err = zarrmeta.Ints(cfg["chunk_shape"], "sharding_indexed chunk_shape"); err != nil {
		return nil, err
	}
	if len(s.chunks) != ndim {
		return nil, fmt.Errorf("%w: sharding_indexed chunk_shape %v for %d dimensions", zarrmeta.ErrV3, s.chunks, ndim)
	}
	for _, n := range s.chunks {
		if n == 0 {
			return nil, fmt.Errorf("%w: sharding_indexed chunk_shape %v has a zero extent", zarrmeta.ErrV3, s.chunks)
		}
	}
	inner, err := zarrmeta.V3Codecs(cfg["codecs"], "sharding_indexed codecs")
	if err != nil {
		return nil, err
	}
	if s.inner, err = parseChain(inner, ndim, depth); err != nil {
		return nil, fmt.Errorf("sharding_indexed codecs: %w", err)
	}
	ic, err := zarrmeta.V3Codecs(cfg["index_codecs"], "sharding_indexed index_codecs")
	if err != nil {
		return nil, err
	}
	if err := s.indexCodecs(ic); err != nil {
		return nil, err
	}
	switch loc := cfg["index_location"]; loc {
	case nil, "end":
	case "start":
		s.atStart = true
	default:
		return nil, fmt.Errorf("%w: sharding_indexed index_location %v is neither \"start\" nor \"end\"", zarrmeta.ErrV3, loc)
	}
	return s, nil
}

// indexCodecs accepts the index codecs this package reads: bytes (either
// endian), optionally followed by crc32c, which keep the index's size fixed.
func (s *shardSpec) indexCodecs(cs []zarrmeta.V3Codec) error {
	if len(cs) == 0 || cs[0].Name != "bytes" {
		return fmt.Errorf("%w: sharding_indexed index_codecs must start with bytes", codecs.ErrUnknownCodec)
	}
	switch e := cs[0].Configuration["endian"]; e {
	case nil, "little":
	case "big":
		s.indexOrder = binary.BigEndian
	default:
		return fmt.Errorf("%w: index bytes codec endian %v", zarrmeta.ErrV3, e)
	}
	switch {
	case len(cs) == 1:
	case len(cs) == 2 && cs[1].Name == "crc32c":
		s.indexCRC = true
	default:
		return fmt.Errorf("%w: sharding_indexed index_codecs other than bytes and crc32c", codecs.ErrUnknownCodec)
	}
	return nil
}

// shardLocator locates inner chunks, the engine's chunks, in their shards.
// A shard's index is read on the first use of the shard (concurrent locates
// of its chunks wait for that one read) and kept. With nested sharding an
// inner chunk of the outer shard is itself a shard, whose index, within the
// outer shard's file, is read (and kept) the same way.
type shardLocator struct {
	t      *tree
	keys   chunkKeys
	levels []level // outermost first
	inner  []int   // the innermost chunk shape: the engine's chunks
	name   string

	indexes onceCache[string, *shardIndex]
}

// level is one level of sharding: shards of shape shape holding chunks of
// spec.chunks, per along each axis.
type level struct {
	spec    *shardSpec
	shape   []int
	per     []int
	entries int
}

// shardIndex is one shard's index, read once.
type shardIndex struct {
	src     source.Source // nil for a missing shard
	base    int64         // where the shard starts in src
	entries []uint64      // (offset, nbytes) pairs, C order over the inner grid, relative to base
	at      int           // while descending: the entry that is the next level's shard
}

// newShardLocator locates the chunks of an array sharded as specs say
// (outermost first) in shards of shardShape.
func newShardLocator(t *tree, keys chunkKeys, specs []*shardSpec, shardShape []int, name string) *shardLocator {
	l := &shardLocator{t: t, keys: keys, name: name}
	shape := shardShape
	for _, s := range specs {
		lv := level{spec: s, shape: shape, entries: 1}
		for i, n := range shape {
			lv.per = append(lv.per, n/s.chunks[i])
			lv.entries *= n / s.chunks[i]
		}
		l.levels = append(l.levels, lv)
		shape = s.chunks
	}
	l.inner = shape
	return l
}

// indexLen is the size of an encoded shard index.
func (lv *level) indexLen() int64 {
	n := int64(lv.entries) * 16
	if lv.spec.indexCRC {
		n += 4
	}
	return n
}

const empty = math.MaxUint64

func (l *shardLocator) Locate(ctx context.Context, coords []int) (engine.Chunk, error) {
	if l.keys.scalar {
		coords = nil // the engine's one chunk [0] of a 0-d array
	}
	var key strings.Builder
	var ix *shardIndex
	for k := range l.levels {
		lv := &l.levels[k]
		entry := 0
		var shard []int
		for i, c := range coords {
			e := c * l.inner[i] // the chunk's first element
			if k == 0 {
				shard = append(shard, e/lv.shape[i])
			}
			entry = entry*lv.per[i] + e%lv.shape[i]/lv.spec.chunks[i]
		}
		var err error
		if k == 0 {
			name := l.keys.key(shard)
			key.WriteString(name)
			ix, err = l.index(ctx, key.String(), func() (*shardIndex, error) { return l.readShard(ctx, lv, name) })
		} else {
			parent := ix
			off, n := parent.entries[2*parent.at], parent.entries[2*parent.at+1]
			ix, err = l.index(ctx, key.String(), func() (*shardIndex, error) {
				return l.readSub(ctx, lv, parent.src, parent.base+int64(off), int64(n))
			})
		}
		if err != nil {
			return engine.Chunk{}, err
		}
		if ix.src == nil {
			return engine.Chunk{Missing: true}, nil
		}
		off, n := ix.entries[2*entry], ix.entries[2*entry+1]
		if off == empty && n == empty {
			return engine.Chunk{Missing: true}, nil
		}
		if k == len(l.levels)-1 {
			return engine.Chunk{Src: ix.src, Off: ix.base + int64(off), Len: int64(n)}, nil
		}
		// Descend: the entry is a shard of the next level.
		ix = &shardIndex{src: ix.src, base: ix.base, entries: ix.entries, at: entry}
		fmt.Fprintf(&key, "#%d", entry)
	}
	return engine.Chunk{}, fmt.Errorf("%s: no sharding level", l.name)
}

// index returns the index cached under key, reading it with read on first
// use (onceCache: a failed read is not kept).
func (l *shardLocator) index(ctx context.Context, key string, read func() (*shardIndex, error)) (*shardIndex, error) {
	return l.indexes.get(ctx, key, read)
}

// readShard reads and checks the index of the shard at key: an index at
// the start is read first, its answer telling the size (no request for
// it); one at the end is the shard's tail, read without asking the size
// first (over HTTP one suffix range request, whose answer tells it).
func (l *shardLocator) readShard(ctx context.Context, lv *level, key string) (*shardIndex, error) {
	if !lv.spec.atStart {
		return l.readShardTail(ctx, lv, key)
	}
	src, size, err := l.t.object(ctx, key, false)
	if err != nil || src == nil {
		return &shardIndex{}, err
	}
	n := lv.indexLen()
	if size >= 0 && size < n {
		return nil, shorter(l.name, src.Name(), size, n)
	}
	buf := make([]byte, n)
	got, err := src.ReadAt(ctx, buf, 0)
	if got != len(buf) {
		if driver.NotFound(err) {
			return &shardIndex{}, nil // a shard never written
		}
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: shard %s: index of %d bytes at 0: %w", l.name, src.Name(), n, err)
	}
	if size < 0 {
		if size, err = src.Size(ctx); err != nil {
			return nil, err
		}
	}
	entries, err := lv.decode(buf, size)
	if err != nil {
		return nil, fmt.Errorf("%s: shard %s: %w", l.name, src.Name(), err)
	}
	return &shardIndex{src: src, entries: entries}, nil
}

// readShardTail reads and checks the index at the end of the shard at key.
func (l *shardLocator) readShardTail(ctx context.Context, lv *level, key string) (*shardIndex, error) {
	src, _, err := l.t.object(ctx, key, false)
	if err != nil || src == nil {
		return &shardIndex{}, err
	}
	n := lv.indexLen()
	buf := make([]byte, n)
	got, size, err := source.ReadTail(ctx, src, buf)
	if err != nil {
		if driver.NotFound(err) {
			return &shardIndex{}, nil // a shard never written
		}
		return nil, fmt.Errorf("%s: shard %s: index of its last %d bytes: %w", l.name, src.Name(), n, err)
	}
	if got < len(buf) {
		return nil, shorter(l.name, src.Name(), size, n)
	}
	entries, err := lv.decode(buf, size)
	if err != nil {
		return nil, fmt.Errorf("%s: shard %s: %w", l.name, src.Name(), err)
	}
	return &shardIndex{src: src, entries: entries}, nil
}

// shorter is the error of a shard of size bytes shorter than its n-byte
// index.
func shorter(array, shard string, size, n int64) error {
	return fmt.Errorf("%s: shard %s: %w: %d bytes, shorter than its %d-byte index", array, shard, zarrmeta.ErrV3, size, n)
}

// readSub reads and checks the index of a nested shard: the size bytes at
// base in src.
func (l *shardLocator) readSub(ctx context.Context, lv *level, src source.Source, base, size int64) (*shardIndex, error) {
	n := lv.indexLen()
	if size < n {
		return nil, fmt.Errorf("%s: nested shard at %d in %s: %w: %d bytes, shorter than its %d-byte index", l.name, base, src.Name(), zarrmeta.ErrV3, size, n)
	}
	at := base
	if !lv.spec.atStart {
		at = base + size - n
	}
	buf := make([]byte, n)
	if got, err := src.ReadAt(ctx, buf, at); got != len(buf) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: nested shard at %d in %s: index: %w", l.name, base, src.Name(), err)
	}
	entries, err := lv.decode(buf, size)
	if err != nil {
		return nil, fmt.Errorf("%s: nested shard at %d in %s: %w", l.name, base, src.Name(), err)
	}
	return &shardIndex{src: src, base: base, entries: entries}, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decode checks an encoded index against its checksum and the shard's size
// and returns its entries.
func (lv *level) decode(buf []byte, size int64) ([]uint64, error) {
	body := buf[:lv.entries*16]
	if lv.spec.indexCRC {
		want := binary.LittleEndian.Uint32(buf[len(body):])
		if got := crc32.Checksum(body, castagnoli); got != want {
			return nil, fmt.Errorf("index crc32c %08x, stored %08x: %w", got, want, codecs.ErrCorrupt)
		}
	}
	out := make([]uint64, 2*lv.entries)
	for i := range out {
		out[i] = lv.spec.indexOrder.Uint64(body[8*i:])
	}
	for i := 0; i < len(out); i += 2 {
		off, n := out[i], out[i+1]
		if off == empty && n == empty {
			continue
		}
		if off > uint64(size) || n > uint64(size)-off {
			return nil, fmt.Errorf("index entry %d: %d bytes at %d in a shard of %d bytes: %w", i/2, n, off, size, codecs.ErrCorrupt)
		}
	}
	return out, nil
}

// prepareRequests bounds the index reads a Prepare makes at once.
const prepareRequests = 64

// Prepare reads the outermost index of every shard the chunks at coords
// lie in, all at once: locates taking the chunks in turn would read one
// shard's index after another's. Nested indexes are read by the locates.
func (l *shardLocator) Prepare(ctx context.Context, coords [][]int) {
	lv := &l.levels[0]
	seen := map[string]bool{}
	var g errgroup.Group
	g.SetLimit(prepareRequests)
	shard := make([]int, len(l.inner))
	for _, c := range coords {
		if l.keys.scalar {
			c = nil
		}
		shard = shard[:len(c)]
		for i, x := range c {
			shard[i] = x * l.inner[i] / lv.shape[i]
		}
		name := l.keys.key(shard)
		if seen[name] {
			continue
		}
		seen[name] = true
		g.Go(func() error {
			// A failure is not kept: the locate reads again and reports it.
			l.index(ctx, name, func() (*shardIndex, error) { return l.readShard(ctx, lv, name) })
			return nil
		})
	}
	g.Wait()
}
