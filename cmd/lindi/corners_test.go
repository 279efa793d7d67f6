package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCornersGolden checks what ls, info and cat show of the HDF5 corners of
// testdata/corners: null dataspaces, padded compounds, array members,
// committed datatypes and opaque data (testdata/corners-*.golden).
func TestCornersGolden(t *testing.T) {
	dir := "../../testdata/corners"
	// The indexes of the families whose forms LINDI lacks: they must show
	// as the HDF5 files do.
	idx := t.TempDir()
	for _, fam := range []string{"committed", "opaque"} {
		b, err := os.ReadFile(filepath.Join(dir, fam+".h5"))
		if err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(idx, fam+".h5")
		if err := os.WriteFile(src, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := lindi("index", src); code != 0 {
			t.Fatalf("index %s: exit %d: %s", fam, code, stderr)
		}
	}
	committedIndex, opaqueIndex := filepath.Join(idx, "committed.h5.lindi.json"), filepath.Join(idx, "opaque.h5.lindi.json")
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
		{"info-committed-enum", []string{"info", filepath.Join(dir, "committed.h5"), "EnumType"}},
		{"info-committed-enum", []string{"info", committedIndex, "EnumType"}},
		{"info-committed-enum-user", []string{"info", filepath.Join(dir, "committed.h5"), "colors"}},
		{"ls-committed-index", []string{"ls", "-r", "-a", committedIndex}},
		{"info-committed-user-index", []string{"info", committedIndex, "plain"}},
		{"ls-opaque", []string{"ls", "-a", filepath.Join(dir, "opaque.h5")}},
		{"ls-opaque-index", []string{"ls", "-a", opaqueIndex}},
		{"info-opaque-attrs", []string{"info", filepath.Join(dir, "opaque.h5"), "dt_s"}},
		{"info-opaque-attrs-index", []string{"info", opaqueIndex, "dt_s"}},
		{"cat-opaque-attr", []string{"cat", filepath.Join(dir, "opaque.h5"), "void4@stamp"}},
		{"cat-opaque-attr", []string{"cat", opaqueIndex, "void4@stamp"}},
		{"cat-opaque-attr-json", []string{"cat", "-f", "json", opaqueIndex, "void4@deltas"}},
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

// TestCornersInfoCat: info and cat work on every dataset of the families of
// issue 39 (compounds with variable-length members, opaque types h5py tagged
// with a numpy dtype, the bitshuffle, LZ4 and scale-offset filters), from the
// HDF5 file and from its index, and the tagged opaque types read as h5py
// reads them.
func TestCornersInfoCat(t *testing.T) {
	dir := t.TempDir()
	sets := map[string][]string{
		"vlencompound": {"alone", "mixed", "arrays", "padded", "chunked", "scalar", "unwritten"},
		"tagged":       {"s21", "i4", "s4_scalar"},
		"filters":      {"bitshuffle_i2", "bitshuffle_lz4_f4", "bitshuffle_blocks_u8", "lz4_i2", "lz4_blocks_u8", "lz4_shuffle"},
		"scaleoffset":  {"int8_auto", "uint64_be", "int16_fill", "float32_d3", "float64_nofill", "int16_linked", "float32_linked"},
	}
	for fam, names := range sets {
		b, err := os.ReadFile(filepath.Join("../../testdata/corners", fam+".h5"))
		if err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(dir, fam+".h5")
		if err := os.WriteFile(src, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := lindi("index", src); code != 0 {
			t.Fatalf("index %s: exit %d: %s", fam, code, stderr)
		}
		for _, file := range []string{src, src + ".lindi.json"} {
			for _, name := range names {
				for _, cmd := range []string{"info", "cat"} {
					if code, _, stderr := lindi(cmd, file, name); code != 0 {
						t.Errorf("%s %s %s: exit %d: %s", cmd, filepath.Base(file), name, code, stderr)
					}
				}
			}
			if code, out, _ := lindi("cat", file, "s21"); fam == "tagged" && (code != 0 || !strings.Contains(out, `"world of strings"`)) {
				t.Errorf("cat %s s21: exit %d:\n%s", filepath.Base(file), code, out)
			}
		}
	}
}
