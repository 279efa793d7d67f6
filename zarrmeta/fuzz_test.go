package zarrmeta

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/lindigo/lindi/internal/npy"
)

// seedDocs adds every fixture document of the given kind to f.
func seedDocs(f *testing.F, name string) {
	for _, b := range zarrFiles(f, name) {
		f.Add(b)
	}
	for _, b := range lindiRefs(f, name) {
		f.Add([]byte(b))
	}
}

func FuzzParseArray(f *testing.F) {
	seedDocs(f, ".zarray")
	f.Add([]byte(`{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": [["a", "<i4"], ["b", ">f8", [2]]], "fill_value": "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", "order": "F", "dimension_separator": "/"}`))
	f.Add([]byte(`{"zarr_format": 2, "shape": [], "chunks": [], "dtype": "<c8", "fill_value": [NaN, -Infinity]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ParseArray(b)
		if err != nil {
			return
		}
		if len(a.Chunks) != len(a.Shape) || a.DType.Size <= 0 || a.ChunkBytes() < 0 {
			t.Fatalf("inconsistent array %+v", a)
		}
		grid := a.Grid()
		last := make([]int, len(grid))
		for i, g := range grid {
			if g < 0 || g > 0 && (g-1)*a.Chunks[i] >= a.Shape[i] {
				t.Fatalf("grid %v for shape %v chunks %v", grid, a.Shape, a.Chunks)
			}
			last[i] = max(g-1, 0)
		}
		if a.ChunkKey(last) == "" {
			t.Fatal("empty chunk key")
		}
		if a.DType.Kind != KindObject && len(a.Fill.Bytes) != a.DType.Size {
			t.Fatalf("fill %d bytes for %s", len(a.Fill.Bytes), a.DType)
		}
	})
}

func FuzzParseDType(f *testing.F) {
	for _, b := range zarrFiles(f, ".zarray") {
		var z struct{ DType json.RawMessage }
		if json.Unmarshal(b, &z) == nil {
			f.Add([]byte(z.DType))
		}
	}
	for _, s := range []string{`"|b1"`, `">U3"`, `"|S8"`, `"|O"`, `"|V4"`, `"<c16"`, `">f2"`,
		`[["a","<i4"],["","|V4"],["b",[["c",">f8"],["d","|S3"]],[2,3]]]`, `[[["t","n"],"<u2",2]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseDType(b)
		if err != nil {
			return
		}
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("MarshalJSON: %v", err)
		}
		back, err := ParseDType(raw)
		if err != nil || !back.Equal(d) {
			t.Fatalf("round trip %s: %+v, %v", raw, back, err)
		}
		if !hasObject(d) && d.Size <= 1<<16 {
			var buf bytes.Buffer
			if err := npy.Write(&buf, &npy.Array{Descr: d.String(), Shape: []int{1}, Data: make([]byte, d.Size)}); err != nil {
				t.Fatalf("npy rejects %s: %v", d, err)
			}
			js, err := npy.DescrJSON(d.String())
			if err != nil {
				t.Fatalf("DescrJSON(%s): %v", d, err)
			}
			if back, err := ParseDType(js); err != nil || !back.Equal(d) {
				t.Fatalf("String() round trip via %s: %v", js, err)
			}
		}
		if d.Size <= 1<<16 {
			items := make([]byte, 2*d.Size)
			for i := range items {
				items[i] = byte(i)
			}
			if err := d.SwapToNative(items); err != nil {
				t.Fatalf("SwapToNative: %v", err)
			}
			// Swapping twice restores the data when order is the only change.
			if err := d.SwapToNative(items); err != nil {
				t.Fatal(err)
			}
			for i := range items {
				if items[i] != byte(i) {
					t.Fatalf("double swap differs at %d", i)
				}
			}
			if _, err := ParseFill(nil, d); err != nil {
				t.Fatalf("null fill: %v", err)
			}
		}
	})
}

func FuzzParseAttrs(f *testing.F) {
	seedDocs(f, ".zattrs")
	f.Add([]byte(`{"a": [NaN, Infinity, -Infinity, "NaN", 1e400, 18446744073709551615, -0.0, "\u00e9"], "_SCALAR": false}`))
	f.Add([]byte(`{"_EMPTY": true, "v": {"myMajor": 1, "n": null}}`))
	f.Add([]byte(`{"_DATATYPE": {"dtype": "|u1", "enum": {"RED": 0}}, "t": ["_OPAQUE", "<M8[s]", "(2,)", "1", "-5"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		depth := bytes.Count(b, []byte("[")) + bytes.Count(b, []byte("{"))
		if json.Valid(b) && depth < maxJSONDepth {
			if _, err := DecodeJSON(b); err != nil {
				t.Fatalf("DecodeJSON rejects valid JSON: %v", err)
			}
		}
		a, err := ParseAttrs(b)
		if err != nil {
			return
		}
		names := a.Names()
		if !slices.IsSorted(names) || len(names) != a.Len() {
			t.Fatalf("names %q", names)
		}
		for _, n := range names {
			v, ok := a.Get(n)
			if !ok {
				t.Fatalf("Get(%q) missing", n)
			}
			if o, ok, err := AsOpaque(v); ok && err == nil {
				if _, err := o.JSON(); err != nil {
					t.Fatalf("%s: an opaque value read that cannot be written: %v", n, err)
				}
			}
		}
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("MarshalJSON: %v", err)
		}
		again, err := ParseAttrs(out)
		if err == nil && again.Empty() != a.Empty() {
			t.Fatalf("_EMPTY %v, after a round trip %v", a.Empty(), again.Empty())
		}
		if err != nil || !slices.Equal(again.Names(), names) {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
	})
}
