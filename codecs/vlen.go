package codecs

import (
	"encoding/binary"
	"unicode/utf8"
)

// vlenCodec decodes the numcodecs variable-length layout: a 4-byte
// little-endian item count, then for each item a 4-byte little-endian byte
// length and the bytes. vlen-utf8 items become strings (invalid UTF-8 is an
// error), vlen-bytes items []byte (capacity-limited views of one copy of the
// chunk), vlen-array items typed slices.
type vlenCodec struct {
	id   string
	kind vlenKind
	item func(b []byte) (any, error) // vlen-array only
}

// vlenKind selects how items are materialised.
type vlenKind int

const (
	vlenText vlenKind = iota
	vlenBytes
	vlenArray
)

// newVLenArray decodes items to []int8 … []int64, []uint8 … []uint64,
// []float32 (for f2 and f4) or []float64, in native byte order.
func newVLenArray(config []byte) (ObjectCodec, error) {
	const id = "vlen-array"
	var cfg struct {
		DType string `json:"dtype"`
	}
	if err := parseConfig(id, config, &cfg); err != nil {
		return nil, err
	}
	t, err := parseNumType(id, cfg.DType)
	if err != nil {
		return nil, err
	}
	return &vlenCodec{id: id, kind: vlenArray, item: func(b []byte) (any, error) {
		if len(b)%t.size != 0 {
			return nil, errCorrupt(id, "item of %d bytes is not a whole number of %s elements", len(b), t.str)
		}
		return typedSlice(t, b), nil
	}}, nil
}

func (c *vlenCodec) DecodeObjects(src []byte, n int) ([]any, error) {
	if len(src) < 4 {
		return nil, errCorrupt(c.id, "input of %d bytes has no item count", len(src))
	}
	count := binary.LittleEndian.Uint32(src)
	// Every item costs at least its 4-byte length: this bounds the count
	// before anything is allocated from it.
	if uint64(count) > uint64((len(src)-4)/4) {
		return nil, errCorrupt(c.id, "item count %d exceeds what %d bytes can hold", count, len(src))
	}
	if n >= 0 && int(count) != n {
		return nil, errCorrupt(c.id, "%d items, want %d", count, n)
	}
	// Text and byte items share one copy of the input, so a chunk costs two
	// allocations rather than one per item; items never alias src.
	var text string
	var raw []byte
	switch c.kind {
	case vlenText:
		text = string(src)
	case vlenBytes:
		raw = append([]byte(nil), src...)
	}
	items := make([]any, count)
	pos := 4
	for i := range items {
		if len(src)-pos < 4 {
			return nil, errCorrupt(c.id, "item %d: truncated length", i)
		}
		l := binary.LittleEndian.Uint32(src[pos:])
		pos += 4
		if uint64(l) > uint64(len(src)-pos) {
			return nil, errCorrupt(c.id, "item %d: length %d past the end of the input", i, l)
		}
		end := pos + int(l)
		switch c.kind {
		case vlenText:
			if !utf8.ValidString(text[pos:end]) {
				return nil, errCorrupt(c.id, "item %d is not valid UTF-8", i)
			}
			items[i] = text[pos:end]
		case vlenBytes:
			items[i] = raw[pos:end:end]
		default:
			v, err := c.item(src[pos:end])
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		pos = end
	}
	if pos != len(src) {
		return nil, errCorrupt(c.id, "%d bytes after the last item", len(src)-pos)
	}
	return items, nil
}

// typedSlice converts raw elements of t to a Go slice of the matching type.
func typedSlice(t numType, b []byte) any {
	n := len(b) / t.size
	switch {
	case t.kind == 'f' && t.size == 8:
		return fill(make([]float64, n), t, b, func(p []byte) float64 { return t.float(p) })
	case t.kind == 'f':
		return fill(make([]float32, n), t, b, func(p []byte) float32 { return float32(t.float(p)) })
	case t.kind == 'i' && t.size == 1:
		return fill(make([]int8, n), t, b, func(p []byte) int8 { return int8(t.int(p)) })
	case t.kind == 'i' && t.size == 2:
		return fill(make([]int16, n), t, b, func(p []byte) int16 { return int16(t.int(p)) })
	case t.kind == 'i' && t.size == 4:
		return fill(make([]int32, n), t, b, func(p []byte) int32 { return int32(t.int(p)) })
	case t.kind == 'i':
		return fill(make([]int64, n), t, b, func(p []byte) int64 { return t.int(p) })
	case t.size == 1:
		return append([]uint8(nil), b...)
	case t.size == 2:
		return fill(make([]uint16, n), t, b, func(p []byte) uint16 { return uint16(t.bits(p)) })
	case t.size == 4:
		return fill(make([]uint32, n), t, b, func(p []byte) uint32 { return uint32(t.bits(p)) })
	}
	return fill(make([]uint64, n), t, b, func(p []byte) uint64 { return t.bits(p) })
}

// fill sets out[i] to load(element i of b).
func fill[T any](out []T, t numType, b []byte, load func([]byte) T) []T {
	for i := range out {
		out[i] = load(b[i*t.size:])
	}
	return out
}
