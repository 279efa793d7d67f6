package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/hdf5"
)

// corruptGroup copies the bundled tables.nwb with the object header of
// /general made unreadable (a version byte no HDF5 has).
func corruptGroup(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/nwb/tables.nwb")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "bad.nwb")
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hf, err := hdf5.NewReader(f, int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	g, err := hf.Group(context.Background(), "general")
	if err != nil {
		t.Fatal(err)
	}
	if b[g.Addr()] != 1 {
		t.Fatalf("/general's header at %d is not a version 1 header", g.Addr())
	}
	b[g.Addr()] = 7
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return src
}

// TestLsUnreadableGroup: ls -r of a file whose group cannot be read fails
// naming the group once; --keep-going lists the rest, names the group on
// stderr and in the listing, and exits 1.
func TestLsUnreadableGroup(t *testing.T) {
	src := corruptGroup(t)
	code, out, stderr := lindi("ls", "-r", src)
	if code != 1 || out != "" {
		t.Fatalf("ls -r: exit %d, stdout %q; want 1 and nothing", code, out)
	}
	if !strings.Contains(stderr, "/general: object header at") || strings.Count(stderr, "/general") != 1 {
		t.Errorf("ls -r: stderr %q: want /general named once, with its object header", stderr)
	}
	code, _, stderr = lindi("ls", src, "/general/devices")
	if code != 1 || strings.Count(stderr, "/general:") != 1 || strings.Count(stderr, "hdf5:") > 1 {
		t.Errorf("ls PATH: exit %d, stderr %q: want /general: named once", code, stderr)
	}
	code, out, stderr = lindi("ls", "-r", "--keep-going", src)
	if code != 1 {
		t.Errorf("ls -r --keep-going: exit %d, want 1", code)
	}
	for _, want := range []string{"/general  ", "unreadable", "/units/spike_times ", "/intervals/trials/id "} {
		if !strings.Contains(out, want) {
			t.Errorf("ls -r --keep-going: no %q in\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "/general: object header at") || !strings.Contains(stderr, "1 object could not be read") {
		t.Errorf("ls -r --keep-going: stderr %q", stderr)
	}
}
