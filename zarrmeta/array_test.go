package zarrmeta

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseArray(t *testing.T) {
	doc := func(extra string) string {
		return `{"zarr_format": 2, "shape": [10, 7], "chunks": [4, 3], "dtype": "<f8"` + extra + `}`
	}
	tests := []struct {
		name  string
		in    string
		check func(t *testing.T, a *ArrayMeta)
	}{
		{"named type", doc(`, "_NAMED_TYPE": "/types/T"`), func(t *testing.T, a *ArrayMeta) {
			if a.NamedType != "/types/T" {
				t.Fatalf("NamedType %q", a.NamedType)
			}
		}},
		{"defaults", doc(""), func(t *testing.T, a *ArrayMeta) {
			if !a.Raw() || a.Order != 'C' || a.Separator != "." || a.Compressor != nil || a.Filters != nil || !a.Fill.Null || string(a.FillValue) != "null" {
				t.Fatalf("defaults: %+v", a)
			}
			if !reflect.DeepEqual(a.Grid(), []int{3, 3}) || a.ChunkItems() != 12 || a.ChunkBytes() != 96 || a.Items() != 70 {
				t.Fatalf("grid %v items %d bytes %d", a.Grid(), a.ChunkItems(), a.ChunkBytes())
			}
			if a.ChunkKey([]int{2, 0}) != "2.0" {
				t.Fatalf("key %q", a.ChunkKey([]int{2, 0}))
			}
		}},
		{"filters null", doc(`, "filters": null, "compressor": null, "fill_value": 0.0`), func(t *testing.T, a *ArrayMeta) {
			if a.Filters != nil || a.Compressor != nil || a.Fill.Null {
				t.Fatalf("%+v", a)
			}
		}},
		{"filters empty", doc(`, "filters": []`), func(t *testing.T, a *ArrayMeta) {
			if a.Filters != nil || !a.Raw() {
				t.Fatalf("filters %q", a.Filters)
			}
		}},
		{"filters and compressor kept raw", doc(`, "filters": [{"id": "shuffle", "elementsize": 8}, {"id":"zlib","level":4}], "compressor": {"id": "blosc", "cname": "lz4"}`), func(t *testing.T, a *ArrayMeta) {
			if a.Raw() || len(a.Filters) != 2 || string(a.Filters[1]) != `{"id":"zlib","level":4}` || string(a.Compressor) != `{"id": "blosc", "cname": "lz4"}` {
				t.Fatalf("filters %q compressor %q", a.Filters, a.Compressor)
			}
		}},
		{"F order slash", doc(`, "order": "F", "dimension_separator": "/"`), func(t *testing.T, a *ArrayMeta) {
			if a.Order != 'F' || a.ChunkKey([]int{1, 2}) != "1/2" {
				t.Fatalf("order %c key %q", a.Order, a.ChunkKey([]int{1, 2}))
			}
		}},
		{"bare NaN fill", doc(`, "fill_value": NaN`), func(t *testing.T, a *ArrayMeta) {
			if string(a.FillValue) != `"NaN"` || a.Fill.Bytes[7] != 0x7f {
				t.Fatalf("fill %s %v", a.FillValue, a.Fill.Bytes)
			}
		}},
		{"zero-dimensional", `{"zarr_format": 2, "shape": [], "chunks": [], "dtype": "<i4", "fill_value": 3}`, func(t *testing.T, a *ArrayMeta) {
			if a.ChunkKey(nil) != "0" || len(a.Grid()) != 0 || a.Items() != 1 || a.Fill.Bytes[0] != 3 {
				t.Fatalf("%+v", a)
			}
		}},
		{"empty dimension", `{"zarr_format": 2, "shape": [0, 5], "chunks": [4, 5], "dtype": "<i4", "fill_value": 0}`, func(t *testing.T, a *ArrayMeta) {
			if !reflect.DeepEqual(a.Grid(), []int{0, 1}) || a.Items() != 0 {
				t.Fatalf("grid %v", a.Grid())
			}
		}},
		{"object", `{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "|O", "fill_value": 0, "filters": [{"id": "json2"}]}`, func(t *testing.T, a *ArrayMeta) {
			if a.DType.Kind != KindObject || a.Fill.Object != "" || a.Fill.Bytes != nil {
				t.Fatalf("%+v", a)
			}
		}},
		{"structured", `{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": [["a", "<i4"], ["b", ">f8", [2]]], "fill_value": null}`, func(t *testing.T, a *ArrayMeta) {
			if a.DType.Size != 20 || len(a.Fill.Bytes) != 20 {
				t.Fatalf("%+v", a)
			}
		}},
		{"unknown keys ignored", doc(`, "attributes": {}, "x": 1`), func(t *testing.T, a *ArrayMeta) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseArray([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, a)
		})
	}
}

func TestParseArrayErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
	}{
		{"not json", `{`, ErrArray},
		{"not an object", `[]`, ErrArray},
		{"zarr_format missing", `{"shape": [1], "chunks": [1], "dtype": "<i4"}`, ErrArray},
		{"zarr_format 3", `{"zarr_format": 3, "shape": [1], "chunks": [1], "dtype": "<i4"}`, ErrArray},
		{"shape missing", `{"zarr_format": 2, "chunks": [1], "dtype": "<i4"}`, ErrArray},
		{"chunks missing", `{"zarr_format": 2, "shape": [1], "dtype": "<i4"}`, ErrArray},
		{"dtype missing", `{"zarr_format": 2, "shape": [1], "chunks": [1]}`, ErrArray},
		{"bad dtype", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i3"}`, ErrDType},
		{"named type not a path", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4", "_NAMED_TYPE": 3}`, ErrArray},
		{"named type empty", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4", "_NAMED_TYPE": ""}`, ErrArray},
		{"rank mismatch", `{"zarr_format": 2, "shape": [1, 2], "chunks": [1], "dtype": "<i4"}`, ErrArray},
		{"zero chunk", `{"zarr_format": 2, "shape": [1], "chunks": [0], "dtype": "<i4"}`, ErrArray},
		{"negative chunk", `{"zarr_format": 2, "shape": [1], "chunks": [-1], "dtype": "<i4"}`, ErrArray},
		{"negative shape", `{"zarr_format": 2, "shape": [-1], "chunks": [1], "dtype": "<i4"}`, ErrArray},
		{"fractional shape", `{"zarr_format": 2, "shape": [1.5], "chunks": [1], "dtype": "<i4"}`, ErrArray},
		{"shape bytes overflow", `{"zarr_format": 2, "shape": [4000000000, 4000000000, 4000000000], "chunks": [1, 1, 1], "dtype": "<i4"}`, ErrArray},
		{"chunk bytes overflow", `{"zarr_format": 2, "shape": [1, 1], "chunks": [4000000000000000000, 8], "dtype": "<f8"}`, ErrArray},
		{"huge dim", `{"zarr_format": 2, "shape": [9223372036854775807], "chunks": [1], "dtype": "<i4"}`, ErrArray},
		{"bad order", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4", "order": "K"}`, ErrArray},
		{"bad separator", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4", "dimension_separator": "-"}`, ErrArray},
		{"compressor without id", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4", "compressor": {"level": 1}}`, ErrArray},
		{"compressor string", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4", "compressor": "zlib"}`, ErrArray},
		{"filters object", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4", "filters": {"id": "zlib"}}`, ErrArray},
		{"null filter", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "<i4", "filters": [null]}`, ErrArray},
		{"bad fill", `{"zarr_format": 2, "shape": [1], "chunks": [1], "dtype": "|u1", "fill_value": 300}`, ErrFill},
		{"rank too high", `{"zarr_format": 2, "shape": [` + strings.Repeat("1,", 64) + `1], "chunks": [` + strings.Repeat("1,", 64) + `1], "dtype": "<i4"}`, ErrArray},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseArray([]byte(tt.in))
			if !errors.Is(err, tt.want) || !errors.Is(err, ErrArray) {
				t.Fatalf("got (%+v, %v), want %v", a, err, tt.want)
			}
		})
	}
}

// zarrFiles returns the metadata documents of the fixture Zarr store by
// name (.zarray, .zattrs, .zgroup), keyed by path.
func zarrFiles(t testing.TB, name string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	root := "../testdata/conformance/fixture.zarr"
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != name {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no %s under %s", name, root)
	}
	return files
}

// lindiRefs returns the metadata objects of the LINDI fixtures whose key
// ends in suffix, keyed by file and ref key.
func lindiRefs(t testing.TB, suffix string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, file := range []string{"fixture.lindi.json", "fixture.extlink.lindi.json"} {
		b, err := os.ReadFile("../testdata/conformance/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Refs map[string]json.RawMessage `json:"refs"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for k, v := range doc.Refs {
			if strings.HasSuffix(k, suffix) {
				out[file+":"+k] = v
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s refs", suffix)
	}
	return out
}

func TestParseArrayFixtures(t *testing.T) {
	docs := zarrFiles(t, ".zarray")
	for k, v := range lindiRefs(t, ".zarray") {
		docs[k] = v
	}
	for name, b := range docs {
		t.Run(name, func(t *testing.T) {
			a, err := ParseArray(b)
			if err != nil {
				t.Fatal(err)
			}
			// Cross-check against a plain decode of the document.
			var z struct {
				Shape     []int  `json:"shape"`
				Chunks    []int  `json:"chunks"`
				Order     string `json:"order"`
				Separator string `json:"dimension_separator"`
			}
			if err := json.Unmarshal(quoteNonFinite(b), &z); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.Shape, z.Shape) || !reflect.DeepEqual(a.Chunks, z.Chunks) || string(a.Order) != z.Order {
				t.Fatalf("got %+v from %s", a, b)
			}
			if z.Separator != "" && a.Separator != z.Separator {
				t.Fatalf("separator %q, want %q", a.Separator, z.Separator)
			}
			if a.DType.Kind != KindObject && len(a.Fill.Bytes) != a.DType.Size {
				t.Fatalf("fill %v for %s", a.Fill.Bytes, a.DType)
			}
		})
	}
}

func TestParseArrayFixtureDetails(t *testing.T) {
	files := zarrFiles(t, ".zarray")
	get := func(name string) *ArrayMeta {
		t.Helper()
		a, err := ParseArray(files["../testdata/conformance/fixture.zarr/"+name+"/.zarray"])
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	if a := get("slash_separator"); a.Separator != "/" || a.ChunkKey([]int{1, 0}) != "1/0" {
		t.Errorf("slash_separator: %q", a.Separator)
	}
	if a := get("fortran_order"); a.Order != 'F' {
		t.Errorf("fortran_order: %c", a.Order)
	}
	if a := get("missing_chunks_nan"); a.Fill.Null || string(a.Fill.Bytes) != "\x00\x00\xc0\x7f" {
		t.Errorf("missing_chunks_nan fill: %v", a.Fill.Bytes)
	}
	if a := get("big_endian_i2"); a.DType.Order != BigEndian || a.DType.NeedsSwap() != (NativeOrder == LittleEndian) {
		t.Errorf("big_endian_i2: %+v", a.DType)
	}
	if a := get("fixedscaleoffset"); len(a.Filters) != 1 || !strings.Contains(string(a.Filters[0]), "fixedscaleoffset") {
		t.Errorf("fixedscaleoffset filters: %q", a.Filters)
	}
}
