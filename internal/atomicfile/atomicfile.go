// Package atomicfile writes files so that a reader, or a crash, sees the
// old file or the new one whole, never a part: the bytes go to a temporary
// file beside the target, which is synced (fsync) and then renamed over
// it. It is the one place the module creates files that replace others:
// lindi index outputs, lindi cat -o, lindi plot's PNGs, the disk cache's entries, lindi-beam's
// outputs and the LINDI containers' documents and staged containers.
//
// # Durability
//
// One rule: a file is synced before it is renamed into place, so that the
// name never reaches a file whose bytes a crash could lose. The rename
// itself reaches the disk when the directory is synced (SyncDir). Replace
// does not sync the directory: after a crash its target is the old file or
// the new one, both whole, which is all an output or a cache entry needs.
// A writer that reports a commit as done (the containers of
// internal/driver: a Flush or Close that returned must survive a crash)
// calls SyncDir after the rename.
//
// # Permissions
//
// New files are created with mode 0666 less the process's umask, as
// os.Create creates them; Replace keeps the mode of the file it replaces.
//
// # Temporaries
//
// A temporary file is named ".<base>.tmp-<pid>-<ten letters>" beside its
// target: hidden, and named by the process that made it. A writer removes
// its temporary on failure; one killed before its rename (SIGKILL, a
// crash) leaves it, and RemoveStale, which Replace calls first, removes
// those of the same target whose process is gone on this host and that
// have not changed for StaleAge. A process stopping on a signal removes its
// own first (RemoveOwn): the temporaries of CreateTemp, WriteTemp and
// Replace, and the staged containers its callers Track, until they are
// renamed into place or removed (Untrack).
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Perm is the mode files are created with, before the umask.
const Perm fs.FileMode = 0o666

// StaleAge is how long a temporary of a process that is gone must have been
// left unchanged before RemoveStale takes it for stale: a process of that
// pid on another host sharing the directory may still be writing it.
const StaleAge = 10 * time.Second

// TempName returns a new name beside path for a file or directory that is
// to become path: ".<base>.tmp-<pid>-<ten random letters>", which no reader
// takes for a container.
func TempName(path string) string {
	b := make([]byte, 10)
	for i := range b {
		b[i] = 'a' + byte(rand.IntN(26))
	}
	return filepath.Join(filepath.Dir(path), tempPrefix(path)+strconv.Itoa(os.Getpid())+"-"+string(b))
}

// tempPrefix is what the base names of path's temporaries start with.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// CreateTemp creates a new file named by TempName(path), open for reading
// and writing, with mode perm less the umask.
func CreateTemp(path string, perm fs.FileMode) (string, *os.File, error) {
	for range 100 {
		tmp := TempName(path)
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		Track(tmp)
		return tmp, f, nil
	}
	return "", nil, fmt.Errorf("%s: no free temporary name", path)
}

// own holds this process's temporaries (Track) not yet renamed into place
// or removed.
var own sync.Map

// Track records tmp, a temporary file or directory of this process, for
// RemoveOwn. CreateTemp tracks what it creates.
func Track(tmp string) { own.Store(tmp, struct{}{}) }

// Untrack forgets tmp, renamed into place or removed.
func Untrack(tmp string) { own.Delete(tmp) }

// RemoveOwn removes every temporary this process tracks: for a process
// that stops on a signal before its writers could finish or clean up.
func RemoveOwn() {
	own.Range(func(k, _ any) bool {
		os.RemoveAll(k.(string))
		own.Delete(k)
		return true
	})
}

// remove removes the temporary tmp and forgets it.
func remove(tmp string) {
	os.Remove(tmp)
	Untrack(tmp)
}

// WriteTemp runs write on a buffered writer on a new temporary file beside
// path (CreateTemp with perm), then syncs and closes it, and returns its
// name, tracked until the caller renames it and calls Untrack. On failure
// the temporary is removed. at, when not nil, is called
// after the write ("written") and after the sync ("synced"): crash tests
// stop the writer there.
func WriteTemp(path string, perm fs.FileMode, write func(io.Writer) error, at func(stage string)) (string, error) {
	tmp, f, err := CreateTemp(path, perm)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		stage(at, "written")
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		remove(tmp)
		return "", err
	}
	stage(at, "synced")
	return tmp, nil
}

// Replace replaces the file path by what write writes, atomically
// (WriteTemp, then a rename over path), keeping the mode of the file it
// replaces (Perm less the umask for a new one). Stale temporaries of path
// are removed first (RemoveStale). The directory is not synced (see
// Durability). at is called as for WriteTemp, and after the rename
// ("renamed").
func Replace(path string, write func(io.Writer) error, at func(stage string)) error {
	RemoveStale(path)
	tmp, err := WriteTemp(path, Perm, write, at)
	if err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		if err := os.Chmod(tmp, st.Mode().Perm()); err != nil {
			remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		remove(tmp)
		return err
	}
	Untrack(tmp)
	stage(at, "renamed")
	return nil
}

// WriteFile replaces the file path by one holding data (Replace).
func WriteFile(path string, data []byte) error { return Replace(path, Data(data), nil) }

// Data is a write function for WriteTemp and Replace that writes b.
func Data(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}
}

// SyncDir makes the entries of the directory path durable: a rename or a
// new file in it survives a crash once SyncDir returns.
func SyncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// RemoveStale removes the temporaries of path (TempName's names, files or
// directories) that it can prove stale: made by a process that no longer
// runs on this host, and unchanged for StaleAge. keep, when not nil, may
// refuse one more (a container held locked by a live writer). Errors are
// ignored: a temporary left is only space.
func RemoveStale(path string, keep ...func(tmp string) bool) {
	dir, prefix := filepath.Dir(path), tempPrefix(path)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || running(pid) {
			continue // not ours to judge, or its writer may be at work
		}
		tmp := filepath.Join(dir, e.Name())
		st, err := os.Lstat(tmp)
		if err != nil || time.Since(st.ModTime()) < StaleAge {
			continue
		}
		if k := keepAny(keep, tmp); !k {
			os.RemoveAll(tmp)
		}
	}
}

func keepAny(keep []func(string) bool, tmp string) bool {
	for _, k := range keep {
		if k(tmp) {
			return true
		}
	}
	return false
}

func stage(at func(string), name string) {
	if at != nil {
		at(name)
	}
}
