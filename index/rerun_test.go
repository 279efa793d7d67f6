package index

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWriteFileRerun checks that indexing again leaves the output untouched
// when only the creation date would change, and rewrites it otherwise.
func TestWriteFileRerun(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "t.lindi.json")
	src := "../testdata/nwb/tables.nwb"
	if err := WriteFile(ctx, src, out); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(out)
	// As if written at another time: another creation date, another mtime.
	first = creationDate.ReplaceAll(first, []byte(`    "creationDate": "2001-01-01T00:00:00Z"`))
	if err := os.WriteFile(out, first, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(out, old, old); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(ctx, src, out); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(out)
	again, _ := os.ReadFile(out)
	if !st.ModTime().Equal(old) || !bytes.Equal(first, again) {
		t.Errorf("a rerun rewrote the output (modified %v)", st.ModTime())
	}
	if err := WriteFile(ctx, src, out, WithTool("other")); err != nil {
		t.Fatal(err)
	}
	if changed, _ := os.ReadFile(out); bytes.Equal(changed, first) {
		t.Error("a different document did not replace the output")
	}
}
