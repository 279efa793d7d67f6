package lindi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/internal/driver"
)

// rewritten makes a container whose blobs were rewritten rounds times:
// most of its bytes are dead. It returns the path and the live bytes.
func rewritten(t *testing.T, name string, rounds int) (string, int64) {
	t.Helper()
	s, p := create(t, name)
	defer s.Close()
	var live int64
	for r := range rounds {
		refs := map[string]json.RawMessage{}
		live = 0
		for i, k := range []string{"a/0", "a/1", "b/0"} {
			data := bytes.Repeat([]byte{byte(r + i)}, 5000+i)
			ref, err := s.Blob(ctx, k, data)
			if err != nil {
				t.Fatal(err)
			}
			refs[k] = ref
			live += int64(len(data))
		}
		// a sub-range of a member, and a member named by a template
		refs["c/0"] = json.RawMessage(strings.Replace(string(refs["a/0"]), "0, 5000]", "100, 200]", 1))
		var b []any
		json.Unmarshal(refs["b/0"], &b)
		refs["t/0"] = json.RawMessage(`["{{u1}}", 0, 10]`) // b/0's member, named only through the template
		delete(refs, "b/0")
		doc := bytes.Replace(docWith(refs), []byte("{\n"), []byte(`{"templates": {"u1": "`+b[0].(string)+`"},`), 1)
		if err := s.Commit(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	return p, live
}

func TestCompact(t *testing.T) {
	for _, name := range []string{"x.lindi.tar", "x.lindi.d"} {
		for _, inPlace := range []bool{true, false} {
			t.Run(name+map[bool]string{true: " in place", false: " to a new file"}[inPlace], func(t *testing.T) {
				p, live := rewritten(t, name, 20)
				want := mustState(t, p)
				before := usage(t, p)
				dst := p
				if !inPlace {
					dst = filepath.Join(t.TempDir(), "y"+filepath.Ext(p))
				}
				if err := Compact(ctx, p, dst); err != nil {
					t.Fatal(err)
				}
				got := mustState(t, dst)
				if !bytes.Equal(got.doc, want.doc) || len(got.chunks) != len(want.chunks) {
					t.Fatalf("compaction changed the document or its chunks")
				}
				for k, v := range want.chunks {
					if !bytes.Equal(got.chunks[k], v) {
						t.Errorf("%s reads back differently", k)
					}
				}
				after := usage(t, dst)
				// The live bytes, their headers and padding, lindi.json
				// and the index with their room to grow, the entry.
				if limit := live + 3*1024 + 2*8192 + 8192 + 4096; after > limit {
					t.Errorf("compacted to %d bytes (from %d); the live ones are %d", after, before, live)
				}
				t.Logf("%d bytes → %d (%d live)", before, after, live)
				if name == "x.lindi.tar" {
					checkTail(t, dst)
					checkTarList(t, dst)
				}
				// A writer goes on from the compacted file.
				s, _, err := driver.ContainerFor(Containers(), dst).OpenSink(ctx, dst)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := s.Blob(ctx, "a/0", make([]byte, 3000))
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref})); err != nil {
					t.Fatal(err)
				}
				s.Close()
				mustState(t, dst)
			})
		}
	}
}

// usage is the bytes of the file, or of the files under the directory, p.
func usage(t *testing.T, p string) int64 {
	t.Helper()
	var n int64
	filepath.WalkDir(p, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			st, _ := d.Info()
			n += st.Size()
		}
		return err
	})
	return n
}

func TestCompactRefuses(t *testing.T) {
	p, _ := rewritten(t, "x.lindi.tar", 2)
	s, _, err := TarContainer{}.OpenSink(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := Compact(ctx, p, p); !errors.Is(err, ErrLocked) {
		t.Errorf("compacting a file being written: %v, want ErrLocked", err)
	}
	s.Close()
	other, _ := rewritten(t, "y.lindi.tar", 1)
	if err := Compact(ctx, p, other); !errors.Is(err, fs.ErrExist) {
		t.Errorf("compacting over another file: %v, want fs.ErrExist", err)
	}
	if err := Compact(ctx, p+".none", p+".new"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("compacting a missing file: %v, want fs.ErrNotExist", err)
	}
	// A document with "gen" refs, which compaction cannot follow.
	s, doc, err := TarContainer{}.OpenSink(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	gen := bytes.Replace(doc, []byte(`{`), []byte(`{"gen": [], `), 1)
	if err := s.Commit(ctx, gen); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := Compact(ctx, other, other); err == nil || !strings.Contains(err.Error(), "gen") {
		t.Errorf("compacting a document with gen refs: %v", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Error(err)
	}
}
