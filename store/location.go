package store

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/lindigo/lindi/io/source"
)

// location is where a reference file lives, for resolving relative refs.
type location struct {
	remote *url.URL // the document's URL, when it was read over HTTP(S)
	dir    string   // the document's directory, when it is a local file
	none   bool     // the document has no location: absolute URLs only
}

// IsURL reports whether name is a remote URL (http, https or s3) rather
// than a local path; it is source.IsURL, kept here for the store's users.
func IsURL(name string) bool { return source.IsURL(name) }

// ResolveFrom resolves ref, a file named by the file at from (a path or
// URL; "" for one given as bytes), by the rules a LINDI document's refs
// follow: relative to from's directory or URL, and, from a remote file or
// one without a location, to http(s) or s3 URLs only, never to a local
// file.
func ResolveFrom(from, ref string) (string, error) {
	l, err := parseLocation(from)
	if err != nil {
		return "", err
	}
	return l.resolve(ref)
}

func parseLocation(name string) (location, error) {
	if name == "" {
		return location{none: true}, nil
	}
	if IsURL(name) {
		u, err := httpURL(name)
		if err != nil {
			return location{}, fmt.Errorf("store: %w", err)
		}
		return location{remote: u}, nil
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return location{}, fmt.Errorf("store: %s: %v", name, err)
	}
	return location{dir: filepath.Dir(abs)}, nil
}

// resolve turns a ref's url into an absolute http(s) URL or local path.
//
// A document read over HTTP resolves every ref to an http(s) URL or fails: a
// relative ref stays on its server, and a ref with any other scheme
// ("file:/etc/passwd", "C:/x") is refused, so that a remote document cannot
// make the reader open local files. A local document may also name file:
// URLs; any other scheme is refused rather than taken for a relative path.
func (l location) resolve(ref string) (string, error) {
	scheme, hasScheme := source.Scheme(ref)
	switch {
	case scheme == "http" || scheme == "https":
		if _, err := httpURL(ref); err != nil {
			return "", fmt.Errorf("%w: %v", ErrFormat, err)
		}
		return ref, nil
	case scheme == "s3":
		// Remote, like http(s): any document may name it.
		if _, _, err := source.ParseS3(ref); err != nil {
			return "", fmt.Errorf("%w: %v", ErrFormat, err)
		}
		return ref, nil
	case l.none:
		return "", fmt.Errorf("%w: %q: a document with no location (given as bytes) may name only absolute http(s) or s3 URLs", ErrFormat, source.Redact(ref))
	case l.remote != nil && hasScheme:
		return "", fmt.Errorf("%w: %q: a remote document may name only http(s) or s3 URLs, not scheme %q", ErrFormat, source.Redact(ref), scheme)
	case l.remote != nil:
		return l.resolveRemote(ref)
	case scheme == "file":
		return filePath(ref)
	case hasScheme:
		return "", fmt.Errorf("%w: unsupported URL scheme %q in %q", ErrFormat, scheme, source.Redact(ref))
	case filepath.IsAbs(ref):
		return filepath.Clean(ref), nil
	}
	return filepath.Join(l.dir, ref), nil
}

// resolveRemote resolves a ref with no scheme against the document's URL.
func (l location) resolveRemote(ref string) (string, error) {
	rel, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("%w: bad relative URL %q: %v", ErrFormat, source.Redact(ref), urlCause(err))
	}
	abs := l.remote.ResolveReference(rel)
	if abs.Scheme != "http" && abs.Scheme != "https" && abs.Scheme != "s3" || abs.Host == "" {
		return "", fmt.Errorf("%w: %q does not resolve to an http(s) or s3 URL", ErrFormat, source.Redact(ref))
	}
	return abs.String(), nil
}

// httpURL parses an http(s) URL, which must name a host.
func httpURL(name string) (*url.URL, error) {
	u, err := url.Parse(name)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %v", source.Redact(name), urlCause(err))
	}
	if u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("URL %q names no host", source.Redact(name))
	}
	return u, nil
}

// filePath turns a file: URL (file:/p, file:///p, file://localhost/p) into a local path.
func filePath(ref string) (string, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("%w: bad URL %q: %v", ErrFormat, source.Redact(ref), urlCause(err))
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return "", fmt.Errorf("%w: %q is not a file URL of a local absolute path", ErrFormat, ref)
	}
	return filepath.FromSlash(u.Path), nil
}

// urlCause is the cause of a url.Parse error without the URL it quotes,
// which may hold a password.
func urlCause(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
