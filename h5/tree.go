package h5

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

// maxDepth bounds the nesting of groups, against hostile stores.
const maxDepth = 256

// buildTree reads the hierarchy of a Zarr-like store (LINDI JSON or Zarr v2).
func (f *File) buildTree(ctx context.Context, st store.Store) error {
	f.st = st
	attrs, err := f.zattrs(ctx, "")
	if err != nil {
		return err
	}
	root, err := f.zarrGroup(ctx, "", "/", attrs, 0)
	if err != nil {
		return err
	}
	f.root = root
	return nil
}

func (f *File) zarrGroup(ctx context.Context, key, path string, za zarrmeta.Attrs, depth int) (*Group, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: %w: groups nested more than %d deep", path, ErrFormat, maxDepth)
	}
	attrs, err := userAttrs(za)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	g := &Group{f: f, path: path, attrs: attrs, hard: map[string]Object{}}
	names, err := f.st.List(ctx, key)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		l, o, err := f.zarrChild(ctx, key, path, name, depth)
		if err != nil {
			return nil, err
		}
		g.add(l, o)
	}
	return g, nil
}

func (g *Group) addHard(name string, o Object) {
	g.add(Link{Name: name, Kind: HardLink}, o)
}

// zarrChild reads the member name of the group at key: a dataset, a group or a
// soft link. A member with no metadata at all is ErrNotFound.
func (f *File) zarrChild(ctx context.Context, key, path, name string, depth int) (Link, Object, error) {
	childKey, childPath := joinKey(key, name), joinPath(path, name)
	ca, err := f.zattrs(ctx, childKey)
	if err != nil {
		return Link{}, nil, err
	}
	zarray, err := f.meta(ctx, childKey+"/.zarray")
	switch {
	case err == nil:
		d, err := f.zarrDataset(ctx, childKey, childPath, zarray, ca)
		return Link{Name: name, Kind: HardLink}, d, err
	case !errors.Is(err, store.ErrNotFound):
		return Link{}, nil, err
	}
	if target, ok := ca.SoftLink(); ok {
		return Link{Name: name, Kind: SoftLink, Target: target}, nil, nil
	}
	if f.lazy {
		if _, err := f.meta(ctx, childKey+"/.zgroup"); err != nil {
			return Link{}, nil, err
		}
	}
	sub, err := f.zarrGroup(ctx, childKey, childPath, ca, depth+1)
	return Link{Name: name, Kind: HardLink}, sub, err
}

// probeTimeout bounds the requests that look up a member of a lazy group.
const probeTimeout = 2 * time.Minute

// probe looks up the member name of a group of a store that cannot be listed.
// Lookups take no context, so this one is bounded by probeTimeout.
func (f *File) probe(g *Group, name string) (Link, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	key := strings.TrimPrefix(g.path, "/")
	l, o, err := f.zarrChild(ctx, key, g.path, name, strings.Count(g.path, "/"))
	if errors.Is(err, store.ErrNotFound) {
		return Link{}, false, nil
	}
	if err != nil {
		return Link{}, false, err
	}
	g.add(l, o)
	return l, true, nil
}

// zattrs reads the .zattrs of key; a node without one has no attributes.
func (f *File) zattrs(ctx context.Context, key string) (zarrmeta.Attrs, error) {
	b, err := f.meta(ctx, joinKey(key, ".zattrs"))
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
func (f *File) meta(ctx context.Context, key string) ([]byte, error) {
	b, err := f.metaBytes(ctx, key)
	if err != nil && notFound(err) && !errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", store.ErrNotFound, err)
	}
	return b, err
}

func (f *File) metaBytes(ctx context.Context, key string) ([]byte, error) {
	v, err := f.st.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	if v.InMemory() {
		return v.Data, nil
	}
	return f.readMeta(ctx, v.URL, v.Off, v.Len)
}

// userAttrs converts the user attributes of a .zattrs document.
func userAttrs(za zarrmeta.Attrs) (Attrs, error) {
	vals := make(map[string]any, za.Len())
	for _, name := range za.Names() {
		v, _ := za.Get(name)
		x, err := fromJSON(v)
		if err != nil {
			return Attrs{}, fmt.Errorf("attribute %q: %w", name, err)
		}
		vals[name] = x
	}
	return newAttrs(vals), nil
}

// fromJSON turns decoded JSON into the documented values: LINDI's
// {"_REFERENCE": …} objects into References and json.Numbers into int64,
// uint64 or float64, recursively.
func fromJSON(v any) (any, error) {
	if n, ok := v.(json.Number); ok {
		return number(n)
	}
	r, ok, err := zarrmeta.AsReference(v)
	if err != nil {
		return nil, err
	}
	if ok {
		return Reference{Path: r.Path}, nil
	}
	if list, ok := v.([]any); ok {
		for i := range list {
			if list[i], err = fromJSON(list[i]); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

func joinKey(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// number converts a JSON number: int64 or uint64 for an integer literal in
// range, float64 otherwise.
func number(n json.Number) (any, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("%w: number %q: %v", ErrFormat, s, err)
	}
	return f, nil
}
