package codecs

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
)

// deltaCodec undoes the numcodecs "delta" filter: the first element stored
// as is and then the differences, each in astype; decoding is a cumulative
// sum in dtype (wrapping for integers, rounded to dtype for floats).
type deltaCodec struct {
	dtype, astype numType
}

func newDelta(config []byte) (Codec, error) {
	const id = "delta"
	var cfg struct {
		DType  string  `json:"dtype"`
		AsType *string `json:"astype"`
	}
	if err := parseConfig(id, config, &cfg); err != nil {
		return nil, err
	}
	dt, err := parseNumType(id, cfg.DType)
	if err != nil {
		return nil, err
	}
	at := dt
	if cfg.AsType != nil {
		if at, err = parseNumType(id, *cfg.AsType); err != nil {
			return nil, err
		}
	}
	return &deltaCodec{dtype: dt, astype: at}, nil
}

func (c *deltaCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "delta"
	dst, out, n, err := extendElements(id, dst, src, c.astype, c.dtype.size, limit)
	if err != nil {
		return dst, err
	}
	in, ds, as := src, c.dtype.size, c.astype.size
	switch {
	case c.dtype == c.astype && !c.dtype.isFloat() && c.dtype.order == binary.ByteOrder(binary.LittleEndian):
		deltaSameInt(out, in, ds)
	case c.dtype.isFloat() && c.dtype.size == 8:
		var acc float64
		load, store := c.astype.loader(), c.dtype.storer()
		for i := 0; i < n; i++ {
			acc += load(in[i*as:])
			store(out[i*ds:], acc)
		}
	case c.dtype.isFloat():
		// numpy accumulates in the output type: round after every step.
		var acc float32
		for i := 0; i < n; i++ {
			acc += float32(c.astype.float(in[i*as:]))
			if ds == 2 {
				acc = halfToFloat32(float32ToHalf(acc))
			}
			c.dtype.putFloat(out[i*ds:], float64(acc))
		}
	default:
		var acc uint64
		for i := 0; i < n; i++ {
			acc += c.astypeInt(in[i*as:])
			c.dtype.putBits(out[i*ds:], acc)
		}
	}
	return dst, nil
}

// deltaSameInt is the common case of little-endian integers stored without
// a narrower astype: a running sum that wraps at the element width.
func deltaSameInt(out, in []byte, size int) {
	switch size {
	case 1:
		var acc byte
		for i, d := range in {
			acc += d
			out[i] = acc
		}
	case 2:
		var acc uint16
		for i := 0; i+2 <= len(in); i += 2 {
			acc += binary.LittleEndian.Uint16(in[i:])
			binary.LittleEndian.PutUint16(out[i:], acc)
		}
	case 4:
		var acc uint32
		for i := 0; i+4 <= len(in); i += 4 {
			acc += binary.LittleEndian.Uint32(in[i:])
			binary.LittleEndian.PutUint32(out[i:], acc)
		}
	default:
		var acc uint64
		for i := 0; i+8 <= len(in); i += 8 {
			acc += binary.LittleEndian.Uint64(in[i:])
			binary.LittleEndian.PutUint64(out[i:], acc)
		}
	}
}

// astypeInt reads a difference for an integer dtype, converting float
// encodings as numpy's cast would.
func (c *deltaCodec) astypeInt(b []byte) uint64 {
	if c.astype.isFloat() {
		f := c.astype.float(b)
		if f >= 0x1p63 && f < 0x1p64 {
			return uint64(f)
		}
		if math.IsNaN(f) {
			return 1 << 63
		}
		return uint64(floatToInt(f))
	}
	return uint64(c.astype.int(b))
}

// Encode stores the first element and then the wrapping differences of
// integer data, as numcodecs' Delta does when astype is dtype. Other
// configurations do not round-trip exactly (float differences round, a
// narrower astype truncates) and are refused.
func (c *deltaCodec) Encode(dst, src []byte, _ int) ([]byte, error) {
	const id = "delta"
	if c.dtype.isFloat() || c.astype.numpyStr() != c.dtype.numpyStr() {
		return dst, errConfig(id, "only integer data with astype equal to dtype encodes exactly, not dtype %s astype %s", c.dtype.str, c.astype.str)
	}
	n, err := elementCount(id, src, c.dtype)
	if err != nil {
		return dst, errConfig(id, "%d bytes is not a whole number of %s elements", len(src), c.dtype.str)
	}
	start := len(dst)
	dst = grow(dst, len(src))[:start+len(src)]
	out, size := dst[start:], c.dtype.size
	var prev uint64
	for i := range n {
		v := c.dtype.bits(src[i*size:])
		c.dtype.putBits(out[i*size:], v-prev)
		prev = v
	}
	return dst, nil
}

// Config returns {"astype":a,"dtype":d,"id":"delta"}.
func (c *deltaCodec) Config() json.RawMessage {
	return configJSON(map[string]any{"id": "delta", "dtype": c.dtype.numpyStr(), "astype": c.astype.numpyStr()})
}

// numpyStr is numpy's dtype.str for t: "|" for one-byte types, else the
// explicit byte order.
func (t numType) numpyStr() string {
	order := "<"
	switch {
	case t.size == 1:
		order = "|"
	case t.order == binary.ByteOrder(binary.BigEndian):
		order = ">"
	}
	return order + string(t.kind) + strconv.Itoa(t.size)
}

func (c *deltaCodec) MaxEncodedLen(n int) int { return n / c.dtype.size * c.astype.size }

// extendElements checks that src holds whole elements of from and that as many
// elements of width bytes fit within limit, then extends dst by their bytes.
// It returns the extended dst, the extension and the element count; on error,
// dst unchanged.
func extendElements(id string, dst, src []byte, from numType, width, limit int) ([]byte, []byte, int, error) {
	n, err := elementCount(id, src, from)
	if err != nil {
		return dst, nil, 0, err
	}
	if n > limit/width {
		return dst, nil, 0, errTooLarge(id, limit)
	}
	start := len(dst)
	dst = grow(dst, n*width)[:start+n*width]
	return dst, dst[start:], n, nil
}

// elementCount returns how many elements of t src holds, rejecting a length
// that is not a whole number of them.
func elementCount(id string, src []byte, t numType) (int, error) {
	if len(src)%t.size != 0 {
		return 0, errCorrupt(id, "%d bytes is not a whole number of %s elements", len(src), t.str)
	}
	return len(src) / t.size, nil
}
