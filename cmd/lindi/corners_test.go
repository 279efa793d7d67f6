package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCornersGolden checks what ls, info and cat show of the HDF5 corners of
// testdata/corners: null dataspaces, padded compounds, array members,
// committed datatypes and opaque data (testdata/corners-*.golden).
func TestCornersGolden(t *testing.T) {
	dir := "../../testdata/corners"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"ls-null", []string{"ls", "-a", filepath.Join(dir, "null.h5")}},
		{"cat-null", []string{"cat", filepath.Join(dir, "null.h5"), "null_i4"}},
		{"cat-null-json", []string{"cat", "-f", "json", filepath.Join(dir, "null.h5"), "null_compound"}},
		{"info-null", []string{"info", filepath.Join(dir, "null.h5"), "null_S5"}},
		{"ls-padded", []string{"ls", filepath.Join(dir, "padded.h5")}},
		{"cat-padded", []string{"cat", "-f", "json", filepath.Join(dir, "padded.h5"), "nested"}},
		{"info-arrayfields", []string{"info", filepath.Join(dir, "arrayfields.h5"), "strings"}},
		{"cat-arrayfields", []string{"cat", filepath.Join(dir, "arrayfields.h5"), "numbers"}},
		{"ls-committed", []string{"ls", "-r", "-a", filepath.Join(dir, "committed.h5")}},
		{"info-committed", []string{"info", filepath.Join(dir, "committed.h5"), "IntType"}},
		{"info-committed-user", []string{"info", filepath.Join(dir, "committed.h5"), "versions"}},
		{"cat-opaque", []string{"cat", filepath.Join(dir, "opaque.h5"), "tagged"}},
		{"cat-opaque-datetime", []string{"cat", filepath.Join(dir, "opaque.h5"), "dt_s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lindi(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden := filepath.Join("testdata", "corners-"+tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if stdout != string(want) {
				t.Errorf("output differs from %s:\n%s", golden, stdout)
			}
		})
	}
}
