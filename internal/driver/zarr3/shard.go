package zarr3

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sync"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/zarrmeta"
)

// shardSpec is the configuration of a sharding_indexed codec.
type shardSpec struct {
	chunks     []int  // the inner chunk shape
	inner      *chain // the inner chunks' codecs
	indexOrder binary.ByteOrder
	indexCRC   bool // the index ends in a crc32c of its entries
	atStart    bool // the index is at the start of the shard, not at its end
}

func parseShard(cfg map[string]any, ndim int) (*shardSpec, error) {
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
	if s.inner, err = parseChain(inner, ndim, true); err != nil {
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
// of its chunks wait for that one read) and kept.
type shardLocator struct {
	t       *tree
	keys    chunkKeys
	spec    *shardSpec
	perAxis []int // inner chunks per shard along each axis
	entries int   // inner chunks per shard
	name    string

	mu      sync.Mutex
	indexes map[string]*shardIndex
}

// shardIndex is one shard's index, read once.
type shardIndex struct {
	done    chan struct{}
	src     source.Source // nil for a missing shard
	entries []uint64      // (offset, nbytes) pairs, C order over the inner grid
	err     error
}

func newShardLocator(t *tree, keys chunkKeys, s *shardSpec, shardShape []int, name string) *shardLocator {
	l := &shardLocator{t: t, keys: keys, spec: s, name: name, indexes: map[string]*shardIndex{}, entries: 1}
	for i, n := range shardShape {
		l.perAxis = append(l.perAxis, n/s.chunks[i])
		l.entries *= n / s.chunks[i]
	}
	return l
}

// indexLen is the size of an encoded shard index.
func (l *shardLocator) indexLen() int64 {
	n := int64(l.entries) * 16
	if l.spec.indexCRC {
		n += 4
	}
	return n
}

const empty = math.MaxUint64

func (l *shardLocator) Locate(ctx context.Context, coords []int) (engine.Chunk, error) {
	var shard []int
	entry := 0
	if !l.keys.scalar {
		shard = make([]int, len(coords))
		for i, c := range coords {
			shard[i] = c / l.perAxis[i]
			entry = entry*l.perAxis[i] + c%l.perAxis[i]
		}
	}
	ix, err := l.index(ctx, l.keys.key(shard))
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
	return engine.Chunk{Src: ix.src, Off: int64(off), Len: int64(n)}, nil
}

// index returns the index of the shard at key, reading it on first use. A
// failed read is not kept: the next locate tries again.
func (l *shardLocator) index(ctx context.Context, key string) (*shardIndex, error) {
	l.mu.Lock()
	ix, ok := l.indexes[key]
	if !ok {
		ix = &shardIndex{done: make(chan struct{})}
		l.indexes[key] = ix
		l.mu.Unlock()
		ix.src, ix.entries, ix.err = l.read(ctx, key)
		if ix.err != nil {
			l.mu.Lock()
			delete(l.indexes, key)
			l.mu.Unlock()
		}
		close(ix.done)
	} else {
		l.mu.Unlock()
		select {
		case <-ix.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return ix, ix.err
}

// read reads and checks the index of the shard at key.
func (l *shardLocator) read(ctx context.Context, key string) (source.Source, []uint64, error) {
	// An index at the start is read first, its answer telling the size
	// (no request for it); one at the end needs the size first.
	src, size, err := l.t.object(ctx, key, !l.spec.atStart)
	if err != nil || src == nil {
		return nil, nil, err
	}
	n := l.indexLen()
	if size >= 0 && size < n {
		return nil, nil, fmt.Errorf("%s: shard %s: %w: %d bytes, shorter than its %d-byte index", l.name, src.Name(), zarrmeta.ErrV3, size, n)
	}
	at := int64(0)
	if !l.spec.atStart {
		at = size - n
	}
	buf := make([]byte, n)
	got, err := src.ReadAt(ctx, buf, at)
	if got != len(buf) {
		if driver.NotFound(err) {
			return nil, nil, nil // a shard never written
		}
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, nil, fmt.Errorf("%s: shard %s: index of %d bytes at %d: %w", l.name, src.Name(), n, at, err)
	}
	if size < 0 {
		if size, err = src.Size(ctx); err != nil {
			return nil, nil, err
		}
	}
	entries, err := l.decode(buf, size)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: shard %s: %w", l.name, src.Name(), err)
	}
	return src, entries, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decode checks an encoded index against its checksum and the shard's size
// and returns its entries.
func (l *shardLocator) decode(buf []byte, size int64) ([]uint64, error) {
	body := buf[:l.entries*16]
	if l.spec.indexCRC {
		want := binary.LittleEndian.Uint32(buf[len(body):])
		if got := crc32.Checksum(body, castagnoli); got != want {
			return nil, fmt.Errorf("index crc32c %08x, stored %08x: %w", got, want, codecs.ErrCorrupt)
		}
	}
	out := make([]uint64, 2*l.entries)
	for i := range out {
		out[i] = l.spec.indexOrder.Uint64(body[8*i:])
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
