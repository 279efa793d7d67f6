package zarr3

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

// maxDepth bounds the nesting of groups, against hostile stores.
const maxDepth = 256

// tree builds the hierarchy of a store.
type tree struct {
	env  *driver.Env
	st   store.Store
	dir  bool   // a local directory: chunks are files of their own
	root string // the store's directory or base URL
	// refs is set for a reference document (zarrshadow's): its values are
	// in memory or byte ranges of other files, and it can be listed.
	refs *store.LINDI
}

// meta reads the metadata document at key; an absent one is an error
// wrapping store.ErrNotFound.
func (t *tree) meta(ctx context.Context, key string) ([]byte, error) {
	v, err := t.st.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	limit := t.env.MetadataLimit()
	if t.refs != nil {
		b, err := t.refValue(ctx, v, limit)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", t.st.Name(), key, err)
		}
		return b, nil
	}
	if t.dir {
		if v.Len > limit {
			return nil, fmt.Errorf("%s: %w: %d bytes is more than the metadata limit of %d (h5.WithMaxMetadataBytes)", v.URL, driver.ErrFormat, v.Len, limit)
		}
		return readAll(ctx, t.env.Pool.PerRead(v.URL), limit)
	}
	src, err := t.env.Pool.Open(ctx, v.URL)
	if err != nil {
		return nil, err
	}
	b, err := readAll(ctx, src, limit)
	if driver.NotFound(err) {
		return nil, fmt.Errorf("%w: %w", store.ErrNotFound, err)
	}
	return b, err
}

// firstRead is how much of a remote document of unknown size the first
// request asks for; its answer tells the size of a longer one.
const firstRead = 1 << 20

// readAll reads the whole remote object src, of at most limit bytes.
func readAll(ctx context.Context, src source.Source, limit int64) ([]byte, error) {
	return driver.ReadRemote(ctx, src, 0, firstRead, limit)
}

// node reads and parses the zarr.json at key ("" for the root).
func (t *tree) node(ctx context.Context, key string) (*zarrmeta.V3Node, error) {
	mk := driver.JoinKey(key, metaName)
	b, err := t.meta(ctx, mk)
	if err != nil {
		return nil, err
	}
	n, err := zarrmeta.ParseV3(b)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w: %w", t.st.Name(), mk, driver.ErrFormat, err)
	}
	return n, nil
}

// group builds the group at key from its parsed document: in a directory
// with its members read now, over HTTP (which cannot list) with a Finder
// that reads members as paths name them.
func (t *tree) group(ctx context.Context, key, path string, n *zarrmeta.V3Node, depth int) (*driver.Group, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: %w: groups nested more than %d deep", path, driver.ErrFormat, maxDepth)
	}
	g := &driver.Group{Attrs: attrs(n.Attributes)}
	if path == "/" {
		specLoc(g.Attrs)
	}
	var names []string
	var err error
	if r, ok := t.st.(*store.Remote); ok && t.refs == nil && !t.dir {
		if err := r.CheckList(ctx); err != nil {
			return nil, err
		}
	}
	switch {
	case t.refs != nil:
		names, err = t.refNames(ctx, key)
	case t.dir:
		names, err = t.list(key)
	case t.listable():
		names, err = t.st.List(ctx, key)
	default:
		// The members are found path by path; the links are known.
		g.Finder = t
		why := "its server is not S3, which lists"
		if r, ok := t.st.(*store.Remote); ok && r.ListError() != nil {
			why = fmt.Sprintf("listing it on S3 failed (%v)", r.ListError())
		}
		g.Unlisted = fmt.Errorf("the Zarr store %s %w: its zarr.json has no consolidated metadata, and %s", t.st.Name(), store.ErrNotListable, why)
		return g, t.addLinks(g, n.Attributes, path)
	}
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		l, err := t.child(ctx, key, path, name, depth)
		if errors.Is(err, store.ErrNotFound) && t.listable() {
			continue // a prefix listed on S3 that is no node
		}
		if err != nil {
			return nil, err
		}
		g.Links = append(g.Links, l)
	}
	return g, t.addLinks(g, n.Attributes, path)
}

// listable reports whether the store is a remote one that can be listed
// (on S3).
func (t *tree) listable() bool {
	r, ok := t.st.(*store.Remote)
	return ok && r.Listable()
}

// list returns the sorted subdirectories of the directory at key holding a
// zarr.json.
func (t *tree) list(key string) ([]string, error) {
	dir := filepath.Join(t.root, filepath.FromSlash(key))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("zarr3: %w", err)
	}
	var names []string
	for _, e := range entries {
		st, err := os.Stat(filepath.Join(dir, e.Name(), metaName))
		if err == nil && st.Mode().IsRegular() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// child reads the member name of the group at key.
func (t *tree) child(ctx context.Context, key, path, name string, depth int) (driver.Link, error) {
	ck, cp := driver.JoinKey(key, name), driver.JoinPath(path, name)
	n, err := t.node(ctx, ck)
	if err != nil {
		return driver.Link{}, err
	}
	if n.Array != nil {
		return driver.Link{Name: name, Node: t.dataset(ck, cp, n)}, nil
	}
	g, err := t.group(ctx, ck, cp, n, depth+1)
	return driver.Link{Name: name, Node: g}, err
}

// Find looks up the member name of the group at path in a store that cannot
// be listed: one zarr.json read.
func (t *tree) Find(ctx context.Context, path, name string) (driver.Link, bool, error) {
	if name == "" || strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return driver.Link{}, false, nil
	}
	key := strings.TrimPrefix(path, "/")
	l, err := t.child(ctx, key, path, name, strings.Count(path, "/"))
	if errors.Is(err, store.ErrNotFound) {
		return driver.Link{}, false, nil
	}
	return l, err == nil, err
}

// consolidated builds the whole tree from the root's consolidated metadata,
// with no further read.
func (t *tree) consolidated(root *zarrmeta.V3Node) (*driver.Group, error) {
	paths := make([]string, 0, len(root.Consolidated))
	for p := range root.Consolidated {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		di, dj := strings.Count(paths[i], "/"), strings.Count(paths[j], "/")
		if di != dj {
			return di < dj
		}
		return paths[i] < paths[j]
	})
	groups := map[string]*driver.Group{"": {Attrs: attrs(root.Attributes)}}
	specLoc(groups[""].Attrs)
	attrsOf := map[string]map[string]any{"": root.Attributes}
	for _, p := range paths {
		if strings.Count(p, "/") > maxDepth {
			return nil, fmt.Errorf("%s: %w: groups nested more than %d deep", p, driver.ErrFormat, maxDepth)
		}
		if err := checkName(p); err != nil {
			return nil, err
		}
		parent, name := "", p
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			parent, name = p[:i], p[i+1:]
		}
		pg, ok := groups[parent]
		if !ok {
			return nil, fmt.Errorf("%s/%s: %w: consolidated metadata has %q but not its group %q", t.st.Name(), metaName, driver.ErrFormat, p, parent)
		}
		n := root.Consolidated[p]
		var node driver.Node
		if n.Array != nil {
			node = t.dataset(p, "/"+p, n)
		} else {
			g := &driver.Group{Attrs: attrs(n.Attributes)}
			groups[p], attrsOf[p] = g, n.Attributes
			node = g
		}
		pg.Links = append(pg.Links, driver.Link{Name: name, Node: node})
	}
	for p, g := range groups {
		if err := t.addLinks(g, attrsOf[p], "/"+p); err != nil {
			return nil, err
		}
	}
	return groups[""], nil
}

// checkName refuses consolidated paths with empty, "." or ".." segments.
func checkName(p string) error {
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w: consolidated metadata path %q", driver.ErrFormat, p)
		}
	}
	return nil
}
