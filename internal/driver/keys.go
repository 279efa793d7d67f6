package driver

import (
	"context"
	"errors"

	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/store"
)

// KeyLocator finds the chunks of an array stored an object per key (a Zarr
// v2 or v3 store's chunks, a reference document's refs): an absent key is a
// missing chunk. The Zarr drivers give it their key scheme.
type KeyLocator struct {
	Env   *Env
	Store store.Store
	// Key is the store key of the chunk at coords.
	Key func(coords []int) string
	// Local says the chunks are local files of their own (a Zarr
	// directory, a .lindi.d's blobs): each is opened for its read alone, so
	// that a store of many thousand chunks does not hold as many
	// descriptors.
	Local bool
	// Refs says the store is a reference document (LINDI, zarrshadow),
	// whose values name files that must exist: one that does not is an
	// error, not a chunk never written.
	Refs bool
	// Expect is a chunk's decoded size, about its stored size at most.
	Expect int64

	pre Prepared // chunks of a remote store read whole by Prepare
}

// Prepare reads the chunks of a batch whose sizes only a request tells (a
// store over HTTP) at once, whole when they are small, else only their
// sizes (Objects).
func (l *KeyLocator) Prepare(ctx context.Context, coords [][]int) {
	if l.Local || l.Refs {
		return
	}
	urls := make([]string, 0, len(coords))
	for _, c := range coords {
		v, err := l.Store.Get(ctx, l.Key(c))
		if err == nil && !v.InMemory() && v.Len < 0 && v.Off == 0 {
			urls = append(urls, v.URL)
		}
	}
	l.pre.Read(ctx, l.Env, urls, l.Expect)
}

// Locate finds the chunk at coords.
func (l *KeyLocator) Locate(ctx context.Context, coords []int) (engine.Chunk, error) {
	return l.Chunk(ctx, l.Key(coords))
}

// Chunk finds the chunk stored under key.
func (l *KeyLocator) Chunk(ctx context.Context, key string) (engine.Chunk, error) {
	v, err := l.Store.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return engine.Chunk{Missing: true}, nil
	}
	if err != nil {
		return engine.Chunk{}, err
	}
	if v.InMemory() {
		return engine.Chunk{Data: v.Data}, nil
	}
	if v.Len < 0 && v.Off == 0 {
		if c, ok := l.pre.Take(v.URL); ok {
			return c, nil
		}
	}
	if l.Local && !store.IsURL(v.URL) && v.Len >= 0 {
		return engine.Chunk{Src: l.Env.Pool.PerRead(v.URL), Off: v.Off, Len: v.Len}, nil
	}
	src, err := l.Env.Pool.Open(ctx, v.URL)
	if err != nil {
		return engine.Chunk{}, err
	}
	n := v.Len
	if n < 0 {
		size, err := src.Size(ctx)
		if !l.Refs && NotFound(err) {
			return engine.Chunk{Missing: true}, nil // a chunk never written
		}
		if err != nil {
			return engine.Chunk{}, err
		}
		n = size - v.Off
	}
	return engine.Chunk{Src: src, Off: v.Off, Len: n}, nil
}

// ChunkSize is the stored size of a chunk as the store gives it without
// reading it (engine.Sizer): a ref's length, a local file's size; unknown
// for a remote object.
func (l *KeyLocator) ChunkSize(ctx context.Context, coords []int) (int64, bool, error) {
	return ValueSize(l.Store.Get(ctx, l.Key(coords)))
}
