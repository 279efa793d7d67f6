package h5_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// TestRoot: under WithRoot a file opens inside the root only, and its
// external links reach no file outside it; under WithLocalOnly a URL is
// refused before any request.
func TestRoot(t *testing.T) {
	ctx := context.Background()
	parity, err := filepath.Abs(filepath.Join("..", "testdata", "parity"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(parity, "features.h5"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "features.h5"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Its external link "ext-target.h5" leads out through a symbolic link.
	if err := os.Symlink(filepath.Join(parity, "ext-target.h5"), filepath.Join(dir, "ext-target.h5")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, err := h5.Open(ctx, filepath.Join(parity, "features.h5"), h5.WithRoot(root)); !errors.Is(err, h5.ErrOutside) {
		t.Errorf("a file outside the root: %v, want ErrOutside", err)
	}
	f, err := h5.Open(ctx, filepath.Join(dir, "features.h5"), h5.WithRoot(root))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Dataset(ctx, "grid"); err != nil {
		t.Errorf("a dataset inside: %v", err)
	}
	if _, err := f.Dataset(ctx, "ext"); !errors.Is(err, h5.ErrOutside) {
		t.Errorf("an external link out through a symbolic link: %v, want ErrOutside", err)
	}
	var hits atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer ts.Close()
	for _, name := range []string{ts.URL + "/x.h5", "dandi://dandi/000001/x.nwb"} {
		if _, err := h5.Open(ctx, name, h5.WithLocalOnly()); !errors.Is(err, h5.ErrOutside) {
			t.Errorf("%s under WithLocalOnly: %v", name, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests under WithLocalOnly", hits.Load())
	}
}
