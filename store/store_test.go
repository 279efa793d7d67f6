package store

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

var ctx = context.Background()

func TestLINDIRefs(t *testing.T) {
	doc := `{"version": 1, "templates": {"u": "./data.h5", "h": "https://example.org/x.h5"},
	"refs": {
		".zgroup": {"zarr_format": 2},
		"a/.zarray": {"shape": [2]},
		"a/0": "base64:AAECAw==",
		"a/1": "\u0000\u00ff\u0041",
		"a/2": ["{{u}}", 10, 20],
		"a/3": ["{{h}}", 0, 5],
		"a/4": ["other.h5"],
		"b/c/.zattrs": {"k": NaN},
		"bad/1": "\u0100",
		"bad/2": ["{{nope}}", 0, 1],
		"bad/3": ["x", -1, 1],
		"bad/4": [1, 2, 3],
		"bad/5": 17,
		"bad/6": ["gs://bucket/x", 0, 1],
		"bad/7": "base64:!!"
	}}`
	s, err := ParseLINDI("/data/dir/f.lindi.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  string
		want Value
	}{
		{".zgroup", Value{Data: []byte(`{"zarr_format": 2}`)}},
		{"a/0", Value{Data: []byte{0, 1, 2, 3}}},
		{"a/1", Value{Data: []byte{0, 0xff, 'A'}}},
		{"a/2", Value{URL: "/data/dir/data.h5", Off: 10, Len: 20}},
		{"a/3", Value{URL: "https://example.org/x.h5", Off: 0, Len: 5}},
		{"a/4", Value{URL: "/data/dir/other.h5", Len: -1}},
		{"b/c/.zattrs", Value{Data: []byte(`{"k": NaN}`)}},
	} {
		t.Run(tc.key, func(t *testing.T) {
			got, err := s.Get(ctx, tc.key)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	for _, key := range []string{"bad/1", "bad/2", "bad/3", "bad/4", "bad/5", "bad/6", "bad/7"} {
		t.Run(key, func(t *testing.T) {
			_, err := s.Get(ctx, key)
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("got %v, want ErrFormat", err)
			}
		})
	}
	if _, err := s.Get(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing key: got %v", err)
	}
	if got, _ := s.List(ctx, ""); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("List(\"\") = %v", got)
	}
	if got, _ := s.List(ctx, "b"); !reflect.DeepEqual(got, []string{"c"}) {
		t.Errorf("List(b) = %v", got)
	}
}

func TestLINDIRemoteBase(t *testing.T) {
	doc := `{"refs": {"a": ["./x.h5", 0, 1], "b": ["/abs.h5", 0, 1], "c": ["file:///etc/passwd", 0, 1], "d": ["/etc/passwd"]}}`
	s, err := ParseLINDI("https://host.org/dir/f.lindi.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"a": "https://host.org/dir/x.h5", "b": "https://host.org/abs.h5", "d": "https://host.org/etc/passwd"} {
		v, err := s.Get(ctx, key)
		if err != nil || v.URL != want {
			t.Errorf("%s: got %q, %v; want %q", key, v.URL, err, want)
		}
	}
	if _, err := s.Get(ctx, "c"); !errors.Is(err, ErrFormat) {
		t.Errorf("a remote document must not reach local files: got %v", err)
	}
}

func TestLINDIMalformed(t *testing.T) {
	for name, doc := range map[string]string{
		"not json":   `{"refs": `,
		"no refs":    `{"version": 1}`,
		"version 3":  `{"version": 3, "refs": {}}`,
		"refs array": `{"refs": []}`,
		// zarrshadow's chunk indexes come with its version 2 only, and
		// each names its file and its index array.
		"indexes in version 1": `{"version": 1, "refs": {}, "indexes": {"a": {"url": "x.h5", "index": "index/a"}}}`,
		"index without url":    `{"version": 2, "refs": {}, "indexes": {"a": {"index": "index/a"}}}`,
		"indexes not object":   `{"version": 2, "refs": {}, "indexes": [1]}`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseLINDI("f.json", []byte(doc)); !errors.Is(err, ErrFormat) {
				t.Fatalf("got %v, want ErrFormat", err)
			}
		})
	}
}

// TestChunkIndexes reads a zarrshadow version 2 document: its indexes are
// given as written, its sources taken, its v3 nodes listed.
func TestChunkIndexes(t *testing.T) {
	doc := `{"version": 2, "sources": {"x.h5": {"size": 10}},
		"refs": {"zarr.json": "{}", "acq/zarr.json": "{}", "acq/data/zarr.json": "{}", "acq/data/c/0/0": ["x.h5", 0, 4]},
		"indexes": {"acq/big": {"url": "x.h5", "index": "index/acq/big"}}}`
	s, err := ParseLINDI("/d/refs.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ChunkIndexRef{"acq/big": {URL: "x.h5", Index: "index/acq/big"}}
	if got := s.ChunkIndexes(); !maps.Equal(got, want) {
		t.Errorf("ChunkIndexes = %v, want %v", got, want)
	}
	if got, _ := s.List(ctx, "acq"); !slices.Equal(got, []string{"data"}) {
		t.Errorf("List(acq) = %v, want [data]", got)
	}
	if u, err := s.Resolve(want["acq/big"].Index); err != nil || u != "/d/index/acq/big" {
		t.Errorf("Resolve(index) = %q, %v", u, err)
	}
	plain, err := ParseLINDI("f.json", []byte(`{"refs": {}}`))
	if err != nil || plain.ChunkIndexes() != nil {
		t.Errorf("a document without indexes: %v, %v", plain.ChunkIndexes(), err)
	}
}

func TestLINDIFixture(t *testing.T) {
	data, err := os.ReadFile("../testdata/conformance/fixture.lindi.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseLINDI("../testdata/conformance/fixture.lindi.json", data)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.Get(ctx, "acquisition/ElectricalSeries/data/0.0")
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("../testdata/conformance/fixture.h5")
	if v.URL != abs || v.Off != 1256627 || v.Len != 26279 {
		t.Errorf("got %+v", v)
	}
	names, _ := s.List(ctx, "")
	want := []string{"acquisition", "file_create_date", "general", "identifier", "misc", "processing", "session_description", "units"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("root members %v, want %v", names, want)
	}
}

func TestDir(t *testing.T) {
	d, err := OpenDir("../testdata/conformance/fixture.zarr")
	if err != nil {
		t.Fatal(err)
	}
	names, err := d.List(ctx, "")
	if err != nil || len(names) == 0 || names[0] != "big_endian_i2" {
		t.Fatalf("List = %v, %v", names, err)
	}
	if sub, _ := d.List(ctx, "nested"); !reflect.DeepEqual(sub, []string{"group"}) {
		t.Errorf("List(nested) = %v", sub)
	}
	if sub, _ := d.List(ctx, "slash_separator"); len(sub) != 0 {
		t.Errorf("chunk directories listed as nodes: %v", sub)
	}
	v, err := d.Get(ctx, "zlib/.zarray")
	if st, _ := os.Stat("../testdata/conformance/fixture.zarr/zlib/.zarray"); err != nil || v.Len != st.Size() || v.InMemory() {
		t.Errorf("Get = %+v, %v", v, err)
	}
	if _, err := d.Get(ctx, "missing_chunks_nan/9.9"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing chunk: %v", err)
	}
	for _, key := range []string{"../x", "a//b", "/etc/passwd", "a/./b"} {
		if _, err := d.Get(ctx, key); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("key %q: got %v, want an invalid-key error", key, err)
		}
	}
	if _, err := OpenDir("../testdata/conformance/fixture.h5"); err == nil {
		t.Error("OpenDir on a file succeeded")
	}
}

func FuzzParseLINDI(f *testing.F) {
	data, err := os.ReadFile("../testdata/conformance/fixture.extlink.lindi.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:4000])
	f.Add([]byte(`{"refs": {"a": ["{{u}}", 1, 2], "b": "base64:AA==", "c": {"x": -Infinity}}, "templates": {"u": "x"}}`))
	f.Add([]byte(`{"version": 2, "refs": {"zarr.json": "{}"}, "sources": {}, "indexes": {"a": {"url": "x.h5", "index": "index/a"}}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		s, err := ParseLINDI("/d/f.json", doc)
		if err != nil {
			return
		}
		for k := range s.refs {
			v, err := s.Get(ctx, k)
			if err == nil && !v.InMemory() && (v.Off < 0 || v.Len < -1) {
				t.Fatalf("ref %q gave a negative range %+v", k, v)
			}
		}
		for k, e := range s.ChunkIndexes() {
			if e.URL == "" || e.Index == "" {
				t.Fatalf("index %q without its url or index: %+v", k, e)
			}
		}
	})
}
