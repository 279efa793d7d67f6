package h5

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// ErrReadOnly is wrapped by errors for a change to a file that was not
// opened for writing (with Create or OpenWrite).
var ErrReadOnly = driver.ErrReadOnly

// Create makes a new LINDI file at name, a local path whose suffix says
// the container: ".lindi.json" (one JSON document: every chunk inline, so
// best for metadata and small data), ".lindi.tar" (one file: chunks of
// 1000 bytes or more are members beside the document) or ".lindi.d" (a
// directory: chunks as files). It fails if name exists (h5py's mode "x");
// WithReplace replaces it (mode "w"). The file is open for writing, held
// against other writers (an advisory lock) until Close; nothing reaches it
// before Flush or Close commits it: until then it is written beside name,
// and a file that is never committed (Discard, a failed write, a process
// that stops) leaves name as it was.
func Create(ctx context.Context, name string, opts ...Option) (*File, error) {
	return openWritable(ctx, name, true, nil, opts)
}

// CreateFrom makes a new LINDI file at name (as Create) holding everything
// src holds, by reference: its chunks stay where they are, named by
// absolute paths or URLs, and src is never modified. This is how an HDF5
// or NWB file (through its index), or a LINDI file read-only or remote, is
// amended: a .lindi.tar made from it takes the new objects. Datasets that
// the index links to the HDF5 file (_EXTERNAL_ARRAY_LINK, those of more
// than 1000 chunks) read from it but cannot be written.
func CreateFrom(ctx context.Context, name string, src *File, opts ...Option) (*File, error) {
	doc, err := src.Document(ctx)
	if err != nil {
		return nil, fmt.Errorf("h5: create %s from %s: %w", source.Redact(name), src.Name(), err)
	}
	return openWritable(ctx, name, true, doc, opts)
}

// Document returns the file as a LINDI JSON document whose refs name the
// bytes by absolute paths or URLs: a LINDI file's own document with its
// relative refs and container members resolved, or an HDF5 file's index (as
// lindi index writes it). A Zarr store has none.
func (f *File) Document(ctx context.Context) ([]byte, error) {
	if f.docFn == nil {
		return nil, fmt.Errorf("h5: %s: a %s file has no LINDI document", f.Name(), f.format)
	}
	doc, err := f.docFn(ctx)
	if err != nil {
		return nil, fmt.Errorf("h5: %s: %w", f.Name(), err)
	}
	return doc, nil
}

// WithReplace makes Create, CreateFrom (and nwb.Amend) replace a file or
// directory that exists at the name, as h5py's mode "w" does, rather than
// fail (mode "x", the default). The old file stays whole until the new one's
// first commit (Flush or Close) replaces it, atomically for a file (a
// rename over it); a .lindi.d directory is replaced by two renames, the old
// one put back if the second fails. Open and OpenWrite ignore it.
func WithReplace() Option {
	return func(o *options) error {
		o.replace = true
		return nil
	}
}

// OpenWrite opens an existing local LINDI file (.lindi.json, .lindi.tar or
// .lindi.d, ours or Python lindi's) for amending: reading as Open does,
// and writing as a file from Create. Readers that open the file meanwhile
// see its last committed state. A remote file, an HDF5 file or a Zarr
// store cannot be opened for writing; make an amendable copy first (lindi
// cp, or Copy).
func OpenWrite(ctx context.Context, name string, opts ...Option) (*File, error) {
	return openWritable(ctx, name, false, nil, opts)
}

// openWritable creates name (from doc when it is set) or opens it for
// writing.
func openWritable(ctx context.Context, name string, create bool, initial []byte, opts []Option) (*File, error) {
	op := "open for writing"
	if create {
		op = "create"
	}
	fail := func(err error) (*File, error) {
		return nil, fmt.Errorf("h5: %s %s: %w", op, source.Redact(name), err)
	}
	if isURL(name) {
		return fail(errors.New("a remote file cannot be written: make a local amendable copy (lindi cp)"))
	}
	c := driver.ContainerFor(containers, name)
	if c == nil {
		return fail(errors.New("not a LINDI file name: the name must end in .lindi.json, .lindi.tar or .lindi.d"))
	}
	f, replace, err := newWritable(name, opts)
	if err != nil {
		return nil, err
	}
	var sink driver.Sink
	doc := []byte(driver.EmptyDocument)
	if initial != nil {
		doc = initial
	}
	if create {
		sink, err = c.Create(ctx, name, replace)
	} else {
		sink, doc, err = c.OpenSink(ctx, name)
	}
	if err != nil {
		f.env.Pool.Close()
		if create && errors.Is(err, fs.ErrExist) {
			return fail(fmt.Errorf("%w (WithReplace replaces it)", fs.ErrExist))
		}
		if strings.Contains(err.Error(), name) {
			return nil, fmt.Errorf("h5: %w", err) // the container's error names the file already
		}
		return fail(err)
	}
	// A new file is committed at its first Flush or Close even if nothing
	// was written, as h5py's file is made at once.
	root, ed, err := openEditor(ctx, f.env, name, doc, sink, create)
	if err != nil {
		sink.Close()
		f.env.Pool.Close()
		return fail(err)
	}
	f.format, f.ed, f.docFn = c.Name(), ed, root.Document
	f.tree = newTree(f)
	f.root = f.tree.group(root, "/")
	f.ext = newExternals(f, opts)
	return f, nil
}

// newWritable makes the File of a file opened for writing and reports
// whether WithReplace is among opts.
func newWritable(name string, opts []Option) (*File, bool, error) {
	f, err := newFile(name, name, opts)
	if err != nil {
		return nil, false, err
	}
	var o options
	for _, opt := range opts {
		opt(&o) // newFile applied them without error
	}
	return f, o.replace, nil
}

// Writable reports whether the file was opened for writing.
func (f *File) Writable() bool { return f.ed != nil }

// Flush commits what was written so far, atomically: a process that stops
// at any point leaves the file at its previous or its new state, and
// readers opening it afterwards see the new. It does nothing when nothing
// changed.
func (f *File) Flush(ctx context.Context) error {
	if f.ed == nil {
		return fmt.Errorf("h5: flush %s: %w", f.Name(), ErrReadOnly)
	}
	if err := f.failed(); err != nil {
		return fmt.Errorf("h5: flush %s: %w", f.Name(), err)
	}
	if err := f.ed.Commit(ctx); err != nil {
		return fmt.Errorf("h5: flush %s: %w", f.Name(), err)
	}
	return nil
}

// editor returns the file's editor, or ErrReadOnly.
func (f *File) editor() (driver.Editor, error) {
	if f.ed == nil {
		return nil, ErrReadOnly
	}
	return f.ed, nil
}

// checkName refuses a path component that cannot name an object: empty,
// "." or "..", with control characters, or a Zarr metadata key.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case name == "." || name == "..":
		return fmt.Errorf("name %q is not allowed", name)
	case strings.HasPrefix(name, ".z"):
		return fmt.Errorf("name %q is kept for Zarr metadata", name)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == '\\' }):
		return fmt.Errorf("name %q holds a control character or a backslash", name)
	}
	return nil
}

// splitNew checks a relative path of new members of g and returns its
// components.
func (g *Group) splitNew(name string) ([]string, error) {
	if strings.HasPrefix(name, "/") {
		if g.path != "/" {
			return nil, fmt.Errorf("%q: an absolute path is made from the file (File.Root)", name)
		}
		name = name[1:]
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if err := checkName(p); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// CreateGroup makes the group name (a name, or a relative path whose
// missing intermediate groups are made too) and returns it. It fails if an
// object of that name exists.
func (g *Group) CreateGroup(ctx context.Context, name string) (*Group, error) {
	ng, err := g.createGroup(ctx, name, false)
	if err != nil {
		return nil, fmt.Errorf("h5: create group %s: %w", joinPath(g.path, name), err)
	}
	return ng, nil
}

// RequireGroup returns the group name, making it (and missing intermediate
// groups) when it does not exist. It fails if name is a dataset or a link.
func (g *Group) RequireGroup(ctx context.Context, name string) (*Group, error) {
	ng, err := g.createGroup(ctx, name, true)
	if err != nil {
		return nil, fmt.Errorf("h5: require group %s: %w", joinPath(g.path, name), err)
	}
	return ng, nil
}

func (g *Group) createGroup(ctx context.Context, name string, exist bool) (*Group, error) {
	ed, err := g.f.editor()
	if err != nil {
		return nil, err
	}
	parts, err := g.splitNew(name)
	if err != nil {
		return nil, err
	}
	cur := g
	for i, p := range parts {
		last := i == len(parts)-1
		if l, ok := cur.Link(p); ok {
			if last && !exist {
				return nil, fmt.Errorf("%s: %w", joinPath(cur.path, p), fs.ErrExist)
			}
			if l.Kind != HardLink {
				return nil, fmt.Errorf("%s is a %s link, not a group", joinPath(cur.path, p), l.Kind)
			}
			next, err := cur.Group(ctx, p)
			if err != nil {
				return nil, err
			}
			cur = next
			continue
		}
		path := joinPath(cur.path, p)
		dg, err := ed.CreateGroup(ctx, path)
		if err != nil {
			return nil, err
		}
		next := g.f.tree.group(dg, path)
		cur.add(Link{Name: p, Kind: HardLink}, next, nil)
		cur = next
	}
	return cur, nil
}

// parentOf makes the intermediate groups of a new member's relative path
// and returns the group that will hold it and its name.
func (g *Group) parentOf(ctx context.Context, name string) (*Group, string, error) {
	parts, err := g.splitNew(name)
	if err != nil {
		return nil, "", err
	}
	parent := g
	if len(parts) > 1 {
		if parent, err = g.createGroup(ctx, strings.Join(parts[:len(parts)-1], "/"), true); err != nil {
			return nil, "", err
		}
	}
	last := parts[len(parts)-1]
	if _, ok := parent.Link(last); ok {
		return nil, "", fmt.Errorf("%s: %w", joinPath(parent.path, last), fs.ErrExist)
	}
	return parent, last, nil
}

// SoftLink makes name (made with its missing intermediate groups) a soft
// link to target, an absolute path in the file, which need not exist yet.
func (g *Group) SoftLink(ctx context.Context, name, target string) error {
	err := func() error {
		ed, err := g.f.editor()
		if err != nil {
			return err
		}
		if !strings.HasPrefix(target, "/") {
			return fmt.Errorf("target %q is not an absolute path", target)
		}
		parent, last, err := g.parentOf(ctx, name)
		if err != nil {
			return err
		}
		if err := ed.SoftLink(ctx, joinPath(parent.path, last), target); err != nil {
			return err
		}
		parent.add(Link{Name: last, Kind: SoftLink, Target: target}, nil, nil)
		return nil
	}()
	if err != nil {
		return fmt.Errorf("h5: soft link %s: %w", joinPath(g.path, name), err)
	}
	return nil
}

// Delete removes the member name (a relative path) of g: a dataset, a
// group with everything in it, or a link (not its target). In a .lindi.tar
// the space its chunks took is reclaimed only by a compaction (lindi
// compact).
func (g *Group) Delete(ctx context.Context, name string) error {
	err := func() error {
		ed, err := g.f.editor()
		if err != nil {
			return err
		}
		parts, err := g.splitNew(name)
		if err != nil {
			return err
		}
		parent := g
		if len(parts) > 1 {
			if parent, err = g.Group(ctx, strings.Join(parts[:len(parts)-1], "/")); err != nil {
				return err
			}
		}
		last := parts[len(parts)-1]
		if _, ok := parent.Link(last); !ok {
			return fs.ErrNotExist
		}
		if err := ed.Delete(ctx, joinPath(parent.path, last)); err != nil {
			return err
		}
		parent.remove(last)
		return nil
	}()
	if err != nil {
		return fmt.Errorf("h5: delete %s: %w", joinPath(g.path, name), err)
	}
	return nil
}

// remove drops the link name.
func (g *Group) remove(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, l := range g.links {
		if l.Name == name {
			g.links = append(g.links[:i:i], g.links[i+1:]...)
			break
		}
	}
	delete(g.hard, name)
	delete(g.pending, name)
}

// SetAttr sets the attribute name of the group to v: a bool, an integer, a
// float (written as a float: 30000.0), a string, []byte (as UTF-8 text), a
// Reference, or a slice (nested for N-d) of one of those kinds; NaN and
// ±Inf are stored as LINDI stores them. A name LINDI reserves (_SCALAR,
// _REFERENCE, …) and a value it cannot store (nil, a map, a mixed list, the
// strings "NaN", "Infinity" and "-Infinity") are refused.
func (g *Group) SetAttr(ctx context.Context, name string, v any) error {
	return g.f.changeAttr(ctx, g.path, name, &g.mu, &g.attrs, func(ed driver.Editor) (map[string]any, error) {
		return ed.SetAttr(ctx, g.path, name, driverValue(v))
	})
}

// DeleteAttr removes the attribute name of the group.
func (g *Group) DeleteAttr(ctx context.Context, name string) error {
	return g.f.changeAttr(ctx, g.path, name, &g.mu, &g.attrs, func(ed driver.Editor) (map[string]any, error) {
		return ed.DeleteAttr(ctx, g.path, name)
	})
}

// SetAttr sets the attribute name of the dataset to v (see Group.SetAttr).
func (d *Dataset) SetAttr(ctx context.Context, name string, v any) error {
	return d.f.changeAttr(ctx, d.path, name, &d.mu, &d.attrs, func(ed driver.Editor) (map[string]any, error) {
		return ed.SetAttr(ctx, d.path, name, driverValue(v))
	})
}

// DeleteAttr removes the attribute name of the dataset.
func (d *Dataset) DeleteAttr(ctx context.Context, name string) error {
	return d.f.changeAttr(ctx, d.path, name, &d.mu, &d.attrs, func(ed driver.Editor) (map[string]any, error) {
		return ed.DeleteAttr(ctx, d.path, name)
	})
}

// changeAttr runs change, an editor's change of the attribute name of the
// object at path, and makes *attrs (guarded by mu) what it gives.
func (f *File) changeAttr(ctx context.Context, path, name string, mu *sync.RWMutex, attrs *Attrs,
	change func(driver.Editor) (map[string]any, error)) error {
	ed, err := f.editor()
	var vals map[string]any
	if err == nil {
		vals, err = change(ed)
	}
	if err != nil {
		return fmt.Errorf("h5: attribute %s@%s: %w", path, name, err)
	}
	mu.Lock()
	*attrs = newAttrs(vals)
	mu.Unlock()
	return nil
}

// driverValue turns References in an attribute value into the drivers'.
func driverValue(v any) any {
	switch v := v.(type) {
	case Reference:
		return driver.Ref{Path: v.Path}
	case *Reference:
		if v != nil {
			return driver.Ref{Path: v.Path}
		}
	case []Reference:
		out := make([]driver.Ref, len(v))
		for i, r := range v {
			out[i] = driver.Ref{Path: r.Path}
		}
		return out
	}
	return v
}

// Discard releases a file opened for writing without committing what
// changed since the last Flush, and closes it: the file stays at its last
// committed state (for a file from Create that never flushed, the empty
// file).
func (f *File) Discard() error {
	var err error
	if f.ed != nil {
		err = f.ed.Close()
		f.ed = nil
	}
	return errors.Join(err, f.Close())
}

// failIf records the failure of a write that may have put some of its
// chunks: the file's state in memory is then part old, part new, and is
// never committed (Flush and Close fail; Discard releases the file).
func (f *File) failIf(err error) error {
	if err != nil {
		f.failMu.Lock()
		f.writeErr = cmp.Or(f.writeErr, err)
		f.failMu.Unlock()
	}
	return err
}

// failed is the error of a write that left the file half written, or nil.
func (f *File) failed() error {
	f.failMu.Lock()
	defer f.failMu.Unlock()
	if f.writeErr != nil {
		return fmt.Errorf("not committed: an earlier write failed part way (Discard the file and open it again): %w", f.writeErr)
	}
	return nil
}

// closeWritable commits and releases a file opened for writing.
func (f *File) closeWritable() error {
	if err := f.failed(); err != nil {
		f.ed.Close()
		f.ed = nil
		return fmt.Errorf("h5: close %s: %w", f.Name(), err)
	}
	err := f.ed.Commit(context.Background())
	if cerr := f.ed.Close(); err == nil {
		err = cerr
	}
	f.ed = nil
	if err != nil {
		return fmt.Errorf("h5: close %s: %w", f.Name(), err)
	}
	return nil
}

// Copy makes name (with its missing intermediate groups) a copy of src, a
// group (with everything in it) or a dataset of any open file, this one
// included: by reference, its chunks are not copied but named where they
// lie (absolute paths or URLs), attributes and links kept. src's file must
// have a LINDI document (File.Document: a LINDI or HDF5 file); from
// another file (a Zarr store), the data is read and written again, with the
// same chunks and codecs where this file can encode them.
func (g *Group) Copy(ctx context.Context, src Object, name string) (Object, error) {
	o, err := func() (Object, error) {
		ed, err := g.f.editor()
		if err != nil {
			return nil, err
		}
		if src.File().docFn == nil {
			return g.copyValues(ctx, src, name)
		}
		doc, err := src.File().Document(ctx)
		if err != nil {
			return nil, err
		}
		parent, last, err := g.parentOf(ctx, name)
		if err != nil {
			return nil, err
		}
		path := joinPath(parent.path, last)
		dl, err := ed.Import(ctx, path, doc, src.Path())
		if err != nil {
			return nil, err
		}
		l, o, p := g.f.tree.link(dl, path)
		parent.add(l, o, p)
		if o == nil {
			return parent.Get(ctx, last)
		}
		return o, nil
	}()
	if err != nil {
		return nil, fmt.Errorf("h5: copy %s to %s: %w", src.Path(), joinPath(g.path, name), err)
	}
	return o, nil
}

// Materialize makes d, a dataset Python lindi links to its HDF5 file
// (_EXTERNAL_ARRAY_LINK: the datasets of more than 1000 chunks that lindi
// index does not list) into an ordinary dataset of this file, so that it
// can be written: its chunks become refs into the HDF5 file, none copied,
// except those HDF5 stored with some filters skipped, which are decoded
// and encoded again. It does nothing to a dataset without the link. Do not
// read d while it runs.
func (d *Dataset) Materialize(ctx context.Context) error {
	if err := d.materialize(ctx); err != nil {
		return fmt.Errorf("h5: materialize %s: %w", d.path, err)
	}
	return nil
}

func (d *Dataset) materialize(ctx context.Context) error {
	ed, err := d.f.editor()
	if err != nil {
		return err
	}
	if d.d.Err != nil {
		return d.d.Err
	}
	if ed.Writable(ctx, d.path) == nil {
		return nil
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return err
	}
	a := st.Array
	if !slices.Equal(a.Chunks, d.d.Chunks) || a.Objects {
		return fmt.Errorf("the HDF5 dataset's chunks %v are not the LINDI dataset's %v", a.Chunks, d.d.Chunks)
	}
	var again [][]int // chunks to decode and encode again
	for coords := range chunkGrid(a.Shape, a.Chunks) {
		c, err := a.Locator.Locate(ctx, coords)
		if err != nil {
			return err
		}
		var ref json.RawMessage
		switch {
		case c.Missing:
			continue
		case c.Pipeline != nil:
			again = append(again, coords)
			continue
		case c.Src == nil:
			ref = driver.InlineRef(c.Data)
		default:
			if ref, err = rangeRef(c.Src.Name(), c.Off, c.Len); err != nil {
				return err
			}
		}
		if err := ed.PutRef(ctx, d.path, coords, ref); err != nil {
			return err
		}
	}
	nd, err := ed.Unlink(ctx, d.path)
	if err != nil {
		return err
	}
	old := d.d
	d.d = nd
	for _, coords := range again {
		if err := d.recode(ctx, old, coords); err != nil {
			return err
		}
	}
	return nil
}

// rangeRef is the ref [url, off, n], a local path made absolute.
func rangeRef(url string, off, n int64) (json.RawMessage, error) {
	if !isURL(url) {
		abs, err := filepath.Abs(url)
		if err != nil {
			return nil, err
		}
		url = abs
	}
	return json.Marshal([]any{url, off, n})
}

// chunkGrid yields the coordinates of every chunk of an array.
func chunkGrid(shape, chunks []int) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		grid := make([]int, len(shape))
		for i := range shape {
			if shape[i] == 0 {
				return
			}
			grid[i] = (shape[i] + chunks[i] - 1) / chunks[i]
		}
		k := make([]int, len(shape))
		for more := true; more; more = selection.NextCoords(k, grid) {
			if !yield(slices.Clone(k)) {
				return
			}
		}
	}
}

// recode reads the chunk at coords from old, the dataset's storage before
// it was materialized, and writes it into d.
func (d *Dataset) recode(ctx context.Context, old *driver.Dataset, coords []int) error {
	sel := make(selection.Selection, len(coords))
	for i, c := range coords {
		lo := c * d.d.Chunks[i]
		sel[i] = selection.Slice(lo, min(lo+d.d.Chunks[i], d.d.Shape[i]), 1)
	}
	st, err := old.Storage.Stored(ctx)
	if err != nil {
		return err
	}
	r, err := sel.Resolve(d.d.Shape)
	if err != nil {
		return err
	}
	raw := make([]byte, r.Len()*st.Array.ItemSize)
	if err := engine.Read(ctx, st.Array, r, raw, d.f.engineOptions()); err != nil {
		return err
	}
	return d.writeRaw(ctx, sel, raw)
}

// CompactFile reclaims the space a local .lindi.tar or .lindi.d spends on what
// no ref names any more (chunks rewritten or deleted, superseded copies of
// lindi.json): it writes a new file holding only what the document names,
// under the same names, and renames it into place, holding the writer's
// lock meanwhile. It costs the live bytes. A .lindi.json has nothing to
// reclaim.
func CompactFile(ctx context.Context, name string) error {
	c := driver.ContainerFor(containers, name)
	cc, ok := c.(driver.Compacter)
	if isURL(name) || !ok {
		return fmt.Errorf("h5: compact %s: only a local .lindi.tar or .lindi.d is compacted", source.Redact(name))
	}
	if err := cc.Compact(ctx, name); err != nil {
		return fmt.Errorf("h5: compact %s: %w", name, err)
	}
	return nil
}

// copyValues copies src into name by reading it: groups with their
// attributes and members, soft links as links, datasets read and written
// again.
func (g *Group) copyValues(ctx context.Context, src Object, name string) (Object, error) {
	switch src := src.(type) {
	case *Group:
		dst, err := g.CreateGroup(ctx, name)
		if err != nil {
			return nil, err
		}
		if err := copyAttrs(ctx, dst, src.Attrs()); err != nil {
			return nil, err
		}
		for _, l := range src.Links() {
			switch l.Kind {
			case SoftLink:
				err = dst.SoftLink(ctx, l.Name, l.Target)
			case HardLink:
				var o Object
				if o, err = src.Get(ctx, l.Name); err == nil {
					_, err = dst.copyValues(ctx, o, l.Name)
				}
			default:
				err = fmt.Errorf("%s: an external link cannot be copied into a LINDI file", joinPath(src.path, l.Name))
			}
			if err != nil {
				return nil, err
			}
		}
		return dst, nil
	case *Dataset:
		return g.copyDataset(ctx, src, name)
	case *Datatype:
		return nil, nil // a committed datatype has no LINDI form: its datasets carry their dtype
	}
	return nil, fmt.Errorf("%s: cannot copy a %T", src.Path(), src)
}

// copyDataset writes a copy of src's elements and attributes as name.
func (g *Group) copyDataset(ctx context.Context, src *Dataset, name string) (*Dataset, error) {
	spec := DatasetSpec{Shape: src.Shape(), DType: src.DType(), Chunks: src.Chunks()}
	if st, err := src.d.Storage.Stored(ctx); err == nil && st.Array.Pipeline != nil && !st.Array.Objects {
		compressor, filters := st.Array.Pipeline.Configs()
		if len(filters) == 0 && compressor != nil {
			spec.Codec = compressor
		}
	}
	if spec.DType.Kind == zarrmeta.KindUnicode {
		spec.DType = ObjectDType
	}
	if src.Scalar() {
		spec.Chunks = nil
	}
	d, err := g.CreateDataset(ctx, name, spec)
	if err != nil {
		spec.Codec = nil // a codec this file cannot encode with: lindi's default
		if d, err = g.CreateDataset(ctx, name, spec); err != nil {
			return nil, err
		}
	}
	a, err := src.Read(ctx, nil)
	if err != nil {
		return nil, err
	}
	if spec.DType.Kind == zarrmeta.KindStruct {
		rows := make([][]any, len(a.Objects))
		for i, r := range a.Objects {
			if rows[i], _ = r.([]any); rows[i] == nil {
				return nil, fmt.Errorf("%s: row %d is not a row of fields", src.path, i)
			}
		}
		err = WriteRows(ctx, d, nil, rows)
	} else if a.Objects != nil {
		err = d.writeItems(ctx, a.Objects)
	} else {
		err = d.WriteArray(ctx, nil, a)
	}
	if err != nil {
		return nil, err
	}
	return d, copyAttrs(ctx, d, src.Attrs())
}

// writeItems writes the items of an object dataset: strings or References.
func (d *Dataset) writeItems(ctx context.Context, items []any) error {
	if len(items) > 0 {
		if _, ok := items[0].(Reference); ok {
			refs := make([]Reference, len(items))
			for i, v := range items {
				if refs[i], ok = v.(Reference); !ok {
					return fmt.Errorf("%w: item %d is a %T among references", ErrType, i, v)
				}
			}
			return Write(ctx, d, nil, refs)
		}
	}
	strs := make([]string, len(items))
	for i, v := range items {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%w: item %d is a %T, not a string", ErrType, i, v)
		}
		strs[i] = s
	}
	return Write(ctx, d, nil, strs)
}

// copyAttrs sets every attribute of attrs on dst.
func copyAttrs(ctx context.Context, dst interface {
	SetAttr(context.Context, string, any) error
}, attrs Attrs) error {
	for _, name := range attrs.Names() {
		v, err := attrs.Get(name)
		if err != nil {
			return err
		}
		if err := dst.SetAttr(ctx, name, v); err != nil {
			return err
		}
	}
	return nil
}

// Resize changes the shape of d (h5py's resize; the rank stays): growing
// keeps every chunk where it is, by reference, and the new elements read
// as the fill value until written; shrinking drops the chunks that fall
// outside. Do not read d while it runs.
func (d *Dataset) Resize(ctx context.Context, shape []int) error {
	err := func() error {
		ed, err := d.f.editor()
		if err != nil {
			return err
		}
		for _, n := range shape {
			if n < 0 {
				return fmt.Errorf("shape %v has a negative dimension", shape)
			}
		}
		nd, err := ed.Resize(ctx, d.path, shape)
		if err != nil {
			return err
		}
		d.d = nd
		return nil
	}()
	if err != nil {
		return fmt.Errorf("h5: resize %s to %v: %w", d.path, shape, err)
	}
	return nil
}
