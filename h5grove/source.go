package h5grove

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

var (
	// ErrForbidden is wrapped by errors for a file name that leads outside
	// the served files (an absolute path, "..", a symbolic link leaving the
	// directory).
	ErrForbidden = errors.New("h5grove: file not allowed")
	// ErrNoFile is wrapped by errors for a file name that names no served file.
	ErrNoFile = errors.New("h5grove: file not found")
)

// Source tells what a request's file parameter names.
type Source interface {
	// Locate returns what h5.Open opens for name: a local path or a URL. Its
	// errors wrap ErrForbidden or ErrNoFile and name nothing but name.
	Locate(name string) (string, error)
}

// Dir serves every file and store under a directory, looked up when a
// request names it (a file added after the server started is served). Names
// are slash-separated paths relative to the directory; a name that is
// absolute, climbs out with "..", or leads out through a symbolic link is
// refused with ErrForbidden.
type Dir string

// Locate implements Source.
func (d Dir) Locate(name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("%w: no file named", ErrNoFile)
	}
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.IsAbs(name) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("%w: an absolute path", ErrForbidden)
	}
	clean := filepath.Clean(filepath.FromSlash(name))
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %q leaves the served directory", ErrForbidden, name)
	}
	root, err := d.resolved()
	if err != nil {
		return "", fmt.Errorf("%w: %q (the served directory cannot be read)", ErrNoFile, name)
	}
	full, err := filepath.EvalSymlinks(filepath.Join(root, clean))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %q", ErrNoFile, name)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %q cannot be read", ErrForbidden, name)
	}
	rel, err := filepath.Rel(root, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %q leads outside the served directory", ErrForbidden, name)
	}
	if _, err := os.Stat(full); err != nil {
		return "", fmt.Errorf("%w: %q", ErrNoFile, name)
	}
	return full, nil
}

// resolved is the directory as an absolute path, its symbolic links
// resolved.
func (d Dir) resolved() (string, error) {
	abs, err := filepath.Abs(string(d))
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Files serves a fixed set of files: each name maps to the local path or URL
// h5.Open opens. No other name is served.
type Files map[string]string

// Locate implements Source.
func (f Files) Locate(name string) (string, error) {
	loc, ok := f[name]
	if !ok {
		return "", fmt.Errorf("%w: %q", ErrNoFile, name)
	}
	return loc, nil
}
