package h5

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/io/source"
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
