package driver

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// The containers' commits replace and create files so that a crash leaves
// the old file or the new one: the bytes go to a temporary file beside the
// target, are synced, and are renamed (or linked) into place, and the
// directory is synced.

// TempName returns a new name beside path for a file or directory that is
// to become path: ".<base>.tmp-<ten random letters>", which no reader takes
// for a container.
func TempName(path string) string {
	b := make([]byte, 10)
	for i := range b {
		b[i] = 'a' + byte(rand.IntN(26))
	}
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+string(b))
}

// CreateTemp creates a new file named by TempName(path), open for reading
// and writing, with permissions perm.
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
		return tmp, f, nil
	}
	return "", nil, fmt.Errorf("%s: no free temporary name", path)
}

// WriteTemp writes data to a new temporary file beside path (CreateTemp)
// and syncs it. at, when not nil, is called after the write ("written") and
// the sync ("synced"): crash tests stop the writer there.
func WriteTemp(path string, data []byte, perm fs.FileMode, at func(stage string)) (string, error) {
	tmp, f, err := CreateTemp(path, perm)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		stage(at, "written")
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	stage(at, "synced")
	return tmp, nil
}

// ReplaceFile replaces the file path by one holding data, atomically and
// durably (WriteTemp, a rename over path, the directory synced), keeping the
// old file's permissions (0644 for a new one). at is called as for
// WriteTemp, and after the rename ("renamed") and the directory's sync
// ("done").
func ReplaceFile(path string, data []byte, at func(stage string)) error {
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	tmp, err := WriteTemp(path, data, perm, at)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	stage(at, "renamed")
	if err := SyncDir(filepath.Dir(path)); err != nil {
		return err
	}
	stage(at, "done")
	return nil
}

// SyncDir makes the entries of the directory path durable.
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

func stage(at func(string), name string) {
	if at != nil {
		at(name)
	}
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
	return TempName(name), nil
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
	return SyncDir(filepath.Dir(name))
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
	old := TempName(name)
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
func Unstage(tmp string) error { return os.RemoveAll(tmp) }
