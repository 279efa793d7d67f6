// Package zarr is the driver of Zarr-like hierarchies: LINDI JSON reference
// files and Zarr v2 stores (a directory, or a URL with or without
// consolidated metadata). Both are key spaces of package store read by the
// same tree builder and chunk locator.
package zarr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/driver/zarr3"
	"github.com/lindigo/lindi/store"
)

// LINDIDriver reads LINDI JSON files.
type LINDIDriver struct{}

func (LINDIDriver) Name() string { return "LINDI JSON" }

// Sniff says Yes to JSON: a URL ending in .json is taken on its name alone,
// which saves the round trip that reading its first bytes costs.
func (LINDIDriver) Sniff(ctx context.Context, in *driver.Input) (driver.Match, error) {
	if in.Dir || in.StoreURL() {
		return driver.No, nil
	}
	if in.JSONURL() {
		return driver.Yes, nil
	}
	head, err := in.SniffHead(ctx)
	switch {
	case err != nil:
		return driver.No, err
	case bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("{")):
		return driver.Yes, nil
	}
	return driver.No, nil
}

func (LINDIDriver) Open(ctx context.Context, env *driver.Env, in *driver.Input) (*driver.Group, error) {
	var data []byte
	var err error
	if in.Source != nil {
		data, err = readSource(ctx, env, in.Source, 0, -1, false)
	} else {
		data, err = readMeta(ctx, env, in.Name, 0, -1)
	}
	if err != nil {
		return nil, err
	}
	st, err := store.ParseLINDIAt(in.Name, in.Base, data)
	if err != nil {
		return nil, err
	}
	return OpenLINDI(ctx, env, st, false)
}

// OpenLINDI reads the tree of a parsed LINDI document: a bare .lindi.json, or
// the lindi.json of a container, whose driver reads the document and locates
// its members. fileChunks says that the refs name many small local files (the
// blobs of a .lindi.d), each to be opened for its read alone rather than kept
// open.
//
// A document whose root is a Zarr v3 node (zarr.json and no .zgroup) is
// zarrshadow's: it goes to the Zarr v3 driver. Chunk indexes belong to v3
// arrays only: a v2 tree with them would read their chunks as fill.
func OpenLINDI(ctx context.Context, env *driver.Env, st *store.LINDI, fileChunks bool) (*driver.Group, error) {
	_, v3 := st.Ref("zarr.json")
	_, v2 := st.Ref(".zgroup")
	switch {
	case v3 && !v2:
		return zarr3.OpenRefs(ctx, env, st)
	case st.ChunkIndexes() != nil:
		return nil, fmt.Errorf("%s: %w: \"indexes\" in a document whose root is not a Zarr v3 group (no zarr.json)", st.Name(), driver.ErrFormat)
	}
	t := &tree{env: env, st: st, lindi: st, dir: fileChunks}
	root, err := t.root(ctx)
	if err != nil {
		return nil, err
	}
	root.Document = st.Absolute
	return root, nil
}

// Driver reads Zarr v2 stores: a local directory, or a URL (the last
// resort when the URL names no file).
type Driver struct{}

func (Driver) Name() string { return "Zarr v2" }

// Sniff says Yes to a directory holding .zgroup and Maybe to any other
// directory or URL.
func (Driver) Sniff(_ context.Context, in *driver.Input) (driver.Match, error) {
	switch {
	case in.Dir:
		if st, err := os.Stat(filepath.Join(in.Name, ".zgroup")); err == nil && st.Mode().IsRegular() {
			return driver.Yes, nil
		}
		return driver.Maybe, nil
	case in.URL:
		return driver.Maybe, nil
	}
	return driver.No, nil
}

func (Driver) Open(ctx context.Context, env *driver.Env, in *driver.Input) (*driver.Group, error) {
	if in.Dir {
		var opts []store.DirOption
		if env.FollowOutside {
			opts = append(opts, store.FollowOutside())
		}
		st, err := store.OpenDir(in.Name, opts...)
		if err != nil {
			return nil, err
		}
		t := &tree{env: env, st: st, dir: true, name: in.Name}
		if err := t.checkGroup(ctx, "a directory that is not a Zarr group (no .zgroup)"); err != nil {
			return nil, err
		}
		return t.root(ctx)
	}
	// A Zarr store over HTTP, with its consolidated metadata when it has .zmetadata.
	base := strings.TrimRight(in.Name, "/")
	// The root's .zgroup and .zattrs are read with .zmetadata, at once: a
	// store without consolidated metadata needs them next, one with it
	// lost two small requests, no round trip.
	pre := map[string]prefetched{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, key := range []string{".zgroup", ".zattrs"} {
		wg.Go(func() {
			b, err := readMeta(ctx, env, base+"/"+key, 0, -1)
			if err != nil && driver.NotFound(err) {
				err = fmt.Errorf("%w: %w", store.ErrNotFound, err)
			}
			mu.Lock()
			pre[key] = prefetched{b, err}
			mu.Unlock()
		})
	}
	consolidated, err := readMeta(ctx, env, base+"/.zmetadata", 0, -1)
	wg.Wait()
	if err != nil && !driver.NotFound(err) {
		return nil, err
	}
	st, err := store.NewRemote(base, consolidated)
	if err != nil {
		return nil, err
	}
	if err := st.WithLister(env.Pool).CheckList(ctx); err != nil {
		return nil, err
	}
	t := &tree{env: env, st: st, name: in.Name}
	if consolidated == nil {
		t.pre = pre
	}
	if err := t.checkGroup(ctx, fmt.Sprintf("not a LINDI JSON file, an HDF5 file or a Zarr group (no %s/.zgroup)", base)); err != nil {
		return nil, err
	}
	t.lazy = !st.Listable()
	t.listed = st.Listable() && !st.Consolidated()
	return t.root(ctx)
}

// checkGroup fails with ErrNotMine, saying why, when the store has no root .zgroup.
func (t *tree) checkGroup(ctx context.Context, why string) error {
	_, err := t.meta(ctx, ".zgroup")
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %s", driver.ErrNotMine, why)
	}
	return err
}
