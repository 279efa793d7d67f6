package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndex writes the LINDI JSON of the conformance HDF5 file beside a copy
// of it and reads a dataset back from it; a non-HDF5 input exits 1.
func TestIndex(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/conformance/fixture.h5")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "x.nwb")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := lindi("index", src)
	if code != 0 || strings.TrimSpace(stdout) != src+".lindi.json" {
		t.Fatalf("index: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = lindi("cat", src+".lindi.json", "misc/f4_2d_edge", "0:1, 0:2")
	if code != 0 || !strings.Contains(stdout, "-1.1816484 -1.3140281") {
		t.Fatalf("cat: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if code, _, stderr = lindi("index", "-o", filepath.Join(dir, "y.json"), "main.go"); code != 1 || stderr == "" {
		t.Errorf("indexing main.go: exit %d, stderr %q", code, stderr)
	}
}

// TestIndexRefNames: the refs name a local file by its absolute path, which
// Python lindi reads, unless --relative-refs asks for ./NAME.
func TestIndexRefNames(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/conformance/fixture.h5")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "x.nwb")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags     []string
		want, not string
	}{
		{nil, `"` + abs + `"`, `"./x.nwb"`},
		{[]string{"--relative-refs"}, `"./x.nwb"`, `"` + abs + `"`},
	} {
		code, _, stderr := lindi(append(append([]string{"index"}, tc.flags...), src)...)
		if code != 0 {
			t.Fatalf("index %v: exit %d: %s", tc.flags, code, stderr)
		}
		b, err := os.ReadFile(src + ".lindi.json")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) || strings.Contains(string(b), tc.not) {
			t.Errorf("index %v: refs should name %s, not %s", tc.flags, tc.want, tc.not)
		}
	}
}
