package hdf5

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
	"github.com/lindigo/lindi/internal/errpath"
)

// ObjectKind is the kind of an object: group, dataset or committed datatype.
type ObjectKind uint8

// Object kinds.
const (
	KindGroup ObjectKind = iota
	KindDataset
	KindDatatype
)

// String returns "group", "dataset" or "datatype".
func (k ObjectKind) String() string {
	switch k {
	case KindGroup:
		return "group"
	case KindDataset:
		return "dataset"
	case KindDatatype:
		return "datatype"
	}
	return fmt.Sprintf("kind %d", uint8(k))
}

// kindOf tells the kind of an object by the messages its header holds.
func kindOf(h *objectHeader) ObjectKind {
	if _, ok := h.first(msgLayout); ok {
		return KindDataset
	}
	if _, ok := h.first(msgDatatype); ok {
		return KindDatatype
	}
	return KindGroup
}

// Object is a *Group, a *Dataset or a *NamedType.
type Object interface {
	// Path is the "/"-separated path the object was reached by.
	Path() string
	// Addr is the address of the object's header: the identity that
	// object references and hard links use.
	Addr() uint64
	// Kind says which of the three the object is.
	Kind() ObjectKind
	// Attrs returns the object's attributes.
	Attrs(ctx context.Context) ([]*Attribute, error)
}

// Group is an HDF5 group. It holds only its path and address: every method
// reads what it needs through the file's caches, so a Group is cheap and
// safe for concurrent use.
type Group struct {
	f    *File
	path string
	addr uint64
}

// NamedType is a committed (named) datatype stored as an object.
type NamedType struct {
	f    *File
	path string
	addr uint64
	// Type is the committed datatype.
	Type *Datatype
}

// Path returns the group's path ("/" for the root).
func (g *Group) Path() string { return g.path }

// Addr returns the address of the group's object header.
func (g *Group) Addr() uint64 { return g.addr }

// Kind returns KindGroup.
func (g *Group) Kind() ObjectKind { return KindGroup }

// Attrs returns the group's attributes in name order.
func (g *Group) Attrs(ctx context.Context) ([]*Attribute, error) {
	return g.f.attrs(ctx, g.addr, g.path)
}

// Path returns the datatype's path.
func (t *NamedType) Path() string { return t.path }

// Addr returns the address of the datatype's object header.
func (t *NamedType) Addr() uint64 { return t.addr }

// Kind returns KindDatatype.
func (t *NamedType) Kind() ObjectKind { return KindDatatype }

// Attrs returns the datatype's attributes in name order.
func (t *NamedType) Attrs(ctx context.Context) ([]*Attribute, error) {
	return t.f.attrs(ctx, t.addr, t.path)
}

// Members returns the group's links sorted by name. The slice is the
// caller's to keep.
func (g *Group) Members(ctx context.Context) ([]Link, error) {
	links, err := g.f.groupLinks(ctx, g.addr)
	if err != nil {
		return nil, errpath.Wrap("hdf5: members of ", g.path, err)
	}
	return slices.Clone(links), nil
}

// groupLinks returns the sorted links of the group whose header is at
// addr, from the cache when they were read before. The slice is shared.
func (f *File) groupLinks(ctx context.Context, addr uint64) ([]Link, error) {
	if links, ok := f.links.Get(addr); ok {
		return links, nil
	}
	links, err := f.readLinks(ctx, addr)
	if err != nil {
		return nil, err
	}
	f.links.Put(addr, links)
	return links, nil
}

// readLinks reads the links of the group whose header is at addr, sorted.
func (f *File) readLinks(ctx context.Context, addr uint64) ([]Link, error) {
	h, err := f.header(ctx, addr)
	if err != nil {
		return nil, err
	}
	var links []Link
	if m, ok := h.first(msgSymbolTable); ok {
		links, err = f.symbolTableLinks(ctx, m.body)
	} else {
		links, err = f.newStyleLinks(ctx, h)
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(links, func(a, b Link) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(links); i++ {
		if links[i].Name == links[i-1].Name {
			return nil, fmt.Errorf("%w: two links named %q", ErrFormat, links[i].Name)
		}
	}
	return links, nil
}

// newStyleLinks reads compact link messages and, when the link info
// message names a fractal heap, the dense links stored there.
func (f *File) newStyleLinks(ctx context.Context, h *objectHeader) ([]Link, error) {
	var links []Link
	for _, m := range h.all(msgLink) {
		l, err := parseLink(m.body, f.r.Sizes())
		if err != nil {
			return nil, err
		}
		links = append(links, l)
	}
	m, ok := h.first(msgLinkInfo)
	if !ok {
		return links, nil
	}
	li, err := parseLinkInfo(m.body, f.r.Sizes())
	if err != nil {
		return nil, err
	}
	if fileio.IsUndefined(li.heapAddr) {
		return links, nil
	}
	dense, err := f.denseLinks(ctx, li)
	if err != nil {
		return nil, err
	}
	return append(links, dense...), nil
}

// Link returns the link called name in g, without following it, and
// whether there is one. Unlike Members it reads only what the lookup needs:
// in a group with a symbol table (the layout h5py writes by default), the
// B-tree nodes on the way to the name, not every node.
func (g *Group) Link(ctx context.Context, name string) (Link, bool, error) {
	l, ok, err := g.f.link(ctx, g.addr, name)
	if err != nil {
		return Link{}, false, fmt.Errorf("hdf5: link %q of %s: %w", name, g.path, err)
	}
	return l, ok, nil
}

// link looks name up in the group whose header is at addr: among its links
// when they were listed before, else through its symbol table's B-tree or
// its compact link messages; a group with dense links is listed whole.
func (f *File) link(ctx context.Context, addr uint64, name string) (Link, bool, error) {
	if links, ok := f.links.Get(addr); ok {
		return search(links, name)
	}
	h, err := f.header(ctx, addr)
	if err != nil {
		return Link{}, false, err
	}
	if m, ok := h.first(msgSymbolTable); ok {
		return f.symbolTableLink(ctx, m.body, name)
	}
	if _, ok := h.first(msgLinkInfo); !ok {
		for _, m := range h.all(msgLink) {
			l, err := parseLink(m.body, f.r.Sizes())
			if err != nil {
				return Link{}, false, err
			}
			if l.Name == name {
				return l, true, nil
			}
		}
		return Link{}, false, nil
	}
	links, err := f.groupLinks(ctx, addr)
	if err != nil {
		return Link{}, false, err
	}
	return search(links, name)
}

// search finds name among links sorted by name.
func search(links []Link, name string) (Link, bool, error) {
	i, found := slices.BinarySearchFunc(links, name, func(l Link, n string) int { return strings.Compare(l.Name, n) })
	if !found {
		return Link{}, false, nil
	}
	return links[i], true, nil
}

// MaxLinkDepth is the number of soft links a lookup follows before it
// fails with ErrLinkLoop.
const MaxLinkDepth = 40

// Lookup returns the object at path, relative to g unless it starts with
// "/". Soft links are followed (ErrLinkLoop past MaxLinkDepth); an external
// link fails with ErrExternalLink naming its target; a missing name fails
// with ErrNotFound.
func (g *Group) Lookup(ctx context.Context, path string) (Object, error) {
	depth := 0
	obj, err := g.f.resolve(ctx, g, path, &depth)
	if err != nil {
		return nil, errpath.Wrap("hdf5: ", joinPath(g.path, path), err)
	}
	return obj, nil
}

// Group returns the group at path (see Lookup).
func (g *Group) Group(ctx context.Context, path string) (*Group, error) {
	obj, err := g.Lookup(ctx, path)
	if err != nil {
		return nil, err
	}
	sub, ok := obj.(*Group)
	if !ok {
		return nil, fmt.Errorf("hdf5: %s: %w (a %s)", obj.Path(), ErrNotGroup, obj.Kind())
	}
	return sub, nil
}

// Dataset returns the dataset at path (see Lookup).
func (g *Group) Dataset(ctx context.Context, path string) (*Dataset, error) {
	obj, err := g.Lookup(ctx, path)
	if err != nil {
		return nil, err
	}
	ds, ok := obj.(*Dataset)
	if !ok {
		return nil, fmt.Errorf("hdf5: %s: %w (a %s)", obj.Path(), ErrNotDataset, obj.Kind())
	}
	return ds, nil
}

// Lookup returns the object at path from the root group (see
// Group.Lookup).
func (f *File) Lookup(ctx context.Context, path string) (Object, error) {
	return f.Root().Lookup(ctx, path)
}

// Group returns the group at path from the root group.
func (f *File) Group(ctx context.Context, path string) (*Group, error) {
	return f.Root().Group(ctx, path)
}

// Dataset returns the dataset at path from the root group.
func (f *File) Dataset(ctx context.Context, path string) (*Dataset, error) {
	return f.Root().Dataset(ctx, path)
}

// resolve walks path from g; depth counts the soft links followed.
func (f *File) resolve(ctx context.Context, g *Group, path string, depth *int) (Object, error) {
	if strings.HasPrefix(path, "/") {
		g = f.Root()
	}
	var cur Object = g
	for _, name := range strings.Split(path, "/") {
		if name == "" || name == "." {
			continue
		}
		grp, ok := cur.(*Group)
		if !ok {
			return nil, fmt.Errorf("%s: %w", cur.Path(), ErrNotGroup)
		}
		next, err := f.step(ctx, grp, name, depth)
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// step follows the link name of g.
func (f *File) step(ctx context.Context, g *Group, name string, depth *int) (Object, error) {
	l, found, err := f.link(ctx, g.addr, name)
	if err != nil {
		return nil, errpath.Wrap("", g.path, err)
	}
	if !found {
		return nil, fmt.Errorf("%w: no %q in %s", ErrNotFound, name, g.path)
	}
	path := joinPath(g.path, name)
	switch l.Type {
	case LinkHard:
		return f.object(ctx, l.Addr, path)
	case LinkSoft:
		*depth++
		if *depth > MaxLinkDepth {
			return nil, fmt.Errorf("%w: at %s", ErrLinkLoop, path)
		}
		obj, err := f.resolve(ctx, g, l.Target, depth)
		if err != nil {
			return nil, fmt.Errorf("soft link %s -> %s: %w", path, l.Target, err)
		}
		return withPath(obj, path), nil
	case LinkExternal:
		return nil, fmt.Errorf("%w: %s points to %q in file %q", ErrExternalLink, path, l.Target, l.File)
	}
	return nil, fmt.Errorf("%w: %s is a %s link", ErrUnsupported, path, l.Type)
}

// object opens the object whose header is at addr.
func (f *File) object(ctx context.Context, addr uint64, path string) (Object, error) {
	h, err := f.header(ctx, addr)
	if err != nil {
		return nil, errpath.Wrap("", path, err)
	}
	switch kindOf(h) {
	case KindDataset:
		return f.openDataset(ctx, h, path)
	case KindDatatype:
		m, _ := h.first(msgDatatype)
		t, err := f.datatype(ctx, m)
		if err != nil {
			return nil, errpath.Wrap("", path, err)
		}
		return &NamedType{f: f, path: path, addr: addr, Type: t}, nil
	}
	return &Group{f: f, path: path, addr: addr}, nil
}

// withPath returns a copy of obj reached by path.
func withPath(obj Object, path string) Object {
	switch o := obj.(type) {
	case *Group:
		c := *o
		c.path = path
		return &c
	case *Dataset:
		c := *o
		c.path = path
		c.loc = new(locatorMemo) // its errors name the new path
		return &c
	case *NamedType:
		c := *o
		c.path = path
		return &c
	}
	return obj
}

// joinPath joins a group path and a relative path.
func joinPath(dir, name string) string {
	if strings.HasPrefix(name, "/") {
		return name
	}
	if dir == "/" || dir == "" {
		return "/" + name
	}
	return dir + "/" + name
}
