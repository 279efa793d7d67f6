// Package zarr3 is the driver of Zarr v3 stores: a local directory or a URL,
// with or without consolidated metadata in the root zarr.json, arrays
// sharded (sharding_indexed) or not. It locates keys through package store
// (its directory and HTTP key spaces) and reads chunks through the engine.
//
// In a sharded array the engine's chunks are the inner chunks: the locator
// reads a shard's index on the first use of the shard (one read, shared by
// concurrent locates, kept; checked against its crc32c and the shard's
// size) and gives each inner chunk's byte range within the shard file, so
// that the fetcher coalesces neighbouring inner chunks into one request. A
// missing shard, and an index entry of 2^64-1, are fill. An index costs
// one request over HTTP, at the start of a shard or at its end (a suffix
// range, whose answer tells the shard's size too), in one round for all the
// shards a read touches: the locator is an engine.Preparer, reading the
// indexes of a batch's shards at once before its chunks are located. Sharding may nest (up to 8 levels): an inner
// chunk that is itself a shard has its index read, within the outer shard's
// file, on first use (one more round).
//
// The unified Zarr v3 convention of hdmf-zarr ≥ 0.14 and zarrshadow is read
// too: _LINKS, _REFERENCE attribute values, _DTYPE "object_reference"
// datasets and struct arrays with _REFERENCE_FIELDS (see convention.go). A
// store whose root is an array reads as a root group holding it as "data".
//
// zarrshadow's reference stores, a Zarr v3 hierarchy in a kerchunk-style
// document whose chunks are byte ranges of the HDF5 file it shadows, read
// through the same tree (refs.go), their chunk-index arrays block by block
// (index.go).
package zarr3

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

// metaName is the metadata document of every Zarr v3 node.
const metaName = "zarr.json"

// Driver reads Zarr v3 stores and zarrshadow's reference stores.
type Driver struct{}

func (Driver) Name() string { return "Zarr v3" }

// Sniff says Yes to a directory holding zarr.json (or zarrshadow's
// refs.json) and Maybe to a URL (whose
// zarr.json Open asks for: HTTP has no directory to look into).
func (Driver) Sniff(_ context.Context, in *driver.Input) (driver.Match, error) {
	switch {
	case in.Dir:
		for _, name := range []string{metaName, refsName} {
			if st, err := os.Stat(filepath.Join(in.Name, name)); err == nil && st.Mode().IsRegular() {
				return driver.Yes, nil
			}
		}
	case in.URL:
		return driver.Maybe, nil
	}
	return driver.No, nil
}

func (Driver) Open(ctx context.Context, env *driver.Env, in *driver.Input) (*driver.Group, error) {
	t := &tree{env: env}
	// The root's zarr.json, and zarrshadow's refs.json (a reference store
	// whose directory has no zarr.json): in a directory the second is read
	// only when the first is absent; over HTTP both are asked for at once,
	// in one round trip, unless the URL names a Zarr store (….zarr).
	var doc []byte
	var err error
	var refs func() (*store.LINDI, error)
	if in.Dir {
		var opts []store.DirOption
		if env.FollowOutside {
			opts = append(opts, store.FollowOutside())
		}
		st, serr := store.OpenDir(in.Name, opts...)
		if serr != nil {
			return nil, serr
		}
		t.st, t.dir, t.root = st, true, st.Name()
		doc, err = t.meta(ctx, metaName)
		refs = func() (*store.LINDI, error) { return readRefsDir(ctx, env, in.Name) }
	} else {
		base := strings.TrimRight(in.Name, "/")
		base = strings.TrimSuffix(base, "/"+metaName)
		base = strings.TrimSuffix(base, "/"+refsName)
		st, serr := store.NewRemote(base, nil)
		if serr != nil {
			return nil, serr
		}
		t.st, t.root = st.WithLister(env.Pool), base
		if !in.StoreURL() {
			var r *store.LINDI
			var rerr error
			var wg sync.WaitGroup
			wg.Go(func() { r, rerr = readRefsURL(ctx, env, base) })
			doc, err = t.meta(ctx, metaName)
			wg.Wait()
			refs = func() (*store.LINDI, error) { return r, rerr }
		} else {
			doc, err = t.meta(ctx, metaName)
		}
	}
	if errors.Is(err, store.ErrNotFound) && refs != nil {
		r, rerr := refs()
		if rerr == nil {
			return OpenRefs(ctx, env, r)
		}
		if !errors.Is(rerr, store.ErrNotFound) {
			return nil, rerr
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: no %s/%s", driver.ErrNotMine, t.st.Name(), metaName)
	}
	if err != nil {
		return nil, err
	}
	return t.open(ctx, doc)
}

// open builds the tree whose root's zarr.json is doc.
func (t *tree) open(ctx context.Context, doc []byte) (*driver.Group, error) {
	n, err := zarrmeta.ParseV3(doc)
	if err != nil {
		if !strings.Contains(string(doc), `"zarr_format"`) {
			return nil, fmt.Errorf("%w: %s/%s: %w", driver.ErrNotMine, t.st.Name(), metaName, err)
		}
		return nil, fmt.Errorf("%s/%s: %w: %w", t.st.Name(), metaName, driver.ErrFormat, err)
	}
	if n.Array != nil {
		// A store whose root is an array: the file is a group holding it
		// as "data" (h5 files are rooted in a group).
		d := t.dataset("", "/", n)
		return &driver.Group{Attrs: map[string]any{}, Links: []driver.Link{{Name: "data", Node: d}}}, nil
	}
	if n.Consolidated != nil {
		return t.consolidated(n)
	}
	return t.group(ctx, "", "/", n, 0)
}
