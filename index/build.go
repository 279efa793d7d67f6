package index

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/lindigo/lindi/hdf5"
)

// Version is the version of this package's output, recorded in
// generationMetadata.
const Version = "0.1.0"

// maxDepth bounds the nesting of groups, against hard-link cycles.
const maxDepth = 256

// Build returns the LINDI JSON document of the HDF5 file f. Its refs name the
// file by the URL set with WithURL, or else by f.Name(), made absolute when
// it is a local path (a relative one would be resolved against whatever
// directory a reader runs in).
func Build(ctx context.Context, f *hdf5.File, opts ...Option) ([]byte, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.url == "" && f.Name() != "" {
		if o.url, err = refName(f.Name(), "", false); err != nil {
			return nil, err
		}
	}
	b := &builder{f: f, o: o, refs: map[string]any{}, ids: map[string]any{},
		files: &sourceFiles{custom: o.files, opts: o.source, files: map[string]*hdf5.File{}}}
	defer b.files.close()
	if b.rootID, err = b.objectID(ctx, "/"); err != nil {
		return nil, err
	}
	eg, gctx := errgroup.WithContext(ctx)
	eg.SetLimit(o.concurrency)
	b.eg = eg
	if err := b.group(gctx, f.Root(), "", nil); err != nil {
		eg.Wait()
		return nil, err
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return b.encode()
}

// builder collects the refs of one file. Datasets are indexed on the
// errgroup's goroutines; refs and ids are guarded by mu.
type builder struct {
	f      *hdf5.File
	o      *options
	files  *sourceFiles // the files virtual datasets name
	eg     *errgroup.Group
	rootID any

	mu   sync.Mutex
	refs map[string]any
	ids  map[string]any // object path → its object_id attribute (nil when none)
}

func (b *builder) put(key string, v any) {
	b.mu.Lock()
	b.refs[key] = v
	b.mu.Unlock()
}

// spawn runs fn on the errgroup when a slot is free, else at once: a walk
// that waits for a slot while holding one could deadlock.
func (b *builder) spawn(ctx context.Context, fn func(context.Context) error) error {
	if b.eg.TryGo(func() error { return fn(ctx) }) {
		return nil
	}
	return fn(ctx)
}

// group indexes a group and, concurrently, its members. ancestors holds the
// addresses of the groups above, against hard-link cycles.
func (b *builder) group(ctx context.Context, g *hdf5.Group, key string, ancestors []uint64) error {
	if len(ancestors) > maxDepth {
		return fmt.Errorf("index: %s: groups nested more than %d deep", g.Path(), maxDepth)
	}
	attrs, err := b.attrs(ctx, g)
	if err != nil {
		return err
	}
	if len(attrs) > 0 {
		b.put(join(key, ".zattrs"), attrs)
	}
	b.put(join(key, ".zgroup"), zgroup)
	links, err := g.Members(ctx)
	if err != nil {
		return fmt.Errorf("index: %s: %w", g.Path(), err)
	}
	ancestors = append(ancestors[:len(ancestors):len(ancestors)], g.Addr())
	for _, l := range links {
		if err := b.member(ctx, g, l, join(key, l.Name), ancestors); err != nil {
			return err
		}
	}
	return nil
}

var zgroup = map[string]any{"zarr_format": 2}

func (b *builder) member(ctx context.Context, g *hdf5.Group, l hdf5.Link, key string, ancestors []uint64) error {
	switch l.Type {
	case hdf5.LinkSoft:
		// As lindi: a group holding only the link; the target is indexed where it lives.
		b.put(key+"/.zattrs", map[string]any{"_SOFT_LINK": map[string]any{"path": l.Target}})
		b.put(key+"/.zgroup", zgroup)
		return nil
	case hdf5.LinkHard:
	default:
		return nil // external and user-defined links have no LINDI form
	}
	for _, a := range ancestors {
		if a == l.Addr {
			return fmt.Errorf("index: %s/%s: a hard link back to a group above it", g.Path(), l.Name)
		}
	}
	return b.spawn(ctx, func(ctx context.Context) error {
		obj, err := g.Lookup(ctx, l.Name)
		if err != nil {
			return fmt.Errorf("index: %w", err)
		}
		switch obj := obj.(type) {
		case *hdf5.Group:
			return b.group(ctx, obj, key, ancestors)
		case *hdf5.Dataset:
			return b.dataset(ctx, obj, key)
		case *hdf5.NamedType:
			return b.datatype(ctx, obj, key)
		}
		return nil
	})
}

// objectID returns the object_id attribute of the object at path, or nil.
func (b *builder) objectID(ctx context.Context, path string) (any, error) {
	b.mu.Lock()
	id, ok := b.ids[path]
	b.mu.Unlock()
	if ok {
		return id, nil
	}
	obj, err := b.f.Lookup(ctx, path)
	if err != nil {
		return nil, nil // a dangling reference: lindi's h5py would fail; the path still reads
	}
	attrs, err := obj.Attrs(ctx)
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", path, err)
	}
	for _, a := range attrs {
		if s, ok := a.Value.(string); ok && a.Name == "object_id" {
			id = s
		}
	}
	b.mu.Lock()
	b.ids[path] = id
	b.mu.Unlock()
	return id, nil
}

// encode writes the document as lindi does (json.dump with indent=2 and
// sorted keys), with URLs named 5 or more times replaced by templates.
func (b *builder) encode() ([]byte, error) {
	doc := map[string]any{
		"version": 1,
		"refs":    b.refs,
		"generationMetadata": map[string]any{
			"generatedBy":        b.o.tool,
			"generatedByVersion": Version,
			"sourceUrl":          b.o.url,
			"creationDate":       time.Now().UTC().Format(time.RFC3339),
		},
	}
	if t := templates(b.refs); len(t) > 0 {
		doc["templates"] = t
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return buf.Bytes(), nil
}

// templates replaces the URLs that 5 or more refs name with {{u1}}, {{u2}},
// … (in sorted order) and returns the templates.
func templates(refs map[string]any) map[string]string {
	counts := map[string]int{}
	for _, v := range refs {
		if r, ok := v.([]any); ok {
			if u, ok := r[0].(string); ok && !strings.Contains(u, "{{") {
				counts[u]++
			}
		}
	}
	var urls []string
	for u, n := range counts {
		if n >= templateMin {
			urls = append(urls, u)
		}
	}
	sort.Strings(urls)
	names := map[string]string{}
	t := map[string]string{}
	for i, u := range urls {
		name := fmt.Sprintf("u%d", i+1)
		names[u], t[name] = name, u
	}
	for _, v := range refs {
		if r, ok := v.([]any); ok {
			if u, ok := r[0].(string); ok && names[u] != "" {
				r[0] = "{{" + names[u] + "}}"
			}
		}
	}
	return t
}

func join(key, name string) string {
	if key == "" {
		return name
	}
	return key + "/" + name
}
