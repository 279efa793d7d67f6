package zarr

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

// maxDepth bounds the nesting of groups, against hostile stores.
const maxDepth = 256

// tree builds the hierarchy of a store.
type tree struct {
	env *driver.Env
	st  store.Store
	// lindi is the store of a LINDI JSON file (which may hold external links
	// and pads short raw chunks); nil for a Zarr store.
	lindi *store.LINDI
	// dir is set for a Zarr directory or a .lindi.d, whose chunks are files
	// of their own.
	dir bool
	// lazy is set for a store that cannot be listed (a Zarr store over HTTP
	// without .zmetadata): groups learn their members as paths are looked up.
	lazy bool
	// listed is set for a store listed on S3: the prefixes under a group
	// need not be nodes.
	listed bool
	// name is the store's local path or URL, against which hdmf-zarr links
	// to other stores resolve; "" for a LINDI file.
	name string
	// pre holds metadata documents read ahead (a remote store's root
	// .zgroup and .zattrs, read with its .zmetadata), by key.
	pre map[string]prefetched
}

// prefetched is a metadata document read ahead, or why it could not be.
type prefetched struct {
	b   []byte
	err error
}

func (t *tree) root(ctx context.Context) (*driver.Group, error) {
	attrs, err := t.zattrs(ctx, "")
	if err != nil {
		return nil, err
	}
	return t.group(ctx, "", "/", attrs, 0)
}

func (t *tree) group(ctx context.Context, key, path string, za zarrmeta.Attrs, depth int) (*driver.Group, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: %w: groups nested more than %d deep", path, driver.ErrFormat, maxDepth)
	}
	attrs, err := t.attrs(za, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	links, err := t.zarrLinks(za, path)
	if err != nil {
		// The group's links cannot be read: the error is shown as its
		// zarr_link attribute's, and the rest of the store reads.
		attrs[attrZarrLink], links = err, nil
	}
	g := &driver.Group{Attrs: attrs}
	var names []string
	if t.lazy {
		g.Finder = t
		g.Unlisted = fmt.Errorf("the Zarr store %s %w: it has no consolidated metadata (%s/.zmetadata), and %s", t.st.Name(), store.ErrNotListable, t.st.Name(), whyUnlisted(t.st))
	} else if names, err = t.st.List(ctx, key); err != nil {
		return nil, err
	}
	for _, name := range names {
		l, err := t.child(ctx, key, path, name, depth)
		if t.listed && errors.Is(err, store.ErrNotFound) {
			continue // a prefix that is no node
		}
		if err != nil {
			return nil, err
		}
		g.Links = append(g.Links, l)
	}
	var clash []string
	for _, l := range links {
		if slices.ContainsFunc(g.Links, func(m driver.Link) bool { return m.Name == l.Name }) {
			clash = append(clash, l.Name) // the stored member wins
			continue
		}
		g.Links = append(g.Links, l)
	}
	if clash != nil {
		attrs[attrZarrLink] = fmt.Errorf("%s: %w: zarr_link names members that exist: %q", path, driver.ErrFormat, clash)
	}
	return g, nil
}

// child reads the member name of the group at key: a dataset, a group or a
// soft link. A member with no metadata at all is store.ErrNotFound.
func (t *tree) child(ctx context.Context, key, path, name string, depth int) (driver.Link, error) {
	childKey, childPath := driver.JoinKey(key, name), driver.JoinPath(path, name)
	ca, err := t.zattrs(ctx, childKey)
	if err != nil {
		return driver.Link{}, err
	}
	zarray, err := t.meta(ctx, childKey+"/.zarray")
	switch {
	case err == nil:
		d, err := t.dataset(childKey, childPath, zarray, ca)
		return driver.Link{Name: name, Node: d}, err
	case !errors.Is(err, store.ErrNotFound):
		return driver.Link{}, err
	}
	if target, ok := ca.SoftLink(); ok {
		return driver.Link{Name: name, Kind: driver.SoftLink, Target: target}, nil
	}
	if c, ok := ca.Datatype(); ok {
		d, err := t.datatype(ca, childPath, c)
		return driver.Link{Name: name, Node: d}, err
	}
	if t.lazy || t.listed {
		if _, err := t.meta(ctx, childKey+"/.zgroup"); err != nil {
			return driver.Link{}, err
		}
	}
	sub, err := t.group(ctx, childKey, childPath, ca, depth+1)
	return driver.Link{Name: name, Node: sub}, err
}

// whyUnlisted says why a remote store without consolidated metadata
// cannot be listed: its server is not S3, or listing it failed.
func whyUnlisted(st store.Store) string {
	if r, ok := st.(*store.Remote); ok && r.ListError() != nil {
		return fmt.Sprintf("listing it on S3 failed (%v)", r.ListError())
	}
	return "its server is not S3, which lists"
}

// datatype reads a group marked _DATATYPE: an HDF5 committed datatype, as
// lindi index writes it. Members such a group may have are not read.
func (t *tree) datatype(za zarrmeta.Attrs, path string, c zarrmeta.CommittedType) (*driver.Datatype, error) {
	attrs, err := t.attrs(za, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &driver.Datatype{Attrs: attrs, DType: c.DType, Enum: c.Enum}
	if c.Unreadable != "" {
		d.Err = fmt.Errorf("%s: no numpy dtype: %s", path, c.Unreadable)
	}
	return d, nil
}

// Find looks up the member name of the group at path in a store that cannot
// be listed.
func (t *tree) Find(ctx context.Context, path, name string) (driver.Link, bool, error) {
	key := strings.TrimPrefix(path, "/")
	l, err := t.child(ctx, key, path, name, strings.Count(path, "/"))
	if errors.Is(err, store.ErrNotFound) {
		return driver.Link{}, false, nil
	}
	return l, err == nil, err
}

// zattrs reads the .zattrs of key; a node without one has no attributes.
func (t *tree) zattrs(ctx context.Context, key string) (zarrmeta.Attrs, error) {
	b, err := t.meta(ctx, driver.JoinKey(key, ".zattrs"))
	if errors.Is(err, store.ErrNotFound) {
		return zarrmeta.Attrs{}, nil
	}
	if err != nil {
		return zarrmeta.Attrs{}, err
	}
	a, err := zarrmeta.ParseAttrs(b)
	if err != nil {
		return zarrmeta.Attrs{}, fmt.Errorf("%s/.zattrs: %w", key, err)
	}
	return a, nil
}

// meta reads the bytes of a metadata key; a key whose file or URL does not
// exist gives an error wrapping store.ErrNotFound.
func (t *tree) meta(ctx context.Context, key string) ([]byte, error) {
	b, err := t.metaBytes(ctx, key)
	if err != nil && notFound(err) && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", store.ErrNotFound, err)
	}
	return b, err
}

func (t *tree) metaBytes(ctx context.Context, key string) ([]byte, error) {
	if p, ok := t.pre[key]; ok {
		return p.b, p.err
	}
	v, err := t.st.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if v.InMemory() {
		return v.Data, nil
	}
	return readMeta(ctx, t.env, v.URL, v.Off, v.Len)
}
