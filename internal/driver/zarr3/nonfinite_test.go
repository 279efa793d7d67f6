package zarr3_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

const scalarArray = `{"zarr_format": 3, "node_type": "array", "shape": SHAPE, "data_type": "float64",
	"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": CHUNKS}},
	"chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
	"fill_value": 2.5, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
	"attributes": {"_SCALAR": true}}`

// TestNonFiniteAttributes reads NaN and the infinities as zarr-python
// writes them (bare tokens) and as the non-finite-attributes convention
// does in a node that registers it; a string "NaN" elsewhere stays a
// string, and a registration is not shown as an attribute.
func TestNonFiniteAttributes(t *testing.T) {
	const reg = `{"uuid": "2adc9aac-d676-4e93-8feb-903b6ae9e08a", "name": "non-finite-attributes"}`
	dir := writeStore(t, map[string]string{
		"zarr.json": `{"zarr_format": 3, "node_type": "group", "attributes": {"bare": NaN, "list": [1.5, -Infinity], "text": "NaN"}}`,
		"reg/zarr.json": `{"zarr_format": 3, "node_type": "group", "attributes": {
			"zarr_conventions": [` + reg + `, {"name": "other"}],
			"nan": "NaN", "inf": ["Infinity", "-Infinity", 2], "escaped": "_str_NaN", "twice": "_str__str_Infinity",
			"nested": {"a": ["NaN"]}, "plain": "text", "num": 3}}`,
		"only/zarr.json": `{"zarr_format": 3, "node_type": "group", "attributes": {"zarr_conventions": [` + reg + `], "x": "-Infinity"}}`,
	})
	f, err := h5.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	get := func(g *h5.Group, name string) any {
		t.Helper()
		v, err := g.Attrs().Get(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	isNaN := func(v any) bool { x, ok := v.(float64); return ok && math.IsNaN(x) }
	root := f.Root()
	if v := get(root, "bare"); !isNaN(v) {
		t.Errorf("bare NaN = %#v", v)
	}
	if v := get(root, "list"); !reflect.DeepEqual(v, []float64{1.5, math.Inf(-1)}) {
		t.Errorf("list = %#v", v)
	}
	if v := get(root, "text"); v != "NaN" {
		t.Errorf("unregistered \"NaN\" = %#v, want the string", v)
	}
	g, err := f.Group(ctx, "reg")
	if err != nil {
		t.Fatal(err)
	}
	if v := get(g, "nan"); !isNaN(v) {
		t.Errorf("registered \"NaN\" = %#v, want NaN", v)
	}
	if v := get(g, "inf"); !reflect.DeepEqual(v, []float64{math.Inf(1), math.Inf(-1), 2}) {
		t.Errorf("inf = %#v", v)
	}
	for name, want := range map[string]any{"escaped": "NaN", "twice": "_str_Infinity", "plain": "text"} {
		if v := get(g, name); v != want {
			t.Errorf("%s = %#v, want %#v", name, v, want)
		}
	}
	if v := get(g, "nested"); !strings.Contains(strings.ToLower(fmtAny(v)), "nan") || strings.Contains(fmtAny(v), `"NaN"`) {
		t.Errorf("nested = %#v", v)
	}
	if v := get(g, "zarr_conventions"); !strings.Contains(fmtAny(v), "other") || strings.Contains(fmtAny(v), "2adc9aac") {
		t.Errorf("zarr_conventions = %#v, want the other entry only", v)
	}
	only, err := f.Group(ctx, "only")
	if err != nil {
		t.Fatal(err)
	}
	if only.Attrs().Has("zarr_conventions") || get(only, "x") != math.Inf(-1) {
		t.Errorf("only the registration: %v", only.Attrs().Names())
	}
}

// TestScalarMarker reads a one-element array marked _SCALAR (LINDI's
// scalar, kept by the unified convention) as a scalar, and refuses the
// marker on a larger array.
func TestScalarMarker(t *testing.T) {
	arr := func(shape, chunks string) string {
		return strings.NewReplacer("SHAPE", shape, "CHUNKS", chunks).Replace(scalarArray)
	}
	dir := writeStore(t, map[string]string{
		"zarr.json":     `{"zarr_format": 3, "node_type": "group"}`,
		"s/zarr.json":   arr("[1]", "[1]"),
		"s/c/0":         string([]byte{0, 0, 0, 0, 0, 0, 0x10, 0x40}), // 4.0
		"f/zarr.json":   arr("[1]", "[4]"),                            // no chunk: the fill
		"bad/zarr.json": arr("[2]", "[2]"),
	})
	f, err := h5.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, want := range map[string]float64{"s": 4, "f": 2.5} {
		d, err := f.Dataset(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Shape()) != 0 || d.Attrs().Has("_SCALAR") {
			t.Errorf("%s: shape %v, attrs %v", name, d.Shape(), d.Attrs().Names())
		}
		a, err := h5.Read[float64](ctx, d, selection.Selection{})
		if err != nil || len(a.Data) != 1 || a.Data[0] != want {
			t.Errorf("%s = %v (%v), want %v", name, a, err, want)
		}
	}
	d, err := f.Dataset(ctx, "bad")
	if err == nil {
		err = d.Err()
	}
	if err == nil || !strings.Contains(err.Error(), "_SCALAR") {
		t.Errorf("_SCALAR on shape [2]: %v", err)
	}
}

func fmtAny(v any) string { return fmt.Sprintf("%#v", v) }
