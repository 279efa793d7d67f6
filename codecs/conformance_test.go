package codecs

import (
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestZarrFixture decodes every chunk of every array in the conformance
// Zarr store through the pipeline of its .zarray: each must be exactly one
// chunk of its dtype. (Values are checked end to end by the read engine.)
func TestZarrFixture(t *testing.T) {
	root := "../testdata/conformance/fixture.zarr"
	var metas []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == ".zarray" {
			metas = append(metas, path)
		}
		return err
	})
	if err != nil || len(metas) == 0 {
		t.Fatalf("no arrays under %s: %v", root, err)
	}
	for _, meta := range metas {
		dir := filepath.Dir(meta)
		name, _ := filepath.Rel(root, dir)
		t.Run(name, func(t *testing.T) {
			var z struct {
				Chunks     []int             `json:"chunks"`
				DType      string            `json:"dtype"`
				Compressor json.RawMessage   `json:"compressor"`
				Filters    []json.RawMessage `json:"filters"`
				Separator  string            `json:"dimension_separator"`
			}
			if err := json.Unmarshal(readFile(t, meta), &z); err != nil {
				t.Fatal(err)
			}
			var filters [][]byte
			for _, f := range z.Filters {
				filters = append(filters, f)
			}
			p, err := Builtin().Pipeline(z.Compressor, filters)
			if err != nil {
				t.Fatal(err)
			}
			size, err := strconv.Atoi(z.DType[2:])
			if err != nil {
				t.Fatalf("dtype %s", z.DType)
			}
			for _, c := range z.Chunks {
				size *= c
			}
			chunks := chunkFiles(t, dir, z.Separator)
			if len(chunks) == 0 {
				t.Fatal("no chunks")
			}
			for _, c := range chunks {
				got, err := p.Decode(nil, readFile(t, c), size)
				if err != nil {
					t.Fatalf("chunk %s: %v", c, err)
				}
				if len(got) != size {
					t.Fatalf("chunk %s: %d bytes, want %d", c, len(got), size)
				}
			}
		})
	}
}

// chunkFiles lists the chunk files of an array directory.
func chunkFiles(t *testing.T, dir, sep string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if sep != "/" && strings.Contains(rel, string(os.PathSeparator)) {
			return nil // a nested array's chunk
		}
		out = append(out, path)
		return nil
	})
	return out
}

// TestLINDIObjects decodes the inline object-array chunks of the LINDI
// fixture (json2 behind a blosc compressor) into items.
func TestLINDIObjects(t *testing.T) {
	var doc struct {
		Refs map[string]any `json:"refs"`
	}
	if err := json.Unmarshal(readFile(t, "../testdata/conformance/fixture.lindi.json"), &doc); err != nil {
		t.Fatal(err)
	}
	found := 0
	for key, v := range doc.Refs {
		if !strings.HasSuffix(key, "/.zarray") {
			continue
		}
		var z struct {
			Chunks     []int             `json:"chunks"`
			DType      string            `json:"dtype"`
			Compressor json.RawMessage   `json:"compressor"`
			Filters    []json.RawMessage `json:"filters"`
		}
		if err := json.Unmarshal(refJSON(t, v), &z); err != nil || z.DType != "|O" {
			continue
		}
		array := strings.TrimSuffix(key, "/.zarray")
		t.Run(array, func(t *testing.T) {
			var filters [][]byte
			for _, f := range z.Filters {
				filters = append(filters, f)
			}
			p, err := Builtin().Pipeline(z.Compressor, filters)
			if err != nil {
				t.Fatal(err)
			}
			n := 1
			for _, c := range z.Chunks {
				n *= c
			}
			zeros := make([]string, len(z.Chunks))
			for i := range zeros {
				zeros[i] = "0"
			}
			ref, ok := doc.Refs[array+"/"+strings.Join(zeros, ".")].(string)
			if !ok {
				t.Fatal("first chunk is not inline")
			}
			items, err := p.DecodeObjects(inlineBytes(t, ref), n)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != n {
				t.Fatalf("%d items, want %d", len(items), n)
			}
		})
		found++
	}
	if found == 0 {
		t.Fatal("no object arrays in the fixture")
	}
}

// refJSON returns a metadata ref as JSON text (refs hold objects or strings).
func refJSON(t *testing.T, v any) []byte {
	t.Helper()
	if s, ok := v.(string); ok {
		return []byte(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// inlineBytes decodes a LINDI inline chunk: base64, or text whose code
// points are the bytes.
func inlineBytes(t *testing.T, ref string) []byte {
	t.Helper()
	if rest, ok := strings.CutPrefix(ref, "base64:"); ok {
		b, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var b []byte
	for _, r := range ref {
		b = append(b, byte(r))
	}
	return b
}
