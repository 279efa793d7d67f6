package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Dir is a Zarr v2 directory store on local disk: key "a/b/.zarray" is the file
// root/a/b/.zarray.
//
// Symbolic links are followed while they stay inside the store's directory;
// a key whose path leads out of it fails with ErrOutside, unless the store
// was opened with FollowOutside. A store received from someone else cannot
// then make the reader open, say, ~/.ssh/id_ed25519 as a chunk.
type Dir struct {
	root    string
	real    string // root with its symbolic links resolved
	outside bool
}

// DirOption configures OpenDir.
type DirOption func(*Dir)

// FollowOutside makes a Dir follow symbolic links that lead out of its
// directory.
func FollowOutside() DirOption { return func(d *Dir) { d.outside = true } }

// OpenDir opens the Zarr directory store at root, which must be a directory.
func OpenDir(root string, opts ...DirOption) (*Dir, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("store: %s is not a directory", root)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %v", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	d := &Dir{root: abs, real: real}
	for _, o := range opts {
		o(d)
	}
	return d, nil
}

// Name returns the store's directory.
func (d *Dir) Name() string { return d.root }

// Get locates the file holding key: all of it, with its size. The URL is
// the file's path with symbolic links resolved.
func (d *Dir) Get(_ context.Context, key string) (Value, error) {
	p, err := d.path(key)
	if err != nil {
		return Value{}, err
	}
	if p, err = d.follow(key, p); err != nil {
		return Value{}, err
	}
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || err == nil && st.IsDir() {
		return Value{}, fmt.Errorf("%w: %s: %q", ErrNotFound, d.root, key)
	}
	if err != nil {
		return Value{}, fmt.Errorf("store: %w", err)
	}
	return Value{URL: p, Len: st.Size()}, nil
}

// follow resolves the symbolic links of p, the path of key, refusing a path
// that leaves the store.
func (d *Dir) follow(key, p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s: %q", ErrNotFound, d.root, key)
	}
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	if !d.outside && !within(d.real, real) {
		return "", fmt.Errorf("store: %s: %q: %w (to %s)", d.root, key, ErrOutside, real)
	}
	return real, nil
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// List returns the subdirectories of dir that hold a Zarr group or array,
// symbolic links to directories included (reading one that leads out of the
// store fails).
func (d *Dir) List(_ context.Context, dir string) ([]string, error) {
	p, err := d.path(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	var names []string
	for _, e := range entries {
		sub := filepath.Join(p, e.Name())
		if (e.IsDir() || e.Type()&fs.ModeSymlink != 0 && isDir(sub)) && isNode(sub) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func isDir(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.IsDir()
}

func isNode(dir string) bool {
	for _, f := range []string{".zgroup", ".zarray", ".zattrs"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// path maps a key onto the file system, refusing keys that would leave the store.
func (d *Dir) path(key string) (string, error) {
	if key == "" {
		return d.root, nil
	}
	if err := checkKey(key); err != nil {
		return "", fmt.Errorf("store: %s: %w", d.root, err)
	}
	return filepath.Join(d.root, filepath.FromSlash(key)), nil
}
