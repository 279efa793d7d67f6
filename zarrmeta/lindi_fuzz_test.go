package zarrmeta

import (
	"testing"
)

// FuzzLINDIAttrs parses _COMPOUND_DTYPE and _EXTERNAL_ARRAY_LINK values from
// any JSON: either an error or a value that keeps the documented
// invariants (packed fields within the size cap; a link with a url and a
// name).
func FuzzLINDIAttrs(f *testing.F) {
	f.Add([]byte(`[["x", "int32"], ["y", "<f8"], ["r", "<REFERENCE>"], ["s", "|S10"], ["o", "object"]]`))
	f.Add([]byte(`{"link_type": "hdf5_dataset", "url": "./f.h5", "name": "/a/b"}`))
	f.Add([]byte(`{"link_type": "hdf5_dataset", "url": "file:/etc/passwd", "name": "x"}`))
	f.Add([]byte(`[["a", "|V1000000000"]]`))
	f.Add([]byte(`[["a", [["b", "int8"]]]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeJSON(b)
		if err != nil {
			return
		}
		if d, err := ParseCompoundDType(v); err == nil {
			if d.Kind != KindStruct || len(d.Fields) == 0 || d.Size > maxItemSize {
				t.Fatalf("compound %s: kind %v, %d fields, size %d", b, d.Kind, len(d.Fields), d.Size)
			}
			off := 0
			for _, fl := range d.Fields {
				if fl.Offset != off || fl.DType.Size < 0 {
					t.Fatalf("compound %s: field %q at %d, want %d", b, fl.Name, fl.Offset, off)
				}
				off += fl.DType.Size
			}
			if off != d.Size {
				t.Fatalf("compound %s: fields end at %d, size %d", b, off, d.Size)
			}
		}
		if l, err := ParseExternalArrayLink(v); err == nil {
			if l.LinkType != "hdf5_dataset" || l.URL == "" || l.Name == "" {
				t.Fatalf("link %s: %+v", b, l)
			}
		}
		if a, err := ParseAttrs(append(append([]byte(`{"_COMPOUND_DTYPE": `), b...), '}')); err == nil {
			a.CompoundDType()
		}
	})
}
