package source

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// ResolveRef returns the name that ref designates when it appears in the
// object named base: a URL or absolute path is returned as is; a relative
// ref ("./data.h5", "../x") is taken relative to base's directory, whether
// base is a local path, a file:// URL or an http(s) URL (whose query, e.g. a
// signature, is dropped). LINDI JSON refs use this for "./" URLs.
func ResolveRef(base, ref string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("source: empty ref in %s", base)
	}
	if strings.Contains(ref, "://") {
		return ref, nil
	}
	if strings.Contains(base, "://") {
		b, err := url.Parse(base)
		if err != nil {
			return "", fmt.Errorf("source: base %s: %w", base, err)
		}
		r, err := url.Parse(ref)
		if err != nil {
			return "", fmt.Errorf("source: ref %s: %w", ref, err)
		}
		return b.ResolveReference(r).String(), nil
	}
	if filepath.IsAbs(ref) {
		return ref, nil
	}
	return filepath.Join(filepath.Dir(base), ref), nil
}
