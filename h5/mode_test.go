package h5

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/zarrmeta"
)

// entries lists dir, hidden temporary files included.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// writeMark makes a new file at p (with opts) holding the attribute mark,
// and closes it or, with discard, discards it.
func writeMark(t *testing.T, p, mark string, discard bool, opts ...Option) error {
	t.Helper()
	ctx := context.Background()
	f, err := Create(ctx, p, opts...)
	if err != nil {
		return err
	}
	if err := f.Root().SetAttr(ctx, "mark", mark); err != nil {
		t.Fatal(err)
	}
	d, err := f.Root().CreateDataset(ctx, "x", DatasetSpec{Shape: []int{1000}, DType: zarrmeta.DType{Kind: zarrmeta.KindInt, Order: zarrmeta.LittleEndian, Size: 4}})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]int32, 1000) // a blob, not inline
	for i := range big {
		big[i] = int32(i * i)
	}
	if err := Write(ctx, d, nil, big); err != nil {
		t.Fatal(err)
	}
	if discard {
		return f.Discard()
	}
	return f.Close()
}

// markOf reads the attribute mark of the file at p.
func markOf(t *testing.T, p string) string {
	t.Helper()
	ctx := context.Background()
	f, err := Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := f.Root().Attrs().String("mark")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCreateModes: a file never committed leaves nothing behind (what was
// there stays as it was); Create refuses an existing file, naming
// WithReplace, which replaces it at the commit. In every form.
func TestCreateModes(t *testing.T) {
	for _, name := range []string{"x.lindi.json", "x.lindi.tar", "x.lindi.d"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, name)
			if err := writeMark(t, p, "discarded", true); err != nil {
				t.Fatal(err)
			}
			if got := entries(t, dir); len(got) != 0 {
				t.Fatalf("a discarded new file left %v", got)
			}
			if err := writeMark(t, p, "one", false); err != nil {
				t.Fatal(err)
			}
			err := writeMark(t, p, "two", false)
			if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "WithReplace") {
				t.Fatalf("Create over a file: %v, want ErrExist naming WithReplace", err)
			}
			if err := writeMark(t, p, "two", true, WithReplace()); err != nil {
				t.Fatal(err)
			}
			if got := markOf(t, p); got != "one" {
				t.Fatalf("after a discarded replacement the file holds %q, want %q", got, "one")
			}
			if err := writeMark(t, p, "three", false, WithReplace()); err != nil {
				t.Fatal(err)
			}
			if got := markOf(t, p); got != "three" {
				t.Fatalf("after a replacement the file holds %q", got)
			}
			if got := entries(t, dir); !slices.Equal(got, []string{name}) {
				t.Fatalf("the directory holds %v, want only %s", got, name)
			}
		})
	}
}

// TestCreateEmptyCommits: a new file closed with nothing written exists,
// empty, as h5py's does.
func TestCreateEmptyCommits(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"x.lindi.json", "x.lindi.tar", "x.lindi.d"} {
		p := filepath.Join(t.TempDir(), name)
		f, err := Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		g, err := Open(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m := g.Root().Members(); len(m) != 0 {
			t.Errorf("%s: members %v", name, m)
		}
		g.Close()
	}
}
