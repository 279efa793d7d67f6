package nwb

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestAmendSmall: an amendment adding one 24-row table to a pynwb-written
// session stays small. Python lindi's padding rule (lindi.json padded to
// four times its size, in doublings of 8 KiB) made such an amendment of a
// real session 16.8 MB; the room left for growth is now at most a quarter
// of lindi.json or 64 KiB.
func TestAmendSmall(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "a.lindi.tar")
	a, err := Amend(ctx, "../testdata/nwbzarr/ecephys.nwb", out)
	if err != nil {
		t.Fatal(err)
	}
	proc, err := a.Processing(ctx, "analysis24", "one small table")
	if err != nil {
		t.Fatal(err)
	}
	ids, rate := make([]int64, 24), make([]float64, 24)
	for i := range ids {
		ids[i], rate[i] = int64(i), float64(i)*0.5
	}
	if _, err := proc.AddTable(ctx, "rates", TableSpec{Description: "mean rates", IDs: ids, Columns: []ColumnSpec{NewColumn("mean_rate", "Hz", rate)}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc := docSize(t, out)
	t.Logf("amendment %d bytes, its lindi.json %d", st.Size(), doc)
	if limit := doc + doc/4 + 64<<10 + 32<<10; st.Size() > limit {
		t.Errorf("amendment of %d bytes for a lindi.json of %d: more than %d", st.Size(), doc, limit)
	}
}

// docSize is the length of the last lindi.json in the tar out, without its
// padding.
func docSize(t *testing.T, out string) int64 {
	t.Helper()
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	tr := tar.NewReader(fh)
	n := int64(-1)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == "lindi.json" {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			n = int64(len(bytes.TrimRight(b, " ")))
		}
	}
	if n < 0 {
		t.Fatal("no lindi.json in the tar")
	}
	return n
}

// TestAmendLeavesNothing: a discarded amendment leaves no file, and a new
// Amend of the same output removes what a killed one left (a staged
// container named by a process that is gone), not another live writer's.
func TestAmendLeavesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	out := filepath.Join(dir, "a.lindi.tar")
	a, err := Amend(ctx, amendSource, out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Processing(ctx, "p", "d"); err != nil {
		t.Fatal(err)
	}
	if err := a.Discard(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Discard left %v", ents)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, ".a.lindi.tar.tmp-"+strconv.Itoa(cmd.Process.Pid)+"-abcdefghij")
	if err := os.WriteFile(stale, []byte("left by a killed amendment"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	os.Chtimes(stale, old, old)
	live, err := Amend(ctx, amendSource, out) // stays open: its stage is a live writer's
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the killed amendment's file is still there (%v)", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.Chtimes(filepath.Join(dir, e.Name()), old, old)
	}
	b, err := Amend(ctx, amendSource, out)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadDir(dir); len(after) != len(ents)+1 {
		t.Errorf("a live amendment's stage was removed: %d entries, want %d", len(after), len(ents)+1)
	}
	b.Discard()
}
