package store

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// TestEdit: Set and Delete change what Get and List see, and Document
// writes a document that parses back to the same refs.
func TestEdit(t *testing.T) {
	ctx := context.Background()
	s, err := ParseLINDIAt("x.json", "", []byte(`{"version":1,"generationMetadata":{"tool":"t"},"refs":{".zgroup":{"zarr_format":2},"a/.zgroup":{"zarr_format":2},"a/b/.zarray":{"shape":[1]},"a/b/0":"xyz"}}`))
	if err != nil {
		t.Fatal(err)
	}
	s.Editable()
	s.Set("c/d/.zgroup", json.RawMessage(`{"zarr_format":2}`))
	s.Set("a/b/1", InlineRef([]byte{0x80, 1}))
	if names, _ := s.List(ctx, ""); !slices.Equal(names, []string{"a", "c"}) {
		t.Errorf("root lists %v", names)
	}
	if names, _ := s.List(ctx, "c"); !slices.Equal(names, []string{"d"}) {
		t.Errorf("c lists %v", names)
	}
	if v, err := s.Get(ctx, "a/b/1"); err != nil || string(v.Data) != "\x80\x01" {
		t.Errorf("a/b/1 = %q, %v", v.Data, err)
	}
	if n := s.Delete("a/b"); n != 3 {
		t.Errorf("Delete(a/b) removed %d keys, want 3", n)
	}
	if names, _ := s.List(ctx, "a"); len(names) != 0 {
		t.Errorf("a lists %v after the delete", names)
	}
	back, err := ParseLINDIAt("y.json", "", s.Document())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.Keys(""), s.Keys(""); !slices.Equal(got, want) {
		t.Errorf("the document parses back to keys %v, want %v", got, want)
	}
	if string(back.top["generationMetadata"]) != `{"tool":"t"}` {
		t.Errorf("generationMetadata not kept: %s", back.top["generationMetadata"])
	}
	defer func() {
		if recover() == nil {
			t.Error("Set on a store not made Editable did not refuse")
		}
	}()
	back.Set("k", json.RawMessage(`"v"`))
}

func TestObjectJSON(t *testing.T) {
	in := []byte(`{"b": NaN, "a": [1, 2], "c": {"x": 1}}`)
	m, err := ObjectMembers(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(ObjectJSON(m)); got != `{"a":[1, 2],"b":NaN,"c":{"x": 1}}` {
		t.Errorf("ObjectJSON = %s", got)
	}
	if _, err := ObjectMembers([]byte(`[1]`)); err == nil {
		t.Error("a list taken as an object")
	}
}
