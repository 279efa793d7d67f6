package source

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Open returns a Source for name: an http:// or https:// URL (an HTTP
// source), an s3://bucket/key URL (an HTTP source reading the bucket's
// endpoint anonymously: see WithS3Region, WithS3Endpoint), a file: URL or a
// local path (a File). A name with any other
// scheme (see Scheme) fails with ErrScheme rather than be taken for a
// relative path. Opening a URL makes no
// request: errors such as 404 surface at the first read or Size. Every Source
// returned by Open also implements io.Closer and Reporter.
func Open(ctx context.Context, name string, opts ...Option) (Source, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return open(ctx, name, c)
}

func open(ctx context.Context, name string, c *config) (Source, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := openRaw(name, c)
	if err != nil {
		return nil, err
	}
	if _, remote := s.(*HTTP); remote && c.disk != nil {
		s = NewDiskCached(s, c.disk)
	}
	if c.lru != nil {
		return NewCache(s, c.lru), nil
	}
	return s, nil
}

func openRaw(name string, c *config) (Source, error) {
	scheme, ok := Scheme(name)
	if !ok {
		return openLocal(name, c)
	}
	if c.localOnly && IsURL(name) {
		return nil, fmt.Errorf("%w: %s: remote sources are turned off", ErrBlocked, Redact(name))
	}
	switch scheme {
	case "http", "https":
		return newHTTP(name, c)
	case "s3":
		return newS3(name, c)
	case "file":
		u, err := url.Parse(name)
		if err != nil {
			return nil, fmt.Errorf("source: %s: %w", Redact(name), urlCause(err))
		}
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("source: %s: file URL names a remote host", Redact(name))
		}
		if u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
			return nil, fmt.Errorf("source: %s: file URL without an absolute path", name)
		}
		return openLocal(filepath.FromSlash(u.Path), c)
	default:
		return nil, fmt.Errorf("%w: %s %q", ErrScheme, Redact(name), scheme)
	}
}

// openLocal opens a local file, through the root of c if it has one.
func openLocal(path string, c *config) (Source, error) {
	var f *File
	var err error
	if c.root != nil {
		f, err = openRooted(c.root, path)
	} else {
		f, err = OpenFile(path)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}
