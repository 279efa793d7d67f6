package lindi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// DirContainer writes .lindi.d directories.
type DirContainer struct{}

// Claims takes the names Python lindi writes as a directory: any ending in
// ".d" (so ".lindi.d"), with or without a trailing slash.
// Name is the format's name, as the reading driver gives it.
func (DirContainer) Name() string { return "LINDI directory" }

// Compact compacts the directory in place (Compact).
func (DirContainer) Compact(ctx context.Context, name string) error { return Compact(ctx, name, name) }

func (DirContainer) Claims(name string) bool {
	return strings.HasSuffix(trimSeparators(name), ".d")
}

// Create makes a directory holding lindi.json (the empty document,
// formatted as Python lindi writes it) beside name (driver.Stage); it
// becomes name at the first commit (driver.Publish).
func (DirContainer) Create(ctx context.Context, name string, replace bool) (driver.Sink, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(trimSeparators(name))
	if err != nil {
		return nil, err
	}
	tmp, err := driver.Stage(abs, replace)
	if err == nil {
		err = prepareStage(abs, replace)
	}
	if err != nil {
		return nil, fmt.Errorf("lindi: %w", err)
	}
	if err := os.Mkdir(tmp, 0o777); err != nil {
		return nil, fmt.Errorf("lindi: create %s: %w", abs, bare(err))
	}
	s, err := openDirSink(tmp, nil)
	if err == nil {
		s.dirs[filepath.Dir(tmp)] = true // the new directory's own entry
		err = s.Commit(ctx, prettyEmpty())
	}
	if err != nil {
		if s != nil {
			s.Close()
		}
		driver.Unstage(tmp)
		return nil, err
	}
	s.stage = staging{name: abs, replace: replace}
	return s, nil
}

// OpenSink opens the directory name, holding lindi.json, for amending.
// Temporary files a killed writer left are removed.
func (DirContainer) OpenSink(ctx context.Context, name string) (driver.Sink, []byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("lindi: %w", err)
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("lindi: %s: %w: not a directory", abs, driver.ErrFormat)
	}
	s, err := openDirSink(abs, nil)
	if err != nil {
		return nil, nil, err
	}
	doc, err := os.ReadFile(filepath.Join(abs, jsonName))
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("lindi: %s: %w", abs, err)
	}
	s.doc = trimPadding(doc)
	removeTemps(abs)
	return s, s.doc, nil
}

// removeTemps removes the temporary lindi.json files a killed writer left
// in dir.
func removeTemps(dir string) {
	tmps, _ := filepath.Glob(filepath.Join(dir, "."+jsonName+".tmp-*"))
	for _, t := range tmps {
		os.Remove(t)
	}
}

func openDirSink(abs string, doc []byte) (*dirSink, error) {
	d, err := openLocked(abs, os.O_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("lindi: %w", err)
	}
	s := &dirSink{root: abs, lockf: d, doc: doc, writeFile: writeFile, replaceFile: replaceFile, names: map[string]*pendingBlob{}, dirs: map[string]bool{}, nextV: map[string]int{}}
	s.cond.L = &s.mu
	return s, nil
}

// dirSink is an open .lindi.d: blobs are files written and synced by Blob;
// Commit syncs the directories that gained entries, then replaces
// lindi.json by renaming a synced temporary file over it.
type dirSink struct {
	root  string
	lockf *os.File // the directory, locked
	stage staging  // of a directory from Create, until its first commit
	// writeFile and replaceFile write blob files and lindi.json; tests
	// replace them to fail as a full disk does.
	writeFile   func(p string, data []byte) error
	replaceFile func(p string, data []byte) error

	mu         sync.Mutex
	cond       sync.Cond
	closed     bool
	broken     error
	committing bool
	inflight   int
	doc        []byte
	names      map[string]*pendingBlob // blob files written since the last commit
	dirs       map[string]bool         // directories to sync at the commit
	nextV      map[string]int          // a blob name → the first version freeName has not seen taken
}

func (s *dirSink) usable() error {
	switch {
	case s.closed:
		return fmt.Errorf("lindi: %s: %w", s.root, fs.ErrClosed)
	case s.broken != nil:
		return fmt.Errorf("lindi: %s: an earlier write failed (%w); the directory is at its last committed state: close it and open it again", s.root, s.broken)
	}
	return nil
}

// Member locates the file name of the directory: committed or written since
// the last commit, never one being written.
func (s *dirSink) Member(_ context.Context, name string) (store.Value, error) {
	if err := checkName(name); err != nil {
		return store.Value{}, err
	}
	s.mu.Lock()
	b, ok := s.names[name]
	root := s.root
	s.mu.Unlock()
	if ok && !b.done {
		return store.Value{}, fmt.Errorf("%s: member %q: %w", s.root, name, store.ErrNotFound)
	}
	p := filepath.Join(root, filepath.FromSlash(name))
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !st.Mode().IsRegular() {
		return store.Value{}, fmt.Errorf("%s: member %q: %w", root, name, store.ErrNotFound)
	}
	if err != nil {
		return store.Value{}, err
	}
	return store.Value{URL: p, Len: st.Size()}, nil
}

// Blob writes data to the file blobs/<key>, or blobs/<key>.v2, .v3, … when
// that file exists, and syncs it.
func (s *dirSink) Blob(ctx context.Context, key string, data []byte) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	for s.committing {
		s.cond.Wait()
	}
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	name := s.freeName("blobs/" + key)
	b := &pendingBlob{rec: record{name: name, s: int64(len(data))}}
	s.names[name] = b
	root := s.root
	p := filepath.Join(root, filepath.FromSlash(name))
	for d := filepath.Dir(p); len(d) >= len(root); d = filepath.Dir(d) {
		s.dirs[d] = true
	}
	s.inflight++
	s.mu.Unlock()

	err := s.writeFile(p, data)
	s.mu.Lock()
	s.inflight--
	if err != nil {
		delete(s.names, name)
		if s.broken == nil {
			s.broken = err
		}
	}
	b.done = err == nil
	s.cond.Broadcast()
	s.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("lindi: %s: write %s: %w", root, name, err)
	}
	return jsonRef(name, len(data)), nil
}

// freeName returns name, or its first version name.vN that is neither a
// file nor being written. Called with mu held.
func (s *dirSink) freeName(name string) string {
	taken := func(n string) bool {
		if _, ok := s.names[n]; ok {
			return true
		}
		_, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(n)))
		return !errors.Is(err, fs.ErrNotExist)
	}
	return versionName(name, s.nextV, taken)
}

// writeFile creates the file p, with its directories, holding data, and
// syncs it; a file that could not be written whole is removed.
func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, atomicfile.Perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
	}
	return err
}

// Commit makes doc the directory's lindi.json: the directories that gained
// blob files are synced, then doc is written to a temporary file, synced,
// and renamed over lindi.json, and the directory synced.
func (s *dirSink) Commit(ctx context.Context, doc []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	doc = trimPadding(doc)
	s.mu.Lock()
	for s.committing || s.inflight > 0 {
		s.cond.Wait()
	}
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.committing = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.committing = false
		s.cond.Broadcast()
		s.mu.Unlock()
	}()
	if _, err := checkRefs(ctx, s.root, doc, s); err != nil {
		return err
	}
	if s.doc != nil && bytes.Equal(doc, s.doc) {
		s.committed()
		return s.stage.publish(&s.mu, &s.root)
	}
	if err := s.replaceDoc(doc); err != nil {
		s.mu.Lock()
		if s.broken == nil {
			s.broken = err
		}
		s.mu.Unlock()
		return fmt.Errorf("lindi: %s: commit: %w; the directory is at its last committed state", s.root, err)
	}
	s.doc = doc
	s.committed()
	return s.stage.publish(&s.mu, &s.root)
}

// committed forgets the blobs and directories of the commit just made.
func (s *dirSink) committed() {
	s.mu.Lock()
	s.names, s.dirs = map[string]*pendingBlob{}, map[string]bool{}
	s.mu.Unlock()
}

// replaceDoc is the commit's writes.
func (s *dirSink) replaceDoc(doc []byte) error {
	for d := range s.dirs {
		if err := atomicfile.SyncDir(d); err != nil {
			return err
		}
	}
	at("blobs")
	return s.replaceFile(filepath.Join(s.root, jsonName), doc)
}

// replaceFile replaces the file path by one holding data (driver.ReplaceFile),
// its stages named as the tar's commit names its own.
func replaceFile(path string, data []byte) error {
	return driver.ReplaceFile(path, data, func(stage string) {
		switch stage {
		case "written":
			stage = "doc"
		case "renamed":
			stage = "entry"
		}
		at(stage)
	})
}

// Close releases the directory and its lock; blob files written since the
// last commit, which no document names, are removed.
func (s *dirSink) Close() error {
	s.mu.Lock()
	for s.committing || s.inflight > 0 {
		s.cond.Wait()
	}
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("lindi: %s: %w", s.root, fs.ErrClosed)
	}
	s.closed = true
	if s.broken == nil { // after a failed commit lindi.json may name them
		for name := range s.names {
			os.Remove(filepath.Join(s.root, filepath.FromSlash(name)))
		}
	}
	s.mu.Unlock()
	err := errors.Join(unlock(s.lockf), s.lockf.Close())
	err = errors.Join(err, s.stage.discard(s.root))
	if err != nil {
		return fmt.Errorf("lindi: %s: close: %w", s.root, err)
	}
	return nil
}

// trimSeparators is name without the path separators ending it ("/", and
// the system's own where it is another).
func trimSeparators(name string) string {
	return strings.TrimRightFunc(name, func(r rune) bool { return r == '/' || r == filepath.Separator })
}
