package h5

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/lindigo/lindi/internal/driver"
)

// Object is a group or a dataset.
type Object interface {
	// Name is the last component of the object's path ("/" for the root group).
	Name() string
	// Path is the absolute path at which the object is stored ("/a/b").
	Path() string
	// Attrs returns the object's attributes.
	Attrs() Attrs
	// File is the file the object belongs to.
	File() *File
}

// LinkKind tells what a link in a group points at.
type LinkKind int

// The kinds of link.
const (
	HardLink     LinkKind = iota // the member itself
	SoftLink                     // a path in the same file
	ExternalLink                 // a path in another file
)

// String returns "hard", "soft" or "external".
func (k LinkKind) String() string {
	switch k {
	case HardLink:
		return "hard"
	case SoftLink:
		return "soft"
	case ExternalLink:
		return "external"
	}
	return fmt.Sprintf("LinkKind(%d)", int(k))
}

// Link is one member of a group.
type Link struct {
	Name string
	Kind LinkKind
	// Target is the path a soft link points at; for an external link, the path
	// inside File.
	Target string
	// File is the file an external link points into.
	File string
}

// Group is a group of an HDF5-like hierarchy: named links to groups and datasets.
type Group struct {
	f     *File
	path  string
	attrs Attrs

	// finder looks up members not in links, for a store that cannot be listed.
	finder driver.Finder

	mu    sync.RWMutex      // guards links and hard, which grow in a lazy file
	links []Link            // sorted by name
	hard  map[string]Object // targets of the hard links
}

// Name is the last component of the group's path ("/" for the root group).
func (g *Group) Name() string { return baseName(g.path) }

// Path is the group's absolute path.
func (g *Group) Path() string { return g.path }

// Attrs returns the group's attributes.
func (g *Group) Attrs() Attrs { return g.attrs }

// File is the file the group belongs to.
func (g *Group) File() *File { return g.f }

// Members returns the names of the group's links, sorted. For a Zarr store
// served over HTTP without consolidated metadata (.zmetadata), which cannot be
// listed, it holds only the members looked up so far.
func (g *Group) Members() []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	names := make([]string, len(g.links))
	for i, l := range g.links {
		names[i] = l.Name
	}
	return names
}

// Links returns the group's links, sorted by name. The slice is a copy.
func (g *Group) Links() []Link {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return append([]Link(nil), g.links...)
}

// Link returns the link called name.
func (g *Group) Link(name string) (Link, bool) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.link(name)
}

func (g *Group) link(name string) (Link, bool) {
	i := sort.Search(len(g.links), func(i int) bool { return g.links[i].Name >= name })
	if i < len(g.links) && g.links[i].Name == name {
		return g.links[i], true
	}
	return Link{}, false
}

// Get returns the object at path, relative to g unless it starts with "/";
// soft links are followed at every step. Open has read the tree, so Get does
// no I/O, except in a Zarr store served over HTTP without consolidated
// metadata (.zmetadata), which cannot be listed: there Get looks the members
// up as it goes, and ctx bounds those requests.
func (g *Group) Get(ctx context.Context, path string) (Object, error) {
	return g.f.lookup(ctx, g, path, 0)
}

// Group returns the group at path (see Get).
func (g *Group) Group(ctx context.Context, path string) (*Group, error) {
	o, err := g.Get(ctx, path)
	if err != nil {
		return nil, err
	}
	sub, ok := o.(*Group)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotGroup, o.Path())
	}
	return sub, nil
}

// Dataset returns the dataset at path (see Get).
func (g *Group) Dataset(ctx context.Context, path string) (*Dataset, error) {
	o, err := g.Get(ctx, path)
	if err != nil {
		return nil, err
	}
	d, ok := o.(*Dataset)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotDataset, o.Path())
	}
	return d, nil
}

// WalkFunc is called by Walk for each link below a group: path is the link's
// absolute path, obj the object it leads to (nil when the link cannot be
// followed, with err saying why). Returning a non-nil error stops the walk;
// returning SkipGroup skips the members of a group.
type WalkFunc func(path string, link Link, obj Object, err error) error

// SkipGroup is returned by a WalkFunc to skip the members of the group just visited.
var SkipGroup = errors.New("h5: skip this group")

// Walk calls fn for every link below g, depth first, in name order. Soft links
// are reported with the object they lead to but not descended into, so every
// object is visited once through its hard link; external links are reported
// without opening their file (obj and err nil), as h5py's visititems does. ctx bounds the lookups of
// soft links (see Get).
func (g *Group) Walk(ctx context.Context, fn WalkFunc) error {
	for _, l := range g.Links() {
		p := joinPath(g.path, l.Name)
		var obj Object
		var err error
		switch l.Kind {
		case HardLink:
			obj = g.target(l.Name)
		case SoftLink:
			obj, err = g.f.lookup(ctx, g, l.Name, 0)
		}
		werr := fn(p, l, obj, err)
		if errors.Is(werr, SkipGroup) {
			continue
		}
		if werr != nil {
			return werr
		}
		if sub, ok := obj.(*Group); ok && l.Kind == HardLink {
			if err := sub.Walk(ctx, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxHops bounds how many soft links one lookup may follow.
const maxHops = 40

// lookup resolves path from group start, following soft links; hops counts
// the soft links followed so far.
func (f *File) lookup(ctx context.Context, start *Group, path string, hops int) (Object, error) {
	cur := Object(start)
	if strings.HasPrefix(path, "/") {
		cur = f.root
	}
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || seg == "." {
			continue
		}
		g, ok := cur.(*Group)
		if !ok {
			return nil, fmt.Errorf("%w: %s in path %q", ErrNotGroup, cur.Path(), path)
		}
		l, ok, err := g.find(ctx, seg)
		if err != nil {
			return nil, fmt.Errorf("h5: %q: %w", path, err)
		}
		if !ok {
			return nil, fmt.Errorf("%w: %q: no member %q in %s", ErrNotFound, path, seg, g.path)
		}
		switch l.Kind {
		case HardLink:
			cur = g.target(seg)
		case SoftLink:
			if hops >= maxHops {
				return nil, fmt.Errorf("%w: %q: more than %d soft links", ErrLinkCycle, path, maxHops)
			}
			next, err := f.lookup(ctx, g, l.Target, hops+1)
			if err != nil {
				return nil, fmt.Errorf("h5: soft link %s → %s: %w", joinPath(g.path, seg), l.Target, err)
			}
			cur = next
		case ExternalLink:
			next, err := f.followExternal(ctx, g, l, hops)
			if err != nil {
				return nil, fmt.Errorf("h5: external link %s → %s:%s: %w: %w", joinPath(g.path, seg), l.File, l.Target, ErrExternalLink, err)
			}
			cur = next
		}
	}
	return cur, nil
}

// find returns the link called name, looking it up in the store when the
// group cannot be listed.
func (g *Group) find(ctx context.Context, name string) (Link, bool, error) {
	if l, ok := g.Link(name); ok || g.finder == nil {
		return l, ok, nil
	}
	dl, ok, err := g.finder.Find(ctx, g.path, name)
	if err != nil || !ok {
		return Link{}, false, err
	}
	l, o := newTree(g.f).link(dl, joinPath(g.path, name))
	g.add(l, o)
	return l, true, nil
}

// target returns the object a hard link leads to.
func (g *Group) target(name string) Object {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.hard[name]
}

// add inserts a link, keeping the links sorted; o is the target of a hard link.
func (g *Group) add(l Link, o Object) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.link(l.Name); ok {
		return // found by a concurrent lookup
	}
	i := sort.Search(len(g.links), func(i int) bool { return g.links[i].Name >= l.Name })
	g.links = slices.Insert(g.links, i, l)
	if l.Kind == HardLink {
		g.hard[l.Name] = o
	}
}

func joinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func baseName(p string) string {
	if p == "/" {
		return "/"
	}
	return p[strings.LastIndexByte(p, '/')+1:]
}
