package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/index"
)

// TestIndexShard indexes a list of sources in two shares, as two tasks of a
// job array would: each writes its sources' outputs and manifest, a missing
// source fails its task (exit 1) after the others are written, and the
// outputs are those of indexing each source alone.
func TestIndexShard(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/conformance/fixture.h5")
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for _, name := range []string{"a.nwb", "b.nwb", "c.nwb"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, p)
	}
	srcs = append(srcs, filepath.Join(dir, "missing.nwb"))
	list := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(list, []byte("# sources\n"+strings.Join(srcs[1:], "\n")+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines []index.ManifestEntry
	for i, wantCode := range []int{0, 1} { // share 1 holds b.nwb and missing.nwb
		m := filepath.Join(dir, "manifest"+string(rune('0'+i)))
		code, stdout, stderr := lindi("index", "--shard", []string{"0/2", "1/2"}[i], "--out-dir", out, "--manifest", m, "--list", list, srcs[0])
		if code != wantCode {
			t.Fatalf("share %d: exit %d, stdout %q, stderr %q", i, code, stdout, stderr)
		}
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var e index.ManifestEntry
			if err := json.Unmarshal(l, &e); err != nil {
				t.Fatalf("manifest line %s: %v", l, err)
			}
			lines = append(lines, e)
		}
	}
	var got []string
	for _, e := range lines {
		got = append(got, filepath.Base(e.Source))
		wantOut := filepath.Join(out, filepath.Base(e.Source)+".lindi.json")
		if e.Output != wantOut {
			t.Errorf("%s: output %s, want %s", e.Source, e.Output, wantOut)
		}
		if (e.Error != nil) != strings.HasPrefix(filepath.Base(e.Source), "missing") {
			t.Errorf("%s: error %v", e.Source, e.Error)
		}
		if e.Error != nil {
			continue
		}
		alone := filepath.Join(dir, "alone.json")
		if code, _, stderr := lindi("index", "-o", alone, e.Source); code != 0 {
			t.Fatal(stderr)
		}
		a, _ := os.ReadFile(alone)
		b, _ := os.ReadFile(e.Output)
		if !bytes.Equal(creationless(a), creationless(b)) {
			t.Errorf("%s: the shard's output differs from indexing it alone", e.Source)
		}
	}
	if want := []string{"a.nwb", "c.nwb", "b.nwb", "missing.nwb"}; !slices.Equal(got, want) {
		t.Errorf("manifests list %v, want %v", got, want)
	}
	for _, bad := range [][]string{
		{"--shard", "2/2", srcs[0]},
		{"--shard", "1", srcs[0]},
		{"--out-dir", out, srcs[0], filepath.Join(dir, "x", "a.nwb")}, // two outputs out/a.nwb.lindi.json
		{"-o", "x.json", srcs[0], srcs[1]},
	} {
		if code, _, stderr := lindi(append([]string{"index"}, bad...)...); code != 2 {
			t.Errorf("index %v: exit %d, stderr %q", bad, code, stderr)
		}
	}
}

// creationless drops the line holding the creation date.
func creationless(doc []byte) []byte {
	var keep [][]byte
	for _, l := range bytes.Split(doc, []byte("\n")) {
		if !bytes.Contains(l, []byte(`"creationDate"`)) {
			keep = append(keep, l)
		}
	}
	return bytes.Join(keep, []byte("\n"))
}
