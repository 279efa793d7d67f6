package store

import (
	"errors"
	"net/url"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/io/source"
)

// TestRemoteRefsStayRemote is the regression test of issue 13 (1): a
// document read over HTTP named local files with refs that have a scheme
// but no "//".
func TestRemoteRefsStayRemote(t *testing.T) {
	l, err := parseLocation("https://host.org/dir/f.lindi.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{
		"file:/etc/passwd", "FILE:/etc/passwd", "file:///etc/passwd", "file://localhost/etc/passwd",
		"C:/Windows/win.ini", `c:\x`, "gs://bucket/x", "s3://Bad_Bucket/x", "mailto:x@y", "http:/etc/passwd", `http:\\evil\x`,
		"https://", "http:", "data:text/plain,abc", "javascript:alert(1)",
	} {
		t.Run(ref, func(t *testing.T) {
			got, err := l.resolve(ref)
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("resolve(%q) = %q, %v; want ErrFormat", ref, got, err)
			}
			if !strings.Contains(err.Error(), "\"") {
				t.Errorf("error does not quote the ref: %v", err)
			}
		})
	}
	for ref, want := range map[string]string{
		"./x.h5":           "https://host.org/dir/x.h5",
		"s3://bucket/x":    "s3://bucket/x", // remote, like http(s)
		"x:y/../z.h5":      "",              // a scheme "x": refused
		"./x:y.h5":         "https://host.org/dir/x:y.h5",
		"//cdn.org/a.h5":   "https://cdn.org/a.h5",
		"/abs.h5":          "https://host.org/abs.h5",
		"HTTP://Other/a":   "HTTP://Other/a",
		"../../../../a.h5": "https://host.org/a.h5",
	} {
		got, err := l.resolve(ref)
		if want == "" {
			if err == nil {
				t.Errorf("resolve(%q) = %q, want an error", ref, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("resolve(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
}

func TestLocalRefs(t *testing.T) {
	l, err := parseLocation("/data/dir/f.lindi.json")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.VolumeName(l.dir)
	for ref, want := range map[string]string{
		"x.h5":                     filepath.Join(l.dir, "x.h5"),
		"file:/etc/x":              root + filepath.FromSlash("/etc/x"),
		"file:///etc/x":            root + filepath.FromSlash("/etc/x"),
		"file://localhost/etc/x":   root + filepath.FromSlash("/etc/x"),
		"https://host.org/a.h5":    "https://host.org/a.h5",
		"s3://bucket/x":            "s3://bucket/x",
		"gs://bucket/x":            "",
		"file://evil.org/etc/x":    "",
		"file:etc/x":               "",
		"weird+scheme.1:something": "",
	} {
		if root != "" && strings.HasPrefix(ref, "file:") {
			continue // file URLs name POSIX paths
		}
		got, err := l.resolve(ref)
		if want == "" {
			if !errors.Is(err, ErrFormat) {
				t.Errorf("resolve(%q) = %q, %v; want ErrFormat", ref, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("resolve(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if runtime.GOOS != "windows" {
		if got, err := l.resolve("C:/x"); err == nil {
			t.Errorf("resolve(C:/x) = %q: a name with a scheme is not a local path", got)
		}
	}
}

// FuzzResolve checks the property of issue 13 (1): against an http(s) base,
// any ref resolves to an http(s) URL with a host or fails; against a local
// base, to an http(s) URL, an absolute path or an error — never to a name
// with another scheme.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"./x.h5", "file:/etc/passwd", "C:/x", "//h/x", "http:\\\\e", "{{u}}/x", "%2e%2e/x", "x:y", "https://u:p@h/x", "\\\\srv\\share", "s3://bucket/x", "s3://B/x"} {
		f.Add("https://host.org/dir/f.json", s)
		f.Add("/d/f.json", s)
		f.Add("s3://bucket/dir/f.json", s)
		f.Add("", s) // no location: bytes given
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		if !IsURL(base) && base != "" && base[0] != '/' {
			base = "/" + base
		}
		l, err := parseLocation(base)
		if err != nil {
			return
		}
		got, err := l.resolve(ref)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("resolve(%q) against %q: error %v does not wrap ErrFormat", ref, base, err)
			}
			return
		}
		if l.remote != nil || l.none || IsURL(got) {
			u, err := url.Parse(got)
			if err != nil || u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "s3" || u.Host == "" {
				t.Fatalf("resolve(%q) against %q = %q: not an http(s) or s3 URL with a host", ref, base, got)
			}
			return
		}
		if !filepath.IsAbs(got) {
			t.Fatalf("resolve(%q) against %q = %q: neither an http(s) URL nor an absolute path", ref, base, got)
		}
		if s, ok := source.Scheme(got); ok {
			t.Fatalf("resolve(%q) against %q = %q: a local path with scheme %q", ref, base, got, s)
		}
	})
}

// FuzzZMetadata parses consolidated metadata: an error, or a store whose
// every metadata key reads back and whose listings are sorted node names.
func FuzzZMetadata(f *testing.F) {
	f.Add([]byte(`{"zarr_consolidated_format": 1, "metadata": {".zgroup": {"zarr_format": 2}, "a/.zarray": {"shape": [2]}, "a/b/c/.zattrs": {"x": NaN}}}`))
	f.Add([]byte(`{"zarr_consolidated_format": 1, "metadata": {"../x/.zarray": {}, "a//b/.zgroup": {}, "/.zattrs": 1}}`))
	f.Add([]byte(`{"zarr_consolidated_format": 2, "metadata": {}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewRemote("https://h.org/s.zarr/", b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		if !r.Listable() {
			t.Fatal("a consolidated store is not listable")
		}
		for key := range r.meta {
			v, err := r.Get(ctx, key)
			if err == nil && isMetadataKey(key) && !v.InMemory() {
				t.Fatalf("metadata key %q is not in memory", key)
			}
			if err == nil && !v.InMemory() && !strings.HasPrefix(v.URL, "https://h.org/s.zarr/") {
				t.Fatalf("key %q leaves the store: %q", key, v.URL)
			}
		}
		for dir, names := range r.tree {
			got, _ := r.List(ctx, dir)
			if !slices.IsSorted(got) || len(got) != len(names) {
				t.Fatalf("List(%q) = %q", dir, got)
			}
		}
	})
}

// TestResolveFrom: a file named by another resolves as a LINDI ref does:
// beside a local file, on a remote file's server, and from a remote file
// or one with no location never to a local path.
func TestResolveFrom(t *testing.T) {
	for _, tc := range []struct{ from, ref, want string }{
		{"/data/a/vds.h5", "src.h5", "/data/a/src.h5"},
		{"/data/a/vds.h5", "../b/src.h5", "/data/b/src.h5"},
		{"/data/a/vds.h5", "/abs/src.h5", "/abs/src.h5"},
		{"https://h.org/d/vds.h5", "src.h5", "https://h.org/d/src.h5"},
		{"https://h.org/d/vds.h5", "/etc/passwd", "https://h.org/etc/passwd"},
		{"https://h.org/d/vds.h5", "file:/etc/passwd", ""},
		{"", "src.h5", ""},
		{"", "https://h.org/src.h5", "https://h.org/src.h5"},
	} {
		got, err := ResolveFrom(tc.from, tc.ref)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("ResolveFrom(%q, %q) = %q, %v; want %q", tc.from, tc.ref, got, err, tc.want)
		}
	}
}
