package zarr3_test

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// utf32 encodes s as n bytes of little-endian UTF-32, NUL-padded.
func utf32(s string, n int) []byte {
	b := make([]byte, n)
	i := 0
	for _, r := range s {
		binary.LittleEndian.PutUint32(b[i:], uint32(r))
		i += 4
	}
	return b
}

const structType = `{"name": "struct", "configuration": {"fields": [
	{"name": "id", "data_type": "int16"},
	{"name": "x", "data_type": "float64"},
	{"name": "target", "data_type": {"name": "fixed_length_utf32", "configuration": {"length_bytes": 32}}}]}}`

func structArray(extra string) string {
	return `{"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": ` + structType + `,
	"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
	"chunk_key_encoding": {"name": "default"}, "fill_value": {"id": -1, "x": "NaN", "target": ""},
	"codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]` + extra + `}`
}

// structChunk encodes rows (id, x, target) big-endian, packed.
func structChunk(rows ...[3]any) string {
	var b []byte
	for _, r := range rows {
		b = binary.BigEndian.AppendUint16(b, uint16(r[0].(int)))
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(r[1].(float64)))
		t := utf32(r[2].(string), 32)
		for i := 0; i < 32; i += 4 { // big-endian UTF-32
			t[i], t[i+1], t[i+2], t[i+3] = t[i+3], t[i+2], t[i+1], t[i]
		}
		b = append(b, t...)
	}
	return string(b)
}

func TestStructAndDatetime(t *testing.T) {
	chunk := structChunk([3]any{1, 0.5, "/a"}, [3]any{2, 1.5, "/b/c"})
	dir := writeStore(t, map[string]string{
		"zarr.json":       rootGroup,
		"plain/zarr.json": structArray(""),
		"plain/c/0":       chunk,
		"refs/zarr.json":  structArray(`, "attributes": {"_REFERENCE_FIELDS": ["target"]}`),
		"refs/c/0":        chunk,
		"t/zarr.json": `{"zarr_format": 3, "node_type": "array", "shape": [3],
			"data_type": {"name": "numpy.datetime64", "configuration": {"unit": "s", "scale_factor": 1}},
			"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
			"chunk_key_encoding": {"name": "default"}, "fill_value": "NaT",
			"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}`,
		"t/c/0": string(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 0), 86400)),
	})
	f, err := h5.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	all := selection.Selection{selection.All()}
	plain, err := f.Dataset(ctx, "plain")
	if err != nil {
		t.Fatal(err)
	}
	if dt := plain.DType(); dt.Size != 42 || len(dt.Fields) != 3 || dt.Fields[2].Offset != 10 {
		t.Fatalf("dtype %s", dt)
	}
	field := func(name string) *h5.Array {
		a, err := plain.ReadField(ctx, name, all)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	ids, err := h5.As[int16](field("id"))
	if err != nil || !reflect.DeepEqual(ids.Data, []int16{1, 2, -1}) {
		t.Errorf("id: %v, %v", ids, err)
	}
	xs, err := h5.As[float64](field("x"))
	if err != nil || xs.Data[0] != 0.5 || xs.Data[1] != 1.5 || !math.IsNaN(xs.Data[2]) {
		t.Errorf("x: %v, %v", xs, err)
	}
	names, err := h5.As[string](field("target"))
	if err != nil || !reflect.DeepEqual(names.Data, []string{"/a", "/b/c", ""}) {
		t.Errorf("target: %v, %v", names, err)
	}
	refs, err := f.Dataset(ctx, "refs")
	if err != nil {
		t.Fatal(err)
	}
	if refs.Attrs().Has("_REFERENCE_FIELDS") {
		t.Error("_REFERENCE_FIELDS is listed as an attribute")
	}
	a, err := refs.Read(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		[]any{int64(1), 0.5, h5.Reference{Path: "/a"}},
		[]any{int64(2), 1.5, h5.Reference{Path: "/b/c"}},
		[]any{int64(-1), math.NaN(), nil},
	}
	if len(a.Objects) == 3 {
		if row, ok := a.Objects[2].([]any); ok && len(row) == 3 {
			if x, ok := row[1].(float64); ok && math.IsNaN(x) {
				row[1], want[2].([]any)[1] = 0.0, 0.0 // NaN != NaN
			}
		}
	}
	if !reflect.DeepEqual(a.Objects, want) {
		t.Errorf("rows %#v, want %#v", a.Objects, want)
	}
	ts, err := f.Dataset(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if dt := ts.DType(); dt.String() != "<M8[s]" {
		t.Errorf("dtype %s", dt)
	}
	tv, err := h5.Read[int64](ctx, ts, all)
	if err != nil || !reflect.DeepEqual(tv.Data, []int64{0, 86400, math.MinInt64}) {
		t.Errorf("datetimes %v, %v", tv, err)
	}
}
