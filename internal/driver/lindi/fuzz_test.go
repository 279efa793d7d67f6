package lindi

import (
	"encoding/json"
	"os"
	"testing"
)

// FuzzIndex feeds the entry and index parsers arbitrary bytes, seeded with
// those of the conformance tar: they must never panic, and what they accept
// must lie within the tar.
func FuzzIndex(f *testing.F) {
	data, err := os.ReadFile("../../../testdata/conformance/fixture.lindi.tar")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[entryOff:entryOff+entrySize], data[2048:2048+8192], int64(len(data)))
	f.Add([]byte(`{"index": {"n": ".tar_index.json", "d": -1, "s": 1}}`), []byte(`{"files": [{"n": "a", "d": 1, "s": 9223372036854775807}]}`), int64(10))
	f.Fuzz(func(t *testing.T, entry, index []byte, size int64) {
		if size < 0 {
			return
		}
		if s, err := parseEntry(entry); err == nil && (s.off < 0 || s.size < 0) {
			t.Fatalf("entry accepted a negative span %+v", s)
		}
		members, err := parseIndex(index, size)
		if err != nil {
			return
		}
		for name, s := range members {
			if s.off < 0 || s.size < 0 || s.off+s.size > size {
				t.Fatalf("member %q at %+v is outside %d bytes", name, s, size)
			}
		}
		if !json.Valid(trimPadding(index)) {
			t.Fatalf("accepted an index that is not JSON")
		}
	})
}
