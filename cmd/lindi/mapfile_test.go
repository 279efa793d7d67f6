package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	for _, content := range [][]byte{nil, []byte("x"), bytes.Repeat([]byte("lindi"), 10000)} {
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, content, 0o644); err != nil {
			t.Fatal(err)
		}
		b, release, err := mapFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, content) {
			t.Errorf("%d bytes mapped as %d", len(content), len(b))
		}
		if len(b) > 0 {
			b[0] = '!' // private: the file keeps its bytes
		}
		if err := release(); err != nil {
			t.Fatal(err)
		}
		if after, _ := os.ReadFile(name); !bytes.Equal(after, content) {
			t.Errorf("writing to the mapping changed the file")
		}
	}
	if _, _, err := mapFile(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
