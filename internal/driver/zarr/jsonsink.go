package zarr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lindigo/lindi/internal/atomicfile"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
)

// JSONContainer writes .lindi.json files: a document holding every chunk
// inline, replaced whole at each commit by renaming a synced temporary file
// over it. The lindi driver offers it (lindi.Containers), with its lock.
type JSONContainer struct {
	// Lock takes the lock that makes the caller the one writer of the file
	// name and returns the function that releases it; nil takes none. A
	// lock on the file itself would stay with the inode the first commit
	// replaces, so it is a lock on something beside it.
	Lock func(name string) (release func() error, err error)
}

// Name is the format's name, as the reading driver gives it.
func (JSONContainer) Name() string { return "LINDI JSON" }

// Claims takes names ending in ".json" (so ".lindi.json").
func (JSONContainer) Claims(name string) bool { return strings.HasSuffix(name, ".json") }

// Create starts a new document that is to become name, the empty
// document until the first commit, which writes it under a temporary name
// and links it to name (or renames it over name, with replace): nothing is
// written before.
func (c JSONContainer) Create(ctx context.Context, name string, replace bool) (driver.Sink, error) {
	s, err := c.open(ctx, name)
	if err != nil {
		return nil, err
	}
	tmp, err := driver.Stage(s.path, replace)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("zarr: %w", err)
	}
	atomicfile.Untrack(tmp)        // only its check was wanted: the file is made at the first commit
	atomicfile.RemoveStale(s.path) // what killed writers of it left
	s.doc, s.fresh, s.replace = []byte(driver.EmptyDocument), true, replace
	return s, nil
}

// OpenSink opens the document name for amending and returns it.
// Temporary files a killed writer left beside it are removed.
func (c JSONContainer) OpenSink(ctx context.Context, name string) (driver.Sink, []byte, error) {
	s, err := c.open(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	doc, err := os.ReadFile(s.path)
	if err == nil {
		_, err = store.ParseLINDI(s.path, doc)
	}
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("zarr: %w", err)
	}
	s.doc = bytes.TrimRight(doc, " \t\r\n")
	tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(s.path), "."+filepath.Base(s.path)+".tmp-*"))
	for _, t := range tmps {
		os.Remove(t)
	}
	return s, s.doc, nil
}

func (c JSONContainer) open(ctx context.Context, name string) (*jsonSink, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	s := &jsonSink{path: abs}
	if c.Lock != nil {
		if s.release, err = c.Lock(abs); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// jsonSink is an open .lindi.json.
type jsonSink struct {
	path    string
	release func() error
	// fresh says the file was never committed (Create); replace that its
	// first commit replaces what is at path.
	fresh, replace bool

	mu     sync.Mutex
	closed bool
	doc    []byte
}

// Member finds nothing: a .lindi.json has no members.
// bare says that the document's "./" refs name files beside it, not members.
func (s *jsonSink) bare() {}

func (s *jsonSink) Member(_ context.Context, name string) (store.Value, error) {
	return store.Value{}, fmt.Errorf("%s: member %q: %w (a .lindi.json keeps its chunks inline)", s.path, name, store.ErrNotFound)
}

// Blob returns data's inline ref: a .lindi.json keeps every chunk in the
// document.
func (s *jsonSink) Blob(ctx context.Context, _ string, data []byte) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return driver.InlineRef(data), nil
}

// jsonHook, when set by a test, is called at each stage of a commit.
var jsonHook func(stage string)

func jsonAt(stage string) {
	if jsonHook != nil {
		jsonHook(stage)
	}
}

// Commit replaces the file by doc: written to a temporary file beside it,
// synced, renamed over it, and the directory synced, so that a crash leaves
// the old document or the new one. An unchanged document is not written.
func (s *jsonSink) Commit(ctx context.Context, doc []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	doc = bytes.TrimRight(doc, " \t\r\n")
	if _, err := store.ParseLINDI(s.path, doc); err != nil {
		return fmt.Errorf("zarr: %s: document: %w", s.path, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("zarr: %s: %w", s.path, fs.ErrClosed)
	}
	if s.fresh {
		return s.create(doc)
	}
	if bytes.Equal(doc, s.doc) {
		return nil
	}
	if err := driver.ReplaceFile(s.path, doc, jsonAt); err != nil {
		return fmt.Errorf("zarr: %s: commit: %w; the file holds its last committed document", s.path, err)
	}
	s.doc = doc
	return nil
}

// create makes the file at its first commit. Called with mu held.
func (s *jsonSink) create(doc []byte) error {
	tmp, err := atomicfile.WriteTemp(s.path, atomicfile.Perm, atomicfile.Data(doc), jsonAt)
	if err == nil {
		if err = driver.Publish(tmp, s.path, s.replace); err != nil {
			os.Remove(tmp)
		}
	}
	if err != nil {
		return fmt.Errorf("zarr: create %s: %w", s.path, err)
	}
	s.doc, s.fresh = doc, false
	return nil
}

// Close releases the lock; it does not commit.
func (s *jsonSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("zarr: %s: %w", s.path, fs.ErrClosed)
	}
	s.closed = true
	if s.release != nil {
		return s.release()
	}
	return nil
}
