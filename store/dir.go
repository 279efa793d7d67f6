package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Dir is a Zarr v2 directory store on local disk: key "a/b/.zarray" is the file
// root/a/b/.zarray.
type Dir struct {
	root string
}

// OpenDir opens the Zarr directory store at root, which must be a directory.
func OpenDir(root string) (*Dir, error) {
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
	return &Dir{root: abs}, nil
}

// Name returns the store's directory.
func (d *Dir) Name() string { return d.root }

// Get locates the file holding key: all of it, with its size.
func (d *Dir) Get(_ context.Context, key string) (Value, error) {
	p, err := d.path(key)
	if err != nil {
		return Value{}, err
	}
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || err == nil && st.IsDir() {
		return Value{}, fmt.Errorf("store: %s: %q: %w", d.root, key, ErrNotFound)
	}
	if err != nil {
		return Value{}, fmt.Errorf("store: %w", err)
	}
	return Value{URL: p, Len: st.Size()}, nil
}

// List returns the subdirectories of dir that hold a Zarr group or array.
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
		if e.IsDir() && isNode(filepath.Join(p, e.Name())) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
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
