//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputModes: every file lindi writes has mode 0666 less the umask, as
// os.Create gives (not 0600): index -o, cp into each container, put, cat -o.
func TestOutputModes(t *testing.T) {
	old := syscall.Umask(0o002)
	defer syscall.Umask(old)
	const want fs.FileMode = 0o664
	dir := t.TempDir()
	src := "../../testdata/nwb/tables.nwb"
	npy := filepath.Join(dir, "a.npy")
	if code, _, stderr := lindi("cat", "-o", npy, "-f", "npy", src, "acquisition/ElectricalSeries/data", "0:4"); code != 0 {
		t.Fatalf("cat -o: %s", stderr)
	}
	steps := [][]string{
		{"index", "-o", filepath.Join(dir, "i.lindi.json"), src},
		{"cp", src, filepath.Join(dir, "c.lindi.tar")},
		{"cp", src, filepath.Join(dir, "c.lindi.json")},
		{"cp", src, filepath.Join(dir, "c.lindi.d")},
		{"put", filepath.Join(dir, "p.lindi.tar"), "x", npy},
	}
	for _, args := range steps {
		if code, _, stderr := lindi(args...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), want)
		}
		return nil
	})
}
