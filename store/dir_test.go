package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// symlinkStore builds a Zarr directory whose array "a" has a chunk linked
// inside the store and one linked out of it, and whose groups "in" and "out"
// are directory links inside and out of it.
func symlinkStore(t *testing.T) (root string) {
	t.Helper()
	base := t.TempDir()
	root, secret := filepath.Join(base, "store"), filepath.Join(base, "secret")
	for _, d := range []string{filepath.Join(root, "a"), filepath.Join(root, "g"), secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"store/.zgroup": `{"zarr_format": 2}`, "store/g/.zgroup": `{"zarr_format": 2}`,
		"store/a/.zarray": `{}`, "store/a/0": "chunk", "secret/key": "private", "secret/.zgroup": `{"zarr_format": 2}`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(base, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"store/a/1": "0", "store/a/2": "../../secret/key", "store/in": "g", "store/out": "../secret",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	return root
}

// TestDirSymlinks: a symbolic link leaving a Zarr directory was followed
// (a chunk linked to any file was read), and directory links vanished from
// listings (issue 13, policies).
func TestDirSymlinks(t *testing.T) {
	root := symlinkStore(t)
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	names, err := d.List(ctx, "")
	if err != nil || !slices.Equal(names, []string{"a", "g", "in", "out"}) {
		t.Errorf("List = %q, %v; want a, g, in, out", names, err)
	}
	for _, key := range []string{"a/0", "a/1", "in/.zgroup"} {
		if _, err := d.Get(ctx, key); err != nil {
			t.Errorf("Get(%q): %v", key, err)
		}
	}
	for _, key := range []string{"a/2", "out/.zgroup", "out/key"} {
		if _, err := d.Get(ctx, key); !errors.Is(err, ErrOutside) {
			t.Errorf("Get(%q): got %v, want ErrOutside", key, err)
		}
	}
	open, err := OpenDir(root, FollowOutside())
	if err != nil {
		t.Fatal(err)
	}
	if v, err := open.Get(ctx, "a/2"); err != nil || v.Len != int64(len("private")) {
		t.Errorf("FollowOutside: Get(a/2) = %+v, %v", v, err)
	}
}
