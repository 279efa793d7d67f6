package zarr3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
)

// zarrshadow's reference stores describe a Zarr v3 hierarchy whose metadata
// and small datasets are in a reference document and whose chunks are byte
// ranges of other files (the HDF5 file the store shadows). The document is
// a .json file (read by the LINDI JSON driver, which hands it here), or the
// refs.json of a directory (local or a URL) that also holds, under index/,
// the chunk indexes of the arrays with too many chunks to list (index.go).

// refsName is the reference document of a zarrshadow directory.
const refsName = "refs.json"

// OpenRefs reads the tree of a parsed reference document whose root is a
// Zarr v3 node: the LINDI drivers read the document (a .json file, a
// container's lindi.json) and hand it here when its root says Zarr v3.
func OpenRefs(ctx context.Context, env *driver.Env, st *store.LINDI) (*driver.Group, error) {
	t := &tree{env: env, st: st, refs: st, root: st.Name()}
	doc, err := t.meta(ctx, metaName)
	if err != nil {
		return nil, err
	}
	return t.open(ctx, doc)
}

// readRefsDir reads the refs.json of the zarrshadow directory at dir (a
// local path); absent gives an error wrapping store.ErrNotFound.
func readRefsDir(ctx context.Context, env *driver.Env, dir string) (*store.LINDI, error) {
	name := filepath.Join(dir, refsName)
	b, err := readAll(ctx, env.Pool.PerRead(name), env.MetadataLimit())
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", store.ErrNotFound, name)
	}
	if err != nil {
		return nil, err
	}
	return store.ParseLINDI(name, b)
}

// readRefsURL reads the refs.json of the zarrshadow directory at the URL
// base; absent gives an error wrapping store.ErrNotFound.
func readRefsURL(ctx context.Context, env *driver.Env, base string) (*store.LINDI, error) {
	name := base + "/" + refsName
	src, err := env.Pool.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	b, err := readAll(ctx, src, env.MetadataLimit())
	if driver.NotFound(err) {
		return nil, fmt.Errorf("%w: %w", store.ErrNotFound, err)
	}
	if err != nil {
		return nil, err
	}
	return store.ParseLINDI(name, b)
}

// refValue reads the bytes of a value located in a reference document: in
// memory, or a byte range of a file (the whole of it for Len -1), of at
// most limit bytes.
func (t *tree) refValue(ctx context.Context, v store.Value, limit int64) ([]byte, error) {
	if v.InMemory() {
		if int64(len(v.Data)) > limit {
			return nil, fmt.Errorf("%w: %d bytes is more than the metadata limit of %d (h5.WithMaxMetadataBytes)", driver.ErrFormat, len(v.Data), limit)
		}
		return v.Data, nil
	}
	src, err := t.env.Pool.Open(ctx, v.URL)
	if err != nil {
		return nil, err
	}
	if v.Len < 0 {
		return readAll(ctx, src, limit)
	}
	if v.Len > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes is more than the metadata limit of %d (h5.WithMaxMetadataBytes)", src.Name(), driver.ErrFormat, v.Len, limit)
	}
	b := make([]byte, v.Len)
	if n, err := src.ReadAt(ctx, b, v.Off); n != len(b) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: %d bytes at %d: %w", src.Name(), v.Len, v.Off, err)
	}
	return b, nil
}

// refChunk locates the chunk at key of a reference document: missing when
// the document has no such key.
func (t *tree) refChunk(ctx context.Context, key string) (engine.Chunk, error) {
	l := driver.KeyLocator{Env: t.env, Store: t.st, Refs: true}
	return l.Chunk(ctx, key)
}

// refObject opens the value at key of a reference document as a source of
// its own (a shard), with its size; nil for a key the document lacks.
func (t *tree) refObject(ctx context.Context, key string) (source.Source, int64, error) {
	c, err := t.refChunk(ctx, key)
	if err != nil || c.Missing {
		return nil, 0, err
	}
	name := t.st.Name() + ":" + key
	if c.Src == nil {
		return source.NewBytes(name, c.Data), int64(len(c.Data)), nil
	}
	s, err := source.NewSection(c.Src, c.Off, c.Len, name)
	return s, c.Len, err
}

// refNames lists the members of the group at key of a reference document:
// the keys below it that hold a zarr.json (a directory without one is not a
// Zarr v3 node).
func (t *tree) refNames(ctx context.Context, key string) ([]string, error) {
	all, err := t.st.List(ctx, key)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(all))
	for _, n := range all {
		if _, ok := t.refs.Ref(driver.JoinKey(driver.JoinKey(key, n), metaName)); ok {
			names = append(names, n)
		}
	}
	return names, nil
}
