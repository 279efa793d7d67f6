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
	"github.com/lindigo/lindi/internal/errpath"
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
	f    *File
	path string

	// complete, until called, holds what a lazily opened group has not
	// read yet; listing serialises the calls.
	complete func(ctx context.Context) (map[string]any, []driver.Link, error)
	listing  sync.Mutex

	mu     sync.RWMutex // guards the fields below, which change in a lazy file
	attrs  Attrs
	finder driver.Finder // looks up members not in links, for a store that cannot be listed
	// unlisted is why the members cannot be listed; nil when they can.
	unlisted error
	links    []Link                     // sorted by name
	hard     map[string]Object          // targets of the hard links, once loaded
	pending  map[string]*driver.Pending // targets of the hard links not loaded yet
}

// Name is the last component of the group's path ("/" for the root group).
func (g *Group) Name() string { return baseName(g.path) }

// Path is the group's absolute path.
func (g *Group) Path() string { return g.path }

// Attrs returns the group's attributes.
func (g *Group) Attrs() Attrs {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.attrs
}

// completed reads the attributes and links of a group opened lazily, the
// first time it is called; a group is completed before users see it.
func (g *Group) completed(ctx context.Context) error {
	g.listing.Lock()
	defer g.listing.Unlock()
	g.mu.RLock()
	complete := g.complete
	g.mu.RUnlock()
	if complete == nil {
		return nil
	}
	attrs, links, err := complete(ctx)
	if err != nil {
		return errpath.Wrap("h5: ", g.path, err)
	}
	for _, dl := range links {
		g.add(g.f.tree.link(dl, joinPath(g.path, dl.Name)))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.attrs = newAttrs(attrs)
	g.complete, g.finder = nil, nil
	return nil
}

// File is the file the group belongs to.
func (g *Group) File() *File { return g.f }

// Members returns the names of the group's links, sorted; it does no I/O.
// For a Zarr store served over plain HTTP without consolidated metadata,
// which cannot be listed (see Listed), it holds only the members looked up
// so far. In an HDF5 file it names committed datatypes too (Get returns a
// *Datatype).
func (g *Group) Members() []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	names := make([]string, len(g.links))
	for i, l := range g.links {
		names[i] = l.Name
	}
	return names
}

// Listed reports why the group's members cannot be listed, naming the
// store and the consolidated metadata it lacks (a Zarr store over plain
// HTTP: Members and Links then hold only the members looked up so far, and
// Walk fails with this error); nil when they can be.
func (g *Group) Listed() error { return g.unlisted }

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
// soft links are followed at every step. A file that is opened lazily (an
// HDF5 file, whose object headers may each cost a round trip) reads the
// objects on the path the first time it is traversed, and a Zarr store
// served over HTTP without consolidated metadata (.zmetadata), which cannot
// be listed, looks the members up as it goes; ctx bounds those requests.
// The object returned has its links and attributes loaded: its Members and
// Attrs do no I/O.
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
//
//lint:ignore ST1012 a signal named as filepath.SkipDir is, not a failure
var SkipGroup = errors.New("h5: skip this group")

// Walk calls fn for every link below g, depth first, in name order. Soft links
// are reported with the object they lead to but not descended into, and a
// group reached by several hard links is descended into once, so every object
// is visited once. In a lazily opened file Walk loads g's members
// concurrently before the first call of fn and, when it first descends into
// a group, the subtrees of that group and its later siblings level by level,
// each level's objects concurrently; ctx bounds those reads and the lookups
// of soft links (see Get). External links are reported without opening
// their file (obj and err nil), as h5py's visititems does.
func (g *Group) Walk(ctx context.Context, fn WalkFunc) error {
	if g.unlisted != nil {
		return g.unlisted
	}
	if err := g.completed(ctx); err != nil {
		return err
	}
	if err := loadMembers(ctx, []*Group{g}); err != nil {
		return err
	}
	return g.walk(ctx, fn, map[*Group]bool{g: true})
}

func (g *Group) walk(ctx context.Context, fn WalkFunc, seen map[*Group]bool) error {
	links := g.Links()
	preloaded := false
	for i, l := range links {
		p := joinPath(g.path, l.Name)
		var obj Object
		var err error
		if l.Kind == HardLink {
			obj, err = g.target(ctx, l.Name)
			if err == nil && obj == nil {
				continue // an object of no kind h5 knows
			}
			if sub, ok := obj.(*Group); ok && err == nil {
				if err = sub.completed(ctx); err != nil {
					obj = nil
				}
			}
		} else if l.Kind == SoftLink {
			obj, err = g.f.lookup(ctx, g, l.Name, 0)
		}
		werr := fn(p, l, obj, err)
		if errors.Is(werr, SkipGroup) {
			continue
		}
		if werr != nil {
			return werr
		}
		sub, ok := obj.(*Group)
		if !ok || l.Kind != HardLink || seen[sub] {
			continue
		}
		if !preloaded {
			// The walk goes down here, so it will likely go down the later
			// siblings too: read their subtrees now, a level at a time.
			preloaded = true
			if err := preload(ctx, g.subgroups(links[i:])); err != nil {
				return err
			}
		}
		seen[sub] = true
		if err := sub.walk(ctx, fn, seen); err != nil {
			return err
		}
	}
	return nil
}

// subgroups returns the loaded groups that the hard links among links lead to.
func (g *Group) subgroups(links []Link) []*Group {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var out []*Group
	for _, l := range links {
		if sub, ok := g.hard[l.Name].(*Group); ok && l.Kind == HardLink {
			out = append(out, sub)
		}
	}
	return out
}

// maxHops bounds how many soft links one lookup may follow.
const maxHops = 40

// lookup resolves path from group start, following soft links; hops counts
// the soft links followed so far.
func (f *File) lookup(ctx context.Context, start *Group, path string, hops int) (Object, error) {
	cur := Object(start)
	full := joinPath(start.path, path) // the path errors name
	if strings.HasPrefix(path, "/") {
		cur, full = f.root, path
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
			return nil, errpath.Wrap("h5: ", full, err)
		}
		if !ok {
			return nil, g.missing(ctx, path, seg)
		}
		switch l.Kind {
		case HardLink:
			o, err := g.target(ctx, seg)
			if err != nil {
				return nil, errpath.Wrap("h5: ", full, err)
			}
			if o == nil {
				return nil, fmt.Errorf("h5: %q: %s is %w: %w", path, joinPath(g.path, seg), errNotObject, ErrNotFound)
			}
			cur = o
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
	if g, ok := cur.(*Group); ok {
		if err := g.completed(ctx); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// find returns the link called name, looking it up in the store when the
// group cannot be listed.
func (g *Group) find(ctx context.Context, name string) (Link, bool, error) {
	g.mu.RLock()
	l, ok := g.link(name)
	finder := g.finder
	g.mu.RUnlock()
	if ok || finder == nil {
		return l, ok, nil
	}
	dl, ok, err := finder.Find(ctx, g.path, name)
	if err != nil || !ok {
		return Link{}, false, err
	}
	l, o, p := g.f.tree.link(dl, joinPath(g.path, name))
	g.add(l, o, p)
	return l, true, nil
}

// target returns the object the hard link name leads to, loading it when it
// is pending; nil (and no error) for a committed datatype, whose link is then
// dropped.
func (g *Group) target(ctx context.Context, name string) (Object, error) {
	g.mu.RLock()
	o, p := g.hard[name], g.pending[name]
	g.mu.RUnlock()
	if p == nil {
		return o, nil
	}
	path := joinPath(g.path, name)
	n, err := p.Load(ctx)
	if err != nil {
		return nil, errpath.Wrap("", path, err)
	}
	o = g.f.tree.object(n, path)
	g.mu.Lock()
	defer g.mu.Unlock()
	if cur, ok := g.hard[name]; ok {
		return cur, nil // loaded by a concurrent caller
	}
	if _, ok := g.pending[name]; !ok {
		return nil, nil // dropped by a concurrent caller
	}
	delete(g.pending, name)
	if o == nil {
		i := sort.Search(len(g.links), func(i int) bool { return g.links[i].Name >= name })
		g.links = slices.Delete(g.links, i, i+1)
		return nil, nil
	}
	g.hard[name] = o
	return o, nil
}

// pendingNames returns the names of the hard links not loaded yet.
func (g *Group) pendingNames() []string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	names := make([]string, 0, len(g.pending))
	for name := range g.pending {
		names = append(names, name)
	}
	return names
}

// hardTargets returns the loaded targets of the hard links.
func (g *Group) hardTargets() []Object {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := make([]Object, 0, len(g.hard))
	for _, o := range g.hard {
		out = append(out, o)
	}
	return out
}

// add inserts a link, keeping the links sorted; o is the target of a hard
// link, or p the Pending that loads it.
func (g *Group) add(l Link, o Object, p *driver.Pending) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.link(l.Name); ok {
		return // found by a concurrent lookup
	}
	i := sort.Search(len(g.links), func(i int) bool { return g.links[i].Name >= l.Name })
	g.links = slices.Insert(g.links, i, l)
	switch {
	case l.Kind != HardLink:
	case p != nil:
		g.pending[l.Name] = p
	default:
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
