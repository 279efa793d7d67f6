package codecs

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"unicode/utf8"
)

// vlenEncoder is the vlen-utf8 or vlen-bytes codec: it decodes as
// vlenCodec does and encodes the same layout. (vlen-array decodes only.)
type vlenEncoder struct{ *vlenCodec }

func newVLenUTF8(config []byte) (ObjectCodec, error) {
	return vlenEncoder{&vlenCodec{id: "vlen-utf8", kind: vlenText}}, nil
}

func newVLenBytes(config []byte) (ObjectCodec, error) {
	return vlenEncoder{&vlenCodec{id: "vlen-bytes", kind: vlenBytes}}, nil
}

// EncodeObjects writes the item count, then each item's length and bytes.
// vlen-utf8 items are strings (valid UTF-8), vlen-bytes items []byte; nil
// and zero values (zarr's fill value 0 for object arrays) are written as
// empty items, as numcodecs writes None and 0.
func (c vlenEncoder) EncodeObjects(items []any, shape []int) ([]byte, error) {
	if err := checkShape(c.id, len(items), shape); err != nil {
		return nil, err
	}
	total := 4
	for i, it := range items {
		text, raw, err := c.item(i, it)
		if err != nil {
			return nil, err
		}
		n := len(text) + len(raw)
		total += 4 + n
		if n > math.MaxUint32 || total < 0 || total > math.MaxUint32 {
			return nil, errConfig(c.id, "items exceed the 4 GiB a vlen chunk can hold")
		}
	}
	out := make([]byte, 4, total)
	binary.LittleEndian.PutUint32(out, uint32(len(items)))
	for i, it := range items {
		text, raw, _ := c.item(i, it)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(text)+len(raw)))
		out = append(append(out, text...), raw...)
	}
	return out, nil
}

// item returns the content of item i: text for vlen-utf8, raw for
// vlen-bytes (neither copied).
func (c vlenEncoder) item(i int, it any) (text string, raw []byte, err error) {
	if isMissing(it) {
		return "", nil, nil
	}
	switch v := it.(type) {
	case string:
		if c.kind == vlenText {
			if !utf8.ValidString(v) {
				return "", nil, errConfig(c.id, "item %d is not valid UTF-8", i)
			}
			return v, nil, nil
		}
	case []byte:
		if c.kind == vlenBytes {
			return "", v, nil
		}
	}
	want := "string"
	if c.kind == vlenBytes {
		want = "[]byte"
	}
	return "", nil, errConfig(c.id, "item %d is a %T, want a %s", i, it, want)
}

// Config returns {"id":"vlen-utf8"} or {"id":"vlen-bytes"}.
func (c vlenEncoder) Config() json.RawMessage { return configJSON(map[string]any{"id": c.id}) }

// isMissing reports the values numcodecs' vlen codecs write as empty: None
// and anything equal to 0 in Python (0, 0.0, False).
func isMissing(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case int:
		return x == 0
	case int64:
		return x == 0
	case uint64:
		return x == 0
	case float64:
		return x == 0
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	}
	return false
}

// checkShape reports whether n items fill a chunk of shape.
func checkShape(id string, n int, shape []int) error {
	want := 1
	for _, d := range shape {
		if d < 0 {
			return errConfig(id, "negative extent in chunk shape %v", shape)
		}
		if d != 0 && want > math.MaxInt/d {
			return errConfig(id, "chunk shape %v overflows", shape)
		}
		want *= d
	}
	if n != want {
		return errConfig(id, "%d items for chunk shape %v (%d items)", n, shape, want)
	}
	return nil
}
