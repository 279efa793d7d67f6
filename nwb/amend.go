package nwb

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/lindigo/lindi/h5"
)

// ErrSpec is wrapped by errors for a new object that cannot be written as
// described: a column of the wrong length, a region row past its table, an
// index that runs backwards, timestamps that do not match the data, a
// missing required value. Such an error comes before anything is written.
var ErrSpec = errors.New("nwb: invalid new object")

// errExists is the error for a new object whose name is taken.
var errExists = fmt.Errorf("an object of that name exists: %w", fs.ErrExist)

// SourceAttr is the root attribute in which Amend records the file an
// amendment was made from (a URL, or an absolute local path), for tools
// such as lindi nwb to tell the new objects from the source's.
const SourceAttr = "lindi_amended_from"

// Amendment is an NWB file open for adding objects: a LINDI file (.lindi.tar,
// .lindi.d or .lindi.json) that refers to its source's chunks and holds only
// what is new. It reads like any File (the embedded methods: TimeSeries,
// Table, Units, …), new objects included. Nothing reaches the file before
// Flush or Close; an Add method that fails writes nothing. An Amendment is
// not safe for concurrent use.
type Amendment struct {
	*File
}

// Amend starts an amendment of src, anything Open reads (an .nwb file, local
// or remote, a .lindi.json, .lindi.tar or .lindi.d, a DANDI URL), in out, a
// new local .lindi.tar or .lindi.d (or .lindi.json, which keeps every chunk
// inline): out refers to src's chunks, which are never copied or modified.
// It fails if out exists (OpenAmendment adds to an existing one; the option
// h5.WithReplace replaces it) or if src is not NWB. out appears only when
// the amendment is first committed (Flush or Close); until then it is
// written to a hidden file beside it, ".NAME.tmp-PID-XXXXXXXXXX". Discard
// removes that file, and so does the lindi command stopped by SIGINT or
// SIGTERM. A process killed outright (SIGKILL, a crash) leaves it; the
// next Amend or create of the same out removes it once its process is
// gone, no process holds it locked and it has not changed for 10 seconds,
// and the same Amend runs again.
func Amend(ctx context.Context, src, out string, opts ...h5.Option) (*Amendment, error) {
	sf, err := Open(ctx, src, opts...)
	if err != nil {
		return nil, err
	}
	defer sf.Close()
	hf, err := h5.CreateFrom(ctx, out, sf.h, opts...)
	if err != nil {
		return nil, err
	}
	name := sf.h.Name() // a URL without its credentials
	if !strings.Contains(src, "://") {
		if abs, err := filepath.Abs(src); err == nil {
			name = abs
		}
	}
	if err := hf.Root().SetAttr(ctx, SourceAttr, name); err != nil {
		hf.Discard()
		return nil, err
	}
	return &Amendment{File: &File{h: hf}}, nil
}

// OpenAmendment opens an existing local LINDI file of an NWB file (one
// Amend made, or any other) to add more to it.
func OpenAmendment(ctx context.Context, name string, opts ...h5.Option) (*Amendment, error) {
	hf, err := h5.OpenWrite(ctx, name, opts...)
	if err != nil {
		return nil, err
	}
	f, err := New(hf)
	if err != nil {
		hf.Discard()
		return nil, err
	}
	return &Amendment{File: f}, nil
}

// Flush commits what was added so far, atomically (see h5.File.Flush).
func (a *Amendment) Flush(ctx context.Context) error { return a.h.Flush(ctx) }

// Close commits what was added and closes the amendment.
func (a *Amendment) Close() error { return a.h.Close() }

// Discard closes the amendment without committing what was added since the
// last Flush: the file stays at its last committed state.
func (a *Amendment) Discard() error { return a.h.Discard() }

// Container is a group of an amendment that new objects go into: a
// ProcessingModule, /acquisition, /analysis or any other group.
type Container struct {
	a *Amendment
	g *h5.Group
}

// Group is the container's group.
func (c *Container) Group() *h5.Group { return c.g }

// Path is the container's absolute path.
func (c *Container) Path() string { return c.g.Path() }

// Processing returns the ProcessingModule processing/name, making it with
// the given description when it does not exist (an existing module keeps
// its own description).
func (a *Amendment) Processing(ctx context.Context, name, description string) (*Container, error) {
	if err := checkNewName(name); err != nil {
		return nil, err
	}
	if g, err := a.h.Group(ctx, "processing/"+name); err == nil {
		if t := typeOf(g); t != "ProcessingModule" {
			return nil, fmt.Errorf("nwb: %s is a %q, not a ProcessingModule: %w", g.Path(), t, errExists)
		}
		return &Container{a: a, g: g}, nil
	}
	if description == "" {
		return nil, fmt.Errorf("%w: processing module %q needs a description", ErrSpec, name)
	}
	proc, err := a.h.Root().RequireGroup(ctx, "processing")
	if err != nil {
		return nil, err
	}
	if err := checkFree(proc, name); err != nil {
		return nil, err // a dataset or link of that name
	}
	g, err := newGroup(ctx, proc, name, "core", "ProcessingModule", map[string]any{"description": description})
	if err != nil {
		return nil, err
	}
	return &Container{a: a, g: g}, nil
}

// Container returns the existing group at path as a container for new
// objects ("acquisition", "analysis", "processing/ecephys", …).
func (a *Amendment) Container(ctx context.Context, path string) (*Container, error) {
	g, err := a.group(ctx, path, "container")
	if err != nil {
		return nil, err
	}
	return &Container{a: a, g: g}, nil
}

// Acquisition returns /acquisition, made when absent.
func (a *Amendment) Acquisition(ctx context.Context) (*Container, error) {
	g, err := a.h.Root().RequireGroup(ctx, "acquisition")
	if err != nil {
		return nil, err
	}
	return &Container{a: a, g: g}, nil
}

// checkNewName refuses a name that cannot name an NWB object.
func checkNewName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty name", ErrSpec)
	case strings.Contains(name, "/"):
		return fmt.Errorf("%w: name %q holds a /", ErrSpec, name)
	case name == "." || name == ".." || strings.HasPrefix(name, ".z"):
		return fmt.Errorf("%w: name %q is not allowed", ErrSpec, name)
	}
	return nil
}

// checkFree checks that name is a valid new member of g.
func checkFree(g *h5.Group, name string) error {
	if err := checkNewName(name); err != nil {
		return err
	}
	if _, ok := g.Link(name); ok {
		return fmt.Errorf("nwb: %s/%s: %w", strings.TrimSuffix(g.Path(), "/"), name, errExists)
	}
	return nil
}

// newObjectID is a fresh random (version 4) UUID.
func newObjectID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// setTyped sets the attributes every NWB object has (namespace,
// neurodata_type, a new object_id), then attrs.
func setTyped(ctx context.Context, set func(context.Context, string, any) error, ns, typ string, attrs map[string]any) error {
	if err := set(ctx, "namespace", ns); err != nil {
		return err
	}
	if err := set(ctx, "neurodata_type", typ); err != nil {
		return err
	}
	if err := set(ctx, "object_id", newObjectID()); err != nil {
		return err
	}
	for _, k := range sortedKeys(attrs) {
		if err := set(ctx, k, attrs[k]); err != nil {
			return err
		}
	}
	return nil
}

// newGroup makes the typed group name in parent.
func newGroup(ctx context.Context, parent *h5.Group, name, ns, typ string, attrs map[string]any) (*h5.Group, error) {
	g, err := parent.CreateGroup(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := setTyped(ctx, g.SetAttr, ns, typ, attrs); err != nil {
		return nil, err
	}
	return g, nil
}

// undo removes a partly written new object after a write failed, so that
// what is committed later holds no half-made object.
func undo(ctx context.Context, parent *h5.Group, name string, err error) error {
	if _, ok := parent.Link(name); ok {
		if derr := parent.Delete(ctx, name); derr != nil {
			return errors.Join(err, derr)
		}
	}
	return err
}
