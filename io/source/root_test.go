package source

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestRoot: under WithRoot a local file opens only inside the root, by
// path, file: URL or Pool.PerRead; outside, through ".." or a symbolic link
// leaving it, or not a regular file, it fails with ErrOutside without being
// opened. WithLocalOnly refuses URLs before any request.
func TestRoot(t *testing.T) {
	top := t.TempDir()
	in, out := filepath.Join(top, "in"), filepath.Join(top, "out")
	for _, d := range []string{in, out, filepath.Join(in, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(in, "ok"), filepath.Join(out, "secret")} {
		if err := os.WriteFile(f, []byte("bytes"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(out, "secret"), filepath.Join(in, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../ok", filepath.Join(in, "sub", "inner")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(in, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(in)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer ts.Close()
	pool, err := NewPool(WithRoot(root), WithLocalOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	for _, name := range []string{filepath.Join(in, "ok"), "file://" + filepath.Join(in, "ok"), filepath.Join(in, "sub", "..", "ok"), filepath.Join(in, "sub", "inner")} {
		if _, err := pool.Open(ctx, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := pool.PerRead(filepath.Join(in, "ok")).Size(ctx); err != nil {
		t.Errorf("PerRead inside: %v", err)
	}
	for _, name := range []string{
		filepath.Join(out, "secret"), "file://" + filepath.Join(out, "secret"), filepath.Join(in, "..", "out", "secret"),
		filepath.Join(in, "link"), filepath.Join(in, "fifo"), "/etc/passwd",
	} {
		if _, err := pool.Open(ctx, name); !errors.Is(err, ErrOutside) || !errors.Is(err, ErrBlocked) {
			t.Errorf("%s: %v, want ErrOutside", name, err)
		}
		if _, err := pool.PerRead(name).ReadAt(ctx, make([]byte, 1), 0); !errors.Is(err, ErrOutside) {
			t.Errorf("PerRead %s: %v, want ErrOutside", name, err)
		}
	}
	if _, err := pool.Open(ctx, filepath.Join(in, "nothing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file inside: %v", err)
	}
	if _, err := pool.Open(ctx, filepath.Join(in, "sub")); !errors.Is(err, ErrIsDir) {
		t.Errorf("a directory: %v", err)
	}
	for _, u := range []string{ts.URL + "/x", "s3://bucket/key"} {
		if _, err := pool.Open(ctx, u); !errors.Is(err, ErrBlocked) {
			t.Errorf("%s under WithLocalOnly: %v", u, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests made under WithLocalOnly", hits.Load())
	}
}
