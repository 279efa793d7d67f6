package index_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/index"
)

// TestSizeAgainstPythonLindi: the index of a pynwb-written file is no
// larger than Python lindi's (testdata/pylindi_sizes.json, measured by
// pylindi_sizes.py), nor is any inline chunk in it, counted with the
// compressor that decodes it: the cached NWB
// specification, scalar strings stored as UTF-32, made lindi-go's index of
// such a file 9 times Python lindi's while inlined raw.
func TestSizeAgainstPythonLindi(t *testing.T) {
	var want struct {
		Files map[string]struct {
			Size   int64          `json:"size"`
			Inline map[string]int `json:"inline"`
		} `json:"files"`
	}
	b, err := os.ReadFile("testdata/pylindi_sizes.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Files) == 0 {
		t.Fatal("no files measured")
	}
	for name, py := range want.Files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.lindi.json")
			// The refs name the file by the path Python lindi's did.
			if err := index.WriteFile(ctx, filepath.Join("..", name), out, index.WithURL(name)); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: lindi-go %d bytes, Python lindi %d bytes (%.2f×)", name, st.Size(), py.Size, float64(st.Size())/float64(py.Size))
			if st.Size() > py.Size {
				t.Errorf("%d bytes, more than Python lindi's %d", st.Size(), py.Size)
			}
			var doc struct {
				Refs map[string]json.RawMessage `json:"refs"`
			}
			data, _ := os.ReadFile(out)
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			compared := 0
			for key, pyLen := range py.Inline {
				var s string
				if json.Unmarshal(doc.Refs[key], &s) != nil {
					continue // not inline here
				}
				var zarray struct {
					Compressor json.RawMessage `json:"compressor"`
				}
				if err := json.Unmarshal(doc.Refs[path.Dir(key)+"/.zarray"], &zarray); err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				var c bytes.Buffer
				json.Compact(&c, zarray.Compressor)
				compared++
				if n := pyJSONLen(s) + c.Len(); n > pyLen {
					t.Errorf("inline chunk %s: %d bytes of JSON with its compressor, Python lindi's %d", key, n, pyLen)
				}
			}
			if compared < len(py.Inline)/2 {
				t.Errorf("only %d of Python lindi's %d inline chunks are inline here", compared, len(py.Inline))
			}
		})
	}
}

// pyJSONLen is the length of s as Python's json.dumps writes it (ASCII
// only: non-ASCII and control characters as \uXXXX but for the short
// escapes).
func pyJSONLen(s string) int {
	n := 2
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
			n += 2
		case r < 0x20 || r >= 0x7f && r < 0x10000:
			n += 6
		case r >= 0x10000:
			n += 12
		default:
			n++
		}
	}
	return n
}
