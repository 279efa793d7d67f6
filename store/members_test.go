package store

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzRawMembers holds the refs scanner to encoding/json: on any valid
// document whose "refs" is an object, it finds the same members with the
// same raw values.
func FuzzRawMembers(f *testing.F) {
	f.Add([]byte(`{"version": 1, "refs": {".zgroup": {"zarr_format": 2}, "a/0": ["u", 1, 2], "b": "base64:AAA=", "c\u00e9\"": [1e3, -2, true, null]}}`))
	f.Add([]byte(`{"refs":{}}`))
	f.Add([]byte(` { "refs" : { "k" : "v\\\"}" , "x":{"y":[{"z":"]"}]} } , "templates": {} } `))
	f.Add([]byte(`{"refs": {"a": 1}, "refs": {"b": 2}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var top map[string]json.RawMessage
		if json.Unmarshal(doc, &top) != nil {
			return
		}
		var want map[string]json.RawMessage
		if json.Unmarshal(top["refs"], &want) != nil || want == nil {
			return
		}
		got, err := rawMembers(doc, doc)
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, encoding/json %d", doc, len(got), len(want))
		}
		for k, w := range want {
			if !bytes.Equal(got[k], w) {
				t.Fatalf("%q: member %q is %q, encoding/json %q", doc, k, got[k], w)
			}
		}
	})
}

// FuzzFastRange holds the hand parser of range refs to encoding/json: when
// it accepts a ref, the full parser reads the same URL, offset and length.
func FuzzFastRange(f *testing.F) {
	f.Add([]byte(`["{{u1}}", 26243692, 6000]`))
	f.Add([]byte(`[ "http://h/a b" ,0,1 ]`))
	f.Add([]byte(`["x", 01, 2]`))
	f.Add([]byte(`["\u0041", 1, 2]`))
	f.Add([]byte(`["x", 9223372036854775807, 1]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || raw[0] != '[' {
			return
		}
		u, v, ok := fastRange(raw)
		if !ok {
			return
		}
		su, sv, err := slowRange(raw)
		if err != nil {
			t.Fatalf("%q: fast parse %q %d %d, encoding/json: %v", raw, u, v.Off, v.Len, err)
		}
		if su != u || sv.Off != v.Off || sv.Len != v.Len {
			t.Fatalf("%q: fast parse %q %d %d, encoding/json %q %d %d", raw, u, v.Off, v.Len, su, sv.Off, sv.Len)
		}
	})
}
