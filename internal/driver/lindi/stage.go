package lindi

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lindigo/lindi/internal/driver"
)

// staging is what a container from Create (a tar or a directory, written
// under a temporary name beside its name: driver.Stage) knows of the name
// it is to take.
type staging struct {
	name    string // the name it takes at its first commit, "" once it has
	replace bool   // it replaces what is at name
}

// publish makes the staged container at *cur its name, at its first
// commit (driver.Publish), and then *cur that name; mu guards *cur for its
// readers. It is called while committing.
func (st *staging) publish(mu *sync.Mutex, cur *string) error {
	if st.name == "" {
		return nil
	}
	if err := driver.Publish(*cur, st.name, st.replace); err != nil {
		return fmt.Errorf("lindi: create %s: %w", st.name, err)
	}
	mu.Lock()
	*cur, st.name = st.name, ""
	mu.Unlock()
	return nil
}

// discard removes the container at cur when it was never committed:
// nothing of it stays.
func (st *staging) discard(cur string) error {
	if st.name == "" {
		return nil
	}
	return driver.Unstage(cur)
}

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
