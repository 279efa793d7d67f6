package store

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestKerchunkGen expands "gen" entries by kerchunk's spec: the example of
// its documentation (a range with an arithmetic offset and a template in the
// url), a product of a list and a range, and a generated ref replacing an
// explicit one, as fsspec does.
func TestKerchunkGen(t *testing.T) {
	doc := `{"version": 1,
	"templates": {"u": "server.domain/path", "f": "{{c}}"},
	"gen": [
		{"key": "gen_key{{i}}", "url": "http://{{u}}_{{i}}", "offset": "{{(i + 1) * 1000}}", "length": "1000",
		 "dimensions": {"i": {"stop": 5}}},
		{"key": "a/{{ t }}.{{ j }}", "url": "./{{t}}.bin", "offset": "{{ j * 8 - -2 // 3 }}", "length": 8,
		 "dimensions": {"t": ["x", "y"], "j": {"start": 1, "stop": 7, "step": 3}}},
		{"key": "whole{{k}}", "url": "https://h/{{ 'f' + u }}", "dimensions": {"k": [7]}}
	],
	"refs": {"gen_key0": "base64:AA==", "kept": "base64:AQ=="}}`
	s, err := ParseLINDI("/d/f.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Value{
		"gen_key0": {URL: "http://server.domain/path_0", Off: 1000, Len: 1000},
		"gen_key4": {URL: "http://server.domain/path_4", Off: 5000, Len: 1000},
		"a/x.1":    {URL: "/d/x.bin", Off: 9, Len: 8}, // 1*8 - (-2 // 3) = 8 - (-1), floored
		"a/y.4":    {URL: "/d/y.bin", Off: 33, Len: 8},
		"whole7":   {URL: "https://h/fserver.domain/path", Len: -1},
		"kept":     {Data: []byte{1}},
	}
	for key, w := range want {
		got, err := s.Get(ctx, key)
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %+v, want %+v", key, got, w)
		}
	}
	for _, key := range []string{"gen_key5", "a/x.7", "a/z.1"} {
		if _, err := s.Get(ctx, key); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: got %v, want ErrNotFound", key, err)
		}
	}
}

// TestRefDefinitionsRefused: a document whose refs this reader cannot
// expand fails to open, saying why, rather than reading its keys as missing.
func TestRefDefinitionsRefused(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"jinja filter", `{"refs": {}, "gen": [{"key": "k{{i|string}}", "url": "u", "dimensions": {"i": [1]}}]}`, "not supported"},
		{"offset alone", `{"refs": {}, "gen": [{"key": "k{{i}}", "url": "u", "offset": "1", "dimensions": {"i": [1]}}]}`, "offset"},
		{"undefined name", `{"refs": {}, "gen": [{"key": "k{{j}}", "url": "u", "dimensions": {"i": [1]}}]}`, `"j"`},
		{"no stop", `{"refs": {}, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"start": 1}}}]}`, "stop"},
		{"zero step", `{"refs": {}, "gen": [{"key": "k{{i}}", "url": "u", "dimensions": {"i": {"stop": 3, "step": 0}}}]}`, "step"},
		{"huge product", `{"refs": {}, "gen": [{"key": "k{{i}}{{j}}", "url": "u", "dimensions": {"i": {"stop": 100000}, "j": {"stop": 100000}}}]}`, "more than"},
		{"non-integer offset", `{"refs": {}, "gen": [{"key": "k{{i}}", "url": "u", "offset": "{{'a'}}", "length": "1", "dimensions": {"i": [1]}}]}`, "not an integer"},
		{"parquet", `{"refs": {}, "record_size": 10000}`, "parquet"},
		{"unknown member", `{"refs": {}, "extra_refs": {"a/0": ["x"]}}`, `"extra_refs"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLINDI("/d/f.json", []byte(tc.doc))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want ErrFormat naming %s", err, tc.want)
			}
		})
	}
}

// FuzzGen checks that no gen entry makes ParseLINDI panic or run away.
func FuzzGen(f *testing.F) {
	f.Add(`[{"key": "k{{i}}", "url": "u{{ (i + 1) * 3 // 2 - -i % 4 }}", "offset": "{{i*8}}", "length": 8, "dimensions": {"i": {"stop": 3}}}]`)
	f.Add(`[{"key": "{{ 'a' + t }}", "url": "x", "dimensions": {"t": ["p", "q"], "j": [1, 2]}}]`)
	f.Add(`[{"key": "{{((((", "url": "x", "dimensions": {"i": {"start": 5, "stop": -5, "step": -3}}}]`)
	f.Fuzz(func(t *testing.T, gen string) {
		ParseLINDI("/d/f.json", []byte(`{"refs": {}, "gen": `+gen+`}`))
	})
}
