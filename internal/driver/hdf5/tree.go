package hdf5

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/zarrmeta"
)

// builder turns the objects of an HDF5 file into the driver's tree, lazily:
// a group's members are Pendings, read when h5 first needs them, so that
// opening a remote file reads only the objects on the paths asked for.
type builder struct {
	env  *driver.Env
	hf   *hdf5.File
	name string // the file's path or URL

	mu     sync.Mutex
	groups map[uint64]*driver.Group // by header address: a group hard-linked twice is one Group
}

// group returns the group, lazily: its attributes and links are read when
// h5 completes it, and until then its members are found one name at a time.
func (b *builder) group(hg *hdf5.Group, path string) *driver.Group {
	b.mu.Lock()
	defer b.mu.Unlock()
	if g, ok := b.groups[hg.Addr()]; ok {
		return g
	}
	g := &driver.Group{Addr: hg.Addr(), Finder: finder{b, hg, path},
		Complete: func(ctx context.Context) (map[string]any, []driver.Link, error) {
			return b.complete(ctx, hg, path)
		}}
	b.groups[hg.Addr()] = g
	return g
}

// complete reads a group's attributes and links; its hard links lead to
// Pendings.
func (b *builder) complete(ctx context.Context, hg *hdf5.Group, path string) (map[string]any, []driver.Link, error) {
	attrs, err := attributes(ctx, hg)
	if err != nil {
		return nil, nil, err
	}
	links, err := hg.Members(ctx)
	if err != nil {
		return nil, nil, err
	}
	out := make([]driver.Link, len(links))
	for i, l := range links {
		out[i] = b.link(hg, path, l)
	}
	return attrs, out, nil
}

// link converts a link of the group hg at path; a hard link's target is a
// Pending.
func (b *builder) link(hg *hdf5.Group, path string, l hdf5.Link) driver.Link {
	switch l.Type {
	case hdf5.LinkSoft:
		return driver.Link{Name: l.Name, Kind: driver.SoftLink, Target: l.Target}
	case hdf5.LinkExternal:
		return driver.Link{Name: l.Name, Kind: driver.ExternalLink, Target: l.Target, File: l.File}
	}
	name := l.Name
	load := func(ctx context.Context) (driver.Node, error) {
		return b.member(ctx, hg, name, driver.JoinPath(path, name))
	}
	return driver.Link{Name: name, Node: driver.NewPending(load)}
}

// finder looks up one member of a group not completed yet.
type finder struct {
	b    *builder
	hg   *hdf5.Group
	path string
}

func (f finder) Find(ctx context.Context, _, name string) (driver.Link, bool, error) {
	l, ok, err := f.hg.Link(ctx, name)
	if err != nil || !ok {
		return driver.Link{}, false, err
	}
	return f.b.link(f.hg, f.path, l), true, nil
}

// member reads the object a hard link leads to: a group, a dataset or a
// committed datatype.
func (b *builder) member(ctx context.Context, hg *hdf5.Group, name, path string) (driver.Node, error) {
	obj, err := hg.Lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	switch o := obj.(type) {
	case *hdf5.Group:
		return b.group(o, path), nil
	case *hdf5.Dataset:
		return b.dataset(ctx, o, path, true)
	case *hdf5.NamedType:
		attrs, err := attributes(ctx, o)
		if err != nil {
			return nil, err
		}
		dt, err := numpyDType(o.Type)
		if err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return &driver.Datatype{Attrs: attrs, DType: dt, Enum: o.Type.EnumValues(), Err: err, Type: typeOf(o.Type)}, nil
	}
	return nil, nil
}

// attributes converts the attributes of an HDF5 object, each a
// driver.TypedAttr of its value and HDF5 type. An attribute that cannot be
// decoded has its error as its value. An attribute of two or more
// dimensions becomes nested lists of its rows, as LINDI writes it.
func attributes(ctx context.Context, o hdf5.Object) (map[string]any, error) {
	list, err := o.Attrs(ctx)
	if err != nil {
		return nil, err
	}
	vals := make(map[string]any, len(list))
	for _, a := range list {
		vals[a.Name] = driver.TypedAttr{Value: attrValue(a), Type: typeOf(a.Type), Shape: attrShape(a.Space)}
	}
	return vals, nil
}

// attrShape is the shape of an attribute's dataspace: nil for a null one.
func attrShape(s hdf5.Dataspace) []int {
	if s.Kind == hdf5.SpaceNull {
		return nil
	}
	out := []int{}
	for _, d := range s.Dims {
		out = append(out, int(min(d, math.MaxInt32)))
	}
	return out
}

// attrValue is the driver's value of a, or the error why it has none.
func attrValue(a *hdf5.Attribute) any {
	if a.Err != nil {
		return fmt.Errorf("%s: %w", a.Type.Class, a.Err)
	}
	v := times(a.Type, value(a.Value))
	if len(a.Shape) >= 2 {
		nested, err := nest(v, a.Shape)
		if err != nil {
			return err
		}
		return nested
	}
	return v
}

// nest splits the flat slice v into nested []any along all but the last of
// dims, so that the innermost lists keep their typed slice.
func nest(v any, dims []uint64) (any, error) {
	rv := reflect.ValueOf(v)
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	if rv.Kind() != reflect.Slice || uint64(rv.Len()) != n {
		return nil, fmt.Errorf("%w: attribute of shape %v decodes to %T", driver.ErrFormat, dims, v)
	}
	if len(dims) == 1 {
		return v, nil
	}
	out := make([]any, dims[0])
	step := int(n / max(dims[0], 1))
	for i := range out {
		sub, err := nest(rv.Slice(i*step, (i+1)*step).Interface(), dims[1:])
		if err != nil {
			return nil, err
		}
		out[i] = sub
	}
	return out, nil
}

// value maps the hdf5 package's values onto the driver's: references to
// Refs, compound elements to maps of driver values.
func value(v any) any {
	switch x := v.(type) {
	case hdf5.ObjectRef:
		return driver.Ref{Path: x.Path}
	case []hdf5.ObjectRef:
		out := make([]driver.Ref, len(x))
		for i, r := range x {
			out[i] = driver.Ref{Path: r.Path}
		}
		return out
	case hdf5.RegionRef:
		return regionRef(x)
	case []hdf5.RegionRef:
		out := make([]any, len(x))
		for i, r := range x {
			out[i] = regionRef(r)
		}
		return out
	case map[string]any:
		for k, f := range x {
			x[k] = value(f)
		}
		return x
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = value(e)
		}
		return out
	}
	return v
}

// times turns the int64 counts of h5py's datetime64 and timedelta64
// attributes (opaque types tagged "NUMPY:<M8[s]") into Times, which say
// their unit; other values are returned as they are.
func times(t *hdf5.Datatype, v any) any {
	tag, ok := t.NumpyTag()
	if !ok {
		return v
	}
	dt, err := zarrmeta.ParseDType(json.RawMessage(strconv.Quote(tag)))
	if err != nil {
		return v
	}
	mk := func(n int64) driver.Time {
		return driver.Time{Count: n, Unit: dt.Unit, Delta: dt.Kind == zarrmeta.KindTimedelta}
	}
	switch x := v.(type) {
	case int64:
		return mk(x)
	case []int64:
		out := make([]driver.Time, len(x))
		for i, n := range x {
			out[i] = mk(n)
		}
		return out
	}
	return v
}

// dataset converts a dataset (with its attributes when attrs is set). An
// unsupported datatype, filter or layout makes this dataset unreadable, not
// the file.
func (b *builder) dataset(ctx context.Context, hd *hdf5.Dataset, path string, attrs bool) (*driver.Dataset, error) {
	d := &driver.Dataset{Shape: []int{}}
	if attrs {
		var err error
		if d.Attrs, err = attributes(ctx, hd); err != nil {
			return nil, err
		}
	}
	if addr := hd.Datatype().Committed; addr != 0 {
		// The committed type's path; a type no hard link reaches has none.
		if d.NamedType, _ = b.hf.PathOf(ctx, addr); d.NamedType == "" {
			d.NamedType = fmt.Sprintf("<committed datatype at %d>", addr)
		}
	}
	st, err := newStorage(b.hf, hd, path)
	if err == nil {
		st.env, st.name = b.env, b.name
	}
	if err != nil {
		for _, n := range hd.Shape() {
			d.Shape = append(d.Shape, int(min(n, math.MaxInt32)))
		}
		d.DType, _ = numpyDType(hd.Datatype()) // shown when known
		describeMore(d, hd)
		switch hd.Layout() {
		case hdf5.LayoutVirtual:
			d.Layout = driver.Virtual
		case hdf5.LayoutChunked:
			for _, c := range hd.Chunks() { // shown when unreadable too, as h5py shows them
				d.Chunks = append(d.Chunks, int(c))
			}
		}
		d.Err = fmt.Errorf("%s: %w", path, err)
		return d, nil
	}
	st.describe(d)
	d.Storage = st
	return d, nil
}

func regionRef(r hdf5.RegionRef) driver.RegionRef {
	return driver.RegionRef{Path: r.Path, All: r.Kind == hdf5.RegionAll, Blocks: r.Blocks, Points: r.Points}
}
