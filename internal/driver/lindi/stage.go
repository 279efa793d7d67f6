package lindi

import (
	"errors"
	"io/fs"
	"os"

	"github.com/lindigo/lindi/internal/atomicfile"
)

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
