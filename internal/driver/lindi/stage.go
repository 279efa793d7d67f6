package lindi

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// staleAge is how old an unlocked staged container must be to be taken for
// stale: a writer creates its staged file and locks it a moment later.
const staleAge = 10 * time.Second

// prepareStage readies abs for a new container from Create: with replace,
// an existing container at abs being written by another process is refused
// (ErrLocked); and what writers of abs that stopped before their first
// commit left beside it (driver.Stage's names that no process holds
// locked) is removed.
func prepareStage(abs string, replace bool) error {
	if replace {
		f, err := openLocked(abs, os.O_RDONLY)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err == nil {
			unlock(f)
			f.Close()
		}
	}
	dir, prefix := filepath.Dir(abs), "."+filepath.Base(abs)+".tmp-"
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			removeStale(filepath.Join(dir, e.Name()))
		}
	}
	return nil
}

// removeStale removes the staged container path if no process holds it
// locked and it has not changed for staleAge.
func removeStale(path string) {
	if !locks {
		return // a lock cannot tell a live writer's file from a stale one
	}
	st, err := os.Lstat(path)
	if err != nil || time.Since(st.ModTime()) < staleAge {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return
	}
	_, err = lock(f, path)
	if err == nil {
		unlock(f)
	}
	f.Close()
	if err == nil {
		os.RemoveAll(path)
	}
}

// bare is err without the temporary name a *fs.PathError would show: the
// caller names the container.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
