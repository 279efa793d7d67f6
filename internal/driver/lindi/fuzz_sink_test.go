package lindi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRecords feeds the index parser arbitrary bytes: it must never panic,
// what it accepts lies within the tar, and the index written for what it
// accepted (Python's formatting, its escapes) parses back the same.
func FuzzRecords(f *testing.F) {
	for _, p := range []string{"testdata/interop/python-empty.lindi.tar", "testdata/interop/python-trashed.lindi.tar"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[2048:2048+8192], int64(len(data)))
	}
	f.Add([]byte(`{"files": [{"n": "a\u00e9\ud83d\ude00\"\\\n\u0001", "o": 0, "d": 512, "s": 1}, {"n": "a", "o": 0, "d": 512, "s": 2}]}`), int64(2000))
	f.Fuzz(func(t *testing.T, index []byte, size int64) {
		if size < 0 {
			return
		}
		recs, err := parseRecords(index, size)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.d < 0 || r.s < 0 || r.d+r.s > size || r.o+block > r.d {
				t.Fatalf("accepted %+v in %d bytes", r, size)
			}
		}
		again, err := parseRecords(indexJSON(recs), size)
		if err != nil {
			t.Fatalf("the index written for %v does not parse: %v\n%s", recs, err, indexJSON(recs))
		}
		if len(again) != len(recs) {
			t.Fatalf("%d records written, %d read back", len(recs), len(again))
		}
		for i := range recs {
			if again[i] != recs[i] {
				t.Fatalf("record %+v reads back as %+v", recs[i], again[i])
			}
		}
	})
}

// FuzzOpenSink opens arbitrary files as tars to amend: OpenSink must never
// panic, and a tar it accepts is left ending as Python lindi needs, at the
// same state, and takes a commit.
func FuzzOpenSink(f *testing.F) {
	for _, p := range []string{"testdata/interop/python-empty.lindi.tar", "testdata/interop/python-trashed.lindi.tar"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)-700])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.lindi.tar")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, doc, err := TarContainer{}.OpenSink(ctx, p)
		if err != nil {
			return
		}
		defer s.Close()
		checkTail(t, p)
		g, _ := os.Open(p)
		_, again, err := readCommitted(g)
		g.Close()
		if err != nil || !bytes.Equal(again, doc) {
			t.Fatalf("after the repair: %v, or another document", err)
		}
		ref, err := s.Blob(ctx, "z/0", make([]byte, 1000))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, docWith(map[string]json.RawMessage{"z/0": ref})); err != nil {
			t.Fatal(err)
		}
		if st := mustState(t, p); len(st.chunks["z/0"]) != 1000 {
			t.Fatal("the commit does not read back")
		}
	})
}
