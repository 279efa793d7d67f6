package driver

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lindigo/lindi/internal/atomicfile"
)

// The containers' commits replace and create files so that a crash leaves
// the old file or the new one (package atomicfile): the bytes go to a
// temporary file beside the target, are synced, and are renamed (or
// linked) into place, and then the directory is synced, which makes the
// commit itself durable.

// ReplaceFile replaces the file path by one holding data, atomically and
// durably: atomicfile.Replace (which keeps the old file's mode), then the
// directory synced. at is called as atomicfile.Replace calls it, and after
// the directory's sync ("done").
func ReplaceFile(path string, data []byte, at func(stage string)) error {
	if err := atomicfile.Replace(path, atomicfile.Data(data), at); err != nil {
		return err
	}
	if err := atomicfile.SyncDir(filepath.Dir(path)); err != nil {
		return err
	}
	if at != nil {
		at("done")
	}
	return nil
}

// Stage returns the name under which a new container that is to become
// name is written before its first commit (TempName), after checking that
// name may be created: with replace false it must not exist (an error
// wrapping fs.ErrExist). Nothing appears at name until Publish, so a writer
// that stops before its first commit leaves name as it was.
func Stage(name string, replace bool) (string, error) {
	if !replace {
		if _, err := os.Lstat(name); err == nil {
			return "", &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
		}
	}
	tmp := atomicfile.TempName(name)
	atomicfile.Track(tmp) // removed if the process stops on a signal
	return tmp, nil
}

// Publish moves tmp, a committed container staged by Stage (a file or a
// directory), to name. With replace false it fails, leaving tmp, if name
// exists (an error wrapping fs.ErrExist); with replace it replaces what is
// at name: a file atomically (a rename over it), a directory by two
// renames (the old one set aside, then removed), the old one put back if
// the second fails.
func Publish(tmp, name string, replace bool) error {
	st, err := os.Lstat(tmp)
	if err != nil {
		return err
	}
	switch {
	case !st.IsDir() && !replace:
		err = os.Link(tmp, name) // fails if name exists, atomically
		if err == nil {
			err = os.Remove(tmp)
		}
	case !st.IsDir():
		err = os.Rename(tmp, name)
	default:
		err = publishDir(tmp, name, replace)
	}
	if err != nil {
		return err
	}
	atomicfile.Untrack(tmp)
	return atomicfile.SyncDir(filepath.Dir(name))
}

// publishDir renames the directory tmp to name (see Publish).
func publishDir(tmp, name string, replace bool) error {
	_, err := os.Lstat(name)
	if err == nil && !replace {
		return &fs.PathError{Op: "create", Path: name, Err: fs.ErrExist}
	}
	if err != nil {
		return os.Rename(tmp, name)
	}
	old := atomicfile.TempName(name)
	if err := os.Rename(name, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		return errors.Join(err, os.Rename(old, name))
	}
	return os.RemoveAll(old)
}

// Unstage removes tmp, a container staged by Stage that was never
// published.
func Unstage(tmp string) error {
	atomicfile.Untrack(tmp)
	return os.RemoveAll(tmp)
}
