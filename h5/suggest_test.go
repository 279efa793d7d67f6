package h5

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotFoundSuggests: a typo in any component of a path names the group
// and the closest members, in every form.
func TestNotFoundSuggests(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture.lindi.json", "fixture.lindi.tar", "fixture.lindi.d"} {
		f, err := Open(ctx, filepath.Join("..", "testdata", "conformance", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ path, want string }{
			{"acquisition/ElectricalSeries/dat", `"/acquisition/ElectricalSeries/dat" in group /acquisition/ElectricalSeries (did you mean "data"?)`},
			{"acquisiton/ElectricalSeries/data", `no member "acquisiton" in / (did you mean "acquisition"?)`},
			{"/Acquisition", `(did you mean "acquisition"?)`},
			{"zzz", `"/zzz" in group / (members: "acquisition", `},
		} {
			_, err := f.Get(ctx, tc.path)
			if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %s: %v, want %q", name, tc.path, err, tc.want)
			}
		}
		f.Close()
	}
}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string
		want  string
	}{
		{"dat", []string{"data", "timestamps"}, ` (did you mean "data"?)`},
		{"tmestamps", []string{"data", "timestamps"}, ` (did you mean "timestamps"?)`},
		{"x", []string{"a", "b"}, ` (did you mean "a" or "b"?)`},
		{"qqqqqq", nil, ""},
		{"qqqqqq", []string{"alpha", "beta"}, ` (members: "alpha", "beta")`},
		{"qqqqqq", strings.Fields("a1 a2 a3 a4 a5 a6 a7 a8 a9"), ""},
	} {
		if got := suggest(tc.name, tc.names); got != tc.want {
			t.Errorf("suggest(%q, %q) = %q, want %q", tc.name, tc.names, got, tc.want)
		}
	}
}

// TestOpenNotAFile: a text file or a plain directory is named as neither
// HDF5, LINDI nor Zarr, with one "h5: " prefix.
func TestOpenNotAFile(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{text, dir} {
		_, err := Open(context.Background(), name)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not an HDF5, LINDI or Zarr file") || strings.Count(err.Error(), "h5: ") != 1 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
