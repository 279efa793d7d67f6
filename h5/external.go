package h5

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
)

// externals are the files external links opened, shared by a file opened
// with Open and every file its links reach, so that a file is opened once
// and a chain of links that comes back reuses it.
type externals struct {
	opts []Option

	mu    sync.Mutex
	files map[string]*File // by resolved name, the root file too
	owned []*File          // opened here: closed with the root
}

func newExternals(f *File, opts []Option) *externals {
	return &externals{opts: opts, files: map[string]*File{cleanName(f.name): f}}
}

// cleanName gives local paths one spelling, so a link back to a file finds it.
func cleanName(name string) string {
	if isURL(name) {
		return name
	}
	return filepath.Clean(name)
}

// followExternal resolves the external link l of group g: the object at
// l.Target in the file l.File, resolved against the linking file's location
// (its directory, or its URL) as HDF5 resolves a relative name. hops counts
// the links followed so far, soft and external, against cycles.
func (f *File) followExternal(ctx context.Context, g *Group, l Link, hops int) (Object, error) {
	if hops >= maxHops {
		return nil, fmt.Errorf("more than %d links: %w", maxHops, ErrLinkCycle)
	}
	name, err := resolveExternal(f.base, l.File)
	if err != nil {
		return nil, err
	}
	other, err := f.ext.open(ctx, name)
	if err != nil {
		return nil, err
	}
	return other.lookup(ctx, other.root, "/"+strings.TrimPrefix(l.Target, "/"), hops+1)
}

// open returns the file called name, opening it with the root file's
// options the first time. A failure is not remembered: the next lookup
// tries again.
func (e *externals) open(ctx context.Context, name string) (*File, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if f, ok := e.files[cleanName(name)]; ok {
		return f, nil
	}
	f, err := Open(ctx, name, e.opts...)
	if err != nil {
		return nil, err
	}
	f.ext = e
	e.files[cleanName(name)] = f
	e.owned = append(e.owned, f)
	return f, nil
}

// close closes the files external links opened.
func (e *externals) close() {
	e.mu.Lock()
	owned := e.owned
	e.owned, e.files = nil, nil
	e.mu.Unlock()
	for _, f := range owned {
		f.env.Pool.Close()
	}
}

// resolveExternal resolves the file name of an external link against the
// name (path or URL) of the file holding the link. A remote file may only
// link to URLs: never to local files.
func resolveExternal(from, file string) (string, error) {
	if file == "" {
		return "", fmt.Errorf("external link with no file name: %w", ErrFormat)
	}
	if from == "" {
		// A file opened from bytes has no location: URLs only, never local files.
		if !isURL(file) {
			return "", fmt.Errorf("external link to %q from a file with no location: only http(s) URLs may be linked: %w", file, ErrFormat)
		}
		return file, nil
	}
	if isURL(from) {
		base, err := url.Parse(from)
		if err != nil {
			return "", err
		}
		ref, err := url.Parse(filepath.ToSlash(file))
		if err != nil {
			return "", fmt.Errorf("external link to %q: %w", file, err)
		}
		if ref.Scheme != "" && !isURL(file) {
			return "", fmt.Errorf("external link from %s to %q: only http(s) URLs may be linked from a URL", from, file)
		}
		return base.ResolveReference(ref).String(), nil
	}
	if isURL(file) || filepath.IsAbs(file) {
		return file, nil
	}
	if strings.Contains(file, "://") {
		return file, nil // Open names the unsupported scheme
	}
	return filepath.Join(filepath.Dir(from), file), nil
}
