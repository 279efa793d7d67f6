package lindi

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/lindigo/lindi/internal/atomicfile"
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

// prepareStage readies abs for a new container from Create: with replace,
// an existing container at abs being written by another process is refused
// (ErrLocked); and what writers of abs that stopped before their first
// commit left beside it is removed: driver.Stage's names whose process is
// gone and that no process holds locked (atomicfile.RemoveStale).
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
	atomicfile.RemoveStale(abs, held)
	return nil
}

// held reports whether a process holds the staged container path locked
// (or whether that cannot be known).
func held(path string) bool {
	if !locks {
		return true // a lock cannot tell a live writer's file from a stale one
	}
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	if _, err := lock(f, path); err != nil {
		return true
	}
	unlock(f)
	return false
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
