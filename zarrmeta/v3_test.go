package zarrmeta

import (
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestV3RootAttributes(t *testing.T) {
	for _, name := range []string{"fixture.zarr3", "fixture-consolidated.zarr3"} {
		b, err := os.ReadFile("../testdata/zarr3/" + name + "/zarr.json")
		if err != nil {
			t.Fatal(err)
		}
		n, err := ParseV3(b)
		if err != nil {
			t.Fatal(err)
		}
		want := []any{int64(0), int64(-1), 2.5, -3e-7, 1e300, int64(9007199254740993), int64(math.MinInt64), uint64(math.MaxUint64)}
		if got := n.Attributes["numbers"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: numbers %#v, want %#v", name, got, want)
		}
		if n.Attributes["unicode"] != "µm ✓ 日本 🧠" {
			t.Errorf("%s: unicode %q", name, n.Attributes["unicode"])
		}
		if name == "fixture-consolidated.zarr3" {
			if len(n.Consolidated) != 87+15 {
				t.Errorf("%d consolidated entries, want 102", len(n.Consolidated))
			}
			bt := n.Consolidated["attrs/bare_tokens"]
			if bt == nil || !math.IsNaN(bt.Attributes["nan"].(float64)) {
				t.Errorf("attrs/bare_tokens: %+v", bt)
			}
		} else if n.Consolidated != nil {
			t.Errorf("%s: consolidated metadata", name)
		}
	}
}

func TestV3Fill(t *testing.T) {
	f32, _ := V3DType("float32", LittleEndian)
	f64be, _ := V3DType("float64", BigEndian)
	f16, _ := V3DType("float16", LittleEndian)
	u64, _ := V3DType("uint64", LittleEndian)
	c64, _ := V3DType("complex64", LittleEndian)
	for _, tc := range []struct {
		v    any
		d    DType
		want []byte
	}{
		{"0x3f800000", f32, []byte{0, 0, 0x80, 0x3f}},
		{"NaN", f32, []byte{0, 0, 0xc0, 0x7f}},
		{0.1, f32, []byte{0xcd, 0xcc, 0xcc, 0x3d}},
		{"0x7ff8000000000001", f64be, []byte{0x7f, 0xf8, 0, 0, 0, 0, 0, 1}},
		{"-Infinity", f64be, []byte{0xff, 0xf0, 0, 0, 0, 0, 0, 0}},
		{"0xbc00", f16, []byte{0, 0xbc}},
		{uint64(math.MaxUint64), u64, []byte{255, 255, 255, 255, 255, 255, 255, 255}},
		{[]any{1.0, "0x3f800000"}, c64, []byte{0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f}},
	} {
		f, err := V3Fill(tc.v, tc.d)
		if err != nil || !reflect.DeepEqual(f.Bytes, tc.want) {
			t.Errorf("%v as %s: %x, %v; want %x", tc.v, tc.d, f.Bytes, err, tc.want)
		}
	}
	for _, tc := range []struct {
		v any
		d DType
	}{{nil, f32}, {"0x3f80", f32}, {"0xzz800000", f32}, {"nan", f32}, {int64(-1), u64}, {[]any{1.0}, c64}, {int64(3), DType{Kind: KindObject, Size: 8}}} {
		if _, err := V3Fill(tc.v, tc.d); !errors.Is(err, ErrFill) {
			t.Errorf("%v as %s: err %v, want ErrFill", tc.v, tc.d, err)
		}
	}
}

func TestV3Errors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`[]`, "not an object"},
		{`{"zarr_format": 3}`, "node_type"},
		{`{"zarr_format": 3, "node_type": "group", "attributes": []}`, "attributes"},
		{`{"zarr_format": 3, "node_type": "group", "x": 1}`, `unknown extension "x"`},
		{`{"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "file"}}`, "kind"},
		{`{"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "inline", "metadata": {"/a": {}}}}`, "bad path"},
		{`{"zarr_format": 3, "node_type": "array", "shape": [-1]}`, "shape"},
	} {
		_, err := ParseV3([]byte(tc.doc))
		if !errors.Is(err, ErrV3) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrV3 saying %s", tc.doc, err, tc.want)
		}
	}
}

func FuzzParseV3(f *testing.F) {
	for _, p := range []string{"fixture-consolidated.zarr3/zarr.json", "fixture.zarr3/sharding/end_gzip/zarr.json", "fixture.zarr3/misc/must_understand_false/zarr.json"} {
		b, err := os.ReadFile("../testdata/zarr3/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseV3(b)
		if err != nil {
			if !errors.Is(err, ErrV3) {
				t.Fatalf("error %v does not wrap ErrV3", err)
			}
			return
		}
		if a := n.Array; a != nil {
			d, err := V3DType(a.DataType, LittleEndian)
			if err == nil {
				V3Fill(a.FillValue, d)
			}
		}
	})
}
