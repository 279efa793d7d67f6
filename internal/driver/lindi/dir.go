package lindi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/driver/zarr"
	"github.com/lindigo/lindi/store"
)

// dir is a .lindi.d: a local directory or its URL.
type dir struct {
	root   string // the absolute path, or the URL without a trailing slash
	remote bool
}

func newDir(name string, remote bool) (*dir, error) {
	if remote {
		return &dir{root: strings.TrimRight(name, "/"), remote: true}, nil
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	return &dir{root: abs}, nil
}

// join returns the path or URL of the file name ("blobs/a/0") in the
// directory, refusing names that would leave it.
func (d *dir) join(name string) string {
	if d.remote {
		segs := strings.Split(name, "/")
		for i, s := range segs {
			segs[i] = url.PathEscape(s)
		}
		return d.root + "/" + strings.Join(segs, "/")
	}
	return filepath.Join(d.root, filepath.FromSlash(name))
}

// checkName refuses member names with empty, "." or ".." segments or
// backslashes, which could leave the directory.
func checkName(name string) error {
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsRune(seg, '\\') {
			return fmt.Errorf("%w: member name %q leaves the directory", store.ErrFormat, name)
		}
	}
	return nil
}

// Member locates the file name of the directory: with its size when local;
// over HTTP its size is learnt when it is read.
func (d *dir) Member(_ context.Context, name string) (store.Value, error) {
	if err := checkName(name); err != nil {
		return store.Value{}, err
	}
	p := d.join(name)
	if d.remote {
		return store.Value{URL: p, Len: -1}, nil
	}
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !st.Mode().IsRegular() {
		return store.Value{}, fmt.Errorf("%s: member %q: %w", d.root, name, store.ErrNotFound)
	}
	if err != nil {
		return store.Value{}, err
	}
	return store.Value{URL: p, Len: st.Size()}, nil
}

// document reads the directory's lindi.json.
func (d *dir) document(ctx context.Context, env *driver.Env) ([]byte, error) {
	return zarr.ReadMeta(ctx, env, d.join(jsonName))
}
