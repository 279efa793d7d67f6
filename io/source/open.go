package source

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// Open returns a Source for name: an http:// or https:// URL (an HTTP
// source), a file:// URL or a local path (a File). Opening a URL makes no
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
	if c.lru != nil {
		return NewCache(s, c.lru), nil
	}
	return s, nil
}

func openRaw(name string, c *config) (Source, error) {
	scheme, _, ok := strings.Cut(name, "://")
	if !ok {
		return OpenFile(name)
	}
	switch strings.ToLower(scheme) {
	case "http", "https":
		return newHTTP(name, c)
	case "file":
		u, err := url.Parse(name)
		if err != nil {
			return nil, fmt.Errorf("source: %w", err)
		}
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("source: %s: file URL names a remote host", name)
		}
		return OpenFile(u.Path)
	default:
		return nil, fmt.Errorf("source: %s: %w %q", name, ErrScheme, scheme)
	}
}
