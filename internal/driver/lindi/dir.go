package lindi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/lindigo/lindi/internal/driver"
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

// firstRead is how much of a remote lindi.json the first request asks for: a
// smaller document takes one round trip.
const firstRead = 1 << 20

// document reads the directory's lindi.json.
func (d *dir) document(ctx context.Context, env *driver.Env) ([]byte, error) {
	name := d.join(jsonName)
	if !d.remote {
		st, err := os.Stat(name)
		if err != nil {
			return nil, err
		}
		if st.Size() > env.MetadataLimit() {
			return nil, fmt.Errorf("%s: %w: %d bytes is too large for a metadata file", name, driver.ErrFormat, st.Size())
		}
		return os.ReadFile(name)
	}
	src, err := env.Pool.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, firstRead)
	n, err := src.ReadAt(ctx, buf, 0)
	if n < len(buf) {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return buf[:n], nil
	}
	size, err := src.Size(ctx)
	if err != nil {
		return nil, err
	}
	if size > env.MetadataLimit() {
		return nil, fmt.Errorf("%s: %w: %d bytes is too large for a metadata file", name, driver.ErrFormat, size)
	}
	r := &tarReader{src: src, size: size, have: buf, limit: env.MetadataLimit()}
	return r.read(ctx, 0, size, true)
}
