package index

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteManifest: one JSON line per entry in order, error null on
// success, nothing left beside the manifest, and a missing directory is an
// error naming the manifest.
func TestWriteManifest(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "m.jsonl")
	msg := "open b.nwb: no such file"
	entries := []ManifestEntry{{Source: "a.nwb", Output: "a.nwb.lindi.json"}, {Source: "b.nwb", Output: "b.nwb.lindi.json", Error: &msg}}
	if err := WriteManifest(name, entries); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"source":"a.nwb","output":"a.nwb.lindi.json","error":null}` + "\n" +
		`{"source":"b.nwb","output":"b.nwb.lindi.json","error":"open b.nwb: no such file"}` + "\n"
	if string(b) != want {
		t.Fatalf("manifest:\n%s\nwant:\n%s", b, want)
	}
	var e ManifestEntry
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &e); err != nil || e.Error != nil {
		t.Fatalf("first line reads as %+v, %v", e, err)
	}
	if all, _ := os.ReadDir(dir); len(all) != 1 {
		t.Fatalf("left beside the manifest: %v", all)
	}
	err = WriteManifest(filepath.Join(dir, "missing", "m.jsonl"), entries)
	if err == nil || !strings.Contains(err.Error(), "m.jsonl") {
		t.Fatalf("missing directory: %v", err)
	}
}
