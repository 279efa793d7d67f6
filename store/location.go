package store

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// location is where a reference file lives, for resolving relative refs.
type location struct {
	remote *url.URL // the document's URL, when it was read over HTTP(S)
	dir    string   // the document's directory, when it is a local file
}

// IsURL reports whether name is an http or https URL rather than a local path.
func IsURL(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")
}

func parseLocation(name string) (location, error) {
	if IsURL(name) {
		u, err := url.Parse(name)
		if err != nil {
			return location{}, fmt.Errorf("store: bad URL %q: %v", name, err)
		}
		return location{remote: u}, nil
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return location{}, fmt.Errorf("store: %s: %v", name, err)
	}
	return location{dir: filepath.Dir(abs)}, nil
}

// resolve turns a ref's url into an absolute http(s) URL or local path. A
// document read over HTTP may refer only to http(s) URLs: a relative ref stays on
// its server, and file URLs are refused so that a remote document cannot make the
// reader open local files.
func (l location) resolve(ref string) (string, error) {
	if IsURL(ref) {
		if _, err := url.Parse(ref); err != nil {
			return "", fmt.Errorf("%w: bad URL %q: %v", ErrFormat, ref, err)
		}
		return ref, nil
	}
	if scheme, _, ok := strings.Cut(ref, "://"); ok {
		if strings.EqualFold(scheme, "file") && l.remote == nil {
			return filepath.FromSlash(strings.TrimPrefix(ref[len(scheme)+3:], "localhost")), nil
		}
		return "", fmt.Errorf("%w: unsupported URL scheme %q in %q", ErrFormat, scheme, ref)
	}
	if l.remote != nil {
		rel, err := url.Parse(ref)
		if err != nil {
			return "", fmt.Errorf("%w: bad relative URL %q: %v", ErrFormat, ref, err)
		}
		return l.remote.ResolveReference(rel).String(), nil
	}
	if filepath.IsAbs(ref) {
		return filepath.Clean(ref), nil
	}
	return filepath.Join(l.dir, ref), nil
}
