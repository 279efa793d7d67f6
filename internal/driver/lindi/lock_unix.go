//go:build unix

package lindi

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lock takes the advisory lock that makes f, opened from path, the file of
// one writer: an exclusive flock, never waited for. A file another process
// holds gives ErrLocked. stale reports that path no longer names f (a
// compaction or a lock file's release replaced or removed it after f was
// opened): the caller opens path again.
func lock(f *os.File, path string) (stale bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, fmt.Errorf("%s %w", path, ErrLocked)
	}
	if err != nil {
		return false, fmt.Errorf("%s: lock: %w", path, err)
	}
	held, err := f.Stat()
	if err != nil {
		return false, err
	}
	now, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) || err == nil && !os.SameFile(held, now) {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return true, nil
	}
	return false, err
}

// unlock releases the lock lock took.
func unlock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// locks says that lock keeps other processes out.
const locks = true
