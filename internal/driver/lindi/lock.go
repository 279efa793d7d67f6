package lindi

import (
	"errors"
	"fmt"
	"os"
)

// ErrLocked is wrapped by the error of Create, OpenSink or Compact when
// another process is writing the container: it holds the container's
// advisory lock.
var ErrLocked = errors.New("is being written by another process (it holds the file's lock)")

// openLocked opens path with flag and locks it (see lock), opening it again
// when path was replaced between the open and the lock.
func openLocked(path string, flag int) (*os.File, error) {
	for range 8 {
		f, err := os.OpenFile(path, flag, 0o644)
		if err != nil {
			return nil, err
		}
		stale, err := lock(f, path)
		if err != nil {
			f.Close()
			return nil, err
		}
		if !stale {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s: %w: replaced by another process each time it was locked", path, ErrLocked)
}

// LockBeside takes the lock that makes the caller the one writer of the
// file name, a document replaced by renaming (a .lindi.json): a lock on the
// file name+".lock" beside it, since a lock on the document itself would
// stay with the inode the first commit replaces. release removes the lock
// file, then drops the lock: a writer that opened the removed file finds it
// stale and opens the path again, so two writers never both hold it.
func LockBeside(name string) (release func() error, err error) {
	path := name + ".lock"
	f, err := openLocked(path, os.O_RDWR|os.O_CREATE)
	if errors.Is(err, ErrLocked) {
		return nil, fmt.Errorf("lindi: %s %w: %s", name, ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("lindi: %s: %w", name, err)
	}
	return func() error {
		rmErr := os.Remove(path)
		if err := unlock(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if errors.Is(rmErr, os.ErrNotExist) {
			return nil
		}
		return rmErr
	}, nil
}
