package codecs

import (
	"encoding/binary"
	"math"
)

// The HDF5 library's scale-offset filter (filter 6, H5Z_FILTER_SCALEOFFSET),
// which no numcodecs codec reads, registered as "hdf5_scaleoffset" for
// reading HDF5 files. Its configuration is the filter's client data, named
// (codecs.HDF5Filter translates them):
//
//	{"id": "hdf5_scaleoffset", "dtype": "<i4", "scale_type": 2,
//	 "scale_factor": 0, "count": 1000, "fill": 0}
//
// dtype is the dataset's element type and byte order ("<i4", ">u2", "<f8";
// integers of 1, 2, 4 or 8 bytes, floats of 4 or 8), scale_type the
// library's H5Z_SO_scale_type_t (0 D-scale for floats, 1 E-scale, which the
// library never implemented, 2 integers), scale_factor the decimal scale of
// D-scale or the minimum bits of integers (0: computed per chunk), count the
// elements of a chunk, and fill the bits of the fill value as an unsigned
// integer, absent or null when the dataset defines none.
//
// A chunk is a 21-byte header, minbits (4 bytes, little-endian), the size of
// minval (1 byte, 8) and minval (8 bytes, little-endian, then 8 unused),
// followed by count values of minbits bits each, packed most significant
// bit first. A value of all ones is the fill value when one is defined;
// any other value v decodes, for integers, to v + minval wrapped to the
// type's width and, for floats, to v / 10^scale_factor + min in the type's
// precision, min being the float whose bits minval's low bytes hold. A
// chunk of minbits equal to the type's width holds the elements as they
// are, little-endian (the byte order of the machines that write HDF5
// files); minbits 0 stores no values (all are minval, or the fill value
// when one is defined). Integers whose scale_factor is their full width
// were not filtered at all.

// scaleOffsetHeader is the bytes before a chunk's packed values.
const scaleOffsetHeader = 21

// Scale types, as H5Z_SO_scale_type_t numbers them.
const (
	soFloatDScale = 0
	soFloatEScale = 1
	soInt         = 2
)

// scaleOffsetCodec undoes the HDF5 scale-offset filter for one dataset.
type scaleOffsetCodec struct {
	t       numType
	pow     float64 // 10^scale_factor, for floats with D-scale
	count   int     // elements per chunk
	fill    uint64  // the fill value's bits, when hasFill
	hasFill bool
	raw     bool // integers with as many minimum bits as the type: not filtered
}

func newScaleOffset(config []byte) (Codec, error) {
	const id = "hdf5_scaleoffset"
	var cfg struct {
		DType       string  `json:"dtype"`
		ScaleType   *int    `json:"scale_type"`
		ScaleFactor int32   `json:"scale_factor"`
		Count       *int    `json:"count"`
		Fill        *uint64 `json:"fill"`
	}
	if err := parseConfig(id, config, &cfg); err != nil {
		return nil, err
	}
	t, err := parseNumType(id, cfg.DType)
	if err != nil {
		return nil, err
	}
	if cfg.ScaleType == nil || cfg.Count == nil {
		return nil, errConfig(id, "\"scale_type\" and \"count\" are required")
	}
	if *cfg.Count < 0 || *cfg.Count > math.MaxInt32 {
		return nil, errConfig(id, "count %d", *cfg.Count)
	}
	c := &scaleOffsetCodec{t: t, count: *cfg.Count, hasFill: cfg.Fill != nil}
	if c.hasFill {
		c.fill = *cfg.Fill
		if t.size < 8 && c.fill>>(8*t.size) != 0 {
			return nil, errConfig(id, "fill %d does not fit %s", c.fill, t.str)
		}
	}
	if err := c.setScale(id, *cfg.ScaleType, int(cfg.ScaleFactor)); err != nil {
		return nil, err
	}
	return c, nil
}

// setScale checks the scale type against the element type, as the HDF5
// library does before filtering.
func (c *scaleOffsetCodec) setScale(id string, scaleType, factor int) error {
	switch {
	case c.t.isFloat() && scaleType == soFloatEScale:
		return errConfig(id, "scale type 1 (E-scale) of %s: the HDF5 library implements no E-scale either", c.t.str)
	case c.t.isFloat() && scaleType == soFloatDScale:
		if c.t.size == 2 {
			return errConfig(id, "dtype %s: the HDF5 library scales floats of 4 or 8 bytes", c.t.str)
		}
		c.pow = power(factor, c.t.size)
		return nil
	case !c.t.isFloat() && scaleType == soInt:
		bits := 8 * c.t.size
		if factor > bits {
			return errConfig(id, "%d minimum bits for %s of %d bits", factor, c.t.str, bits)
		}
		c.raw = factor == bits
		return nil
	}
	return errConfig(id, "scale type %d for dtype %s (0 D-scale for floats, 2 for integers)", scaleType, c.t.str)
}

func (c *scaleOffsetCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "hdf5_scaleoffset"
	if c.raw {
		if len(src) > limit {
			return dst, errTooLarge(id, limit)
		}
		return append(dst, src...), nil
	}
	n := c.count * c.t.size
	if n > limit {
		return dst, errTooLarge(id, limit)
	}
	if len(src) < scaleOffsetHeader {
		return dst, errCorrupt(id, "%d bytes, shorter than the %d-byte header", len(src), scaleOffsetHeader)
	}
	bits := 8 * c.t.size
	minbits := binary.LittleEndian.Uint32(src)
	if minbits > uint32(bits) {
		return dst, errCorrupt(id, "%d minimum bits for %s of %d bits", minbits, c.t.str, bits)
	}
	var minval uint64
	for i := range min(int(src[4]), 8) {
		minval |= uint64(src[5+i]) << (8 * i)
	}
	packed := src[scaleOffsetHeader:]
	if need := (uint64(c.count)*uint64(minbits) + 7) / 8; uint64(len(packed)) < need {
		return dst, errCorrupt(id, "%d bytes of %d-bit values, want %d for %d elements", len(packed), minbits, need, c.count)
	}
	start := len(dst)
	dst = grow(dst, n)[:start+n]
	out := dst[start:]
	if int(minbits) == bits {
		copy(out, packed[:n])
		if c.t.order == binary.BigEndian {
			swapElements(out, c.t.size)
		}
		return dst, nil
	}
	c.unpack(out, packed, uint(minbits), minval)
	return dst, nil
}

// unpack decodes count values of minbits bits (less than the type's width)
// from packed into out, in the dataset's byte order. It stores little-endian
// and swaps afterwards, so that the loop calls no byte order.
func (c *scaleOffsetCodec) unpack(out, packed []byte, minbits uint, minval uint64) {
	r := msbReader{src: packed}
	allOnes := uint64(1)<<minbits - 1
	size := c.t.size
	for i := range c.count {
		var v uint64
		if minbits > 0 {
			v = r.read(minbits)
		}
		e := c.fill
		if !c.hasFill || v != allOnes {
			e = c.value(v, minval)
		}
		putLE(out[i*size:], size, e)
	}
	if c.t.order == binary.BigEndian {
		swapElements(out, size)
	}
}

// value decodes a stored offset v that is not the fill value into the
// bits of the element.
func (c *scaleOffsetCodec) value(v, minval uint64) uint64 {
	switch {
	case !c.t.isFloat():
		return v + minval
	case c.t.size == 4:
		// float arithmetic, as the library's C does: the quotient rounded
		// to float before the sum.
		q := float32(float32(int32(v)) / float32(c.pow))
		return uint64(math.Float32bits(q + math.Float32frombits(uint32(minval))))
	}
	return math.Float64bits(float64(int64(v))/c.pow + math.Float64frombits(minval))
}

// putLE stores the low size bytes of v at b, little-endian.
func putLE(b []byte, size int, v uint64) {
	switch size {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, v)
	}
}

// power returns 10^d in the precision of the float type: exact for the
// factors h5py writes (10^0 to 10^10 for float32, to 10^22 for float64),
// and for negative ones the correctly rounded 1/10^-d, as the C library's
// powf and pow give.
func power(d, size int) float64 {
	if size == 4 && d < 0 && d >= -10 {
		return float64(float32(1) / float32(math.Pow10(-d)))
	}
	if size == 4 {
		return float64(float32(math.Pow10(d)))
	}
	return math.Pow10(d)
}

// MaxEncodedLen allows for the header and the byte the library's encoder
// may add past the packed values.
func (c *scaleOffsetCodec) MaxEncodedLen(n int) int { return n + scaleOffsetHeader + 1 }

// msbReader reads values packed most significant bit first.
type msbReader struct {
	src []byte
	pos int
	acc uint64 // the low n bits are unread
	n   uint
}

// read returns the next k bits (at most 63); the caller has checked that
// the input holds them. It refills 8 bytes at a time where it can.
func (r *msbReader) read(k uint) uint64 {
	if k > 56 {
		hi := r.read(k - 32)
		return hi<<32 | r.read(32)
	}
	if r.n < k {
		if r.pos+8 <= len(r.src) {
			take := (64 - r.n) / 8 // whole bytes that fit beside the unread bits
			w := binary.BigEndian.Uint64(r.src[r.pos:])
			r.acc = r.acc<<(8*take) | w>>(64-8*take)
			r.pos += int(take)
			r.n += 8 * take
		}
		for r.n < k {
			r.acc = r.acc<<8 | uint64(r.src[r.pos])
			r.pos++
			r.n += 8
		}
	}
	r.n -= k
	return r.acc >> r.n & (1<<k - 1)
}

// swapElements reverses the bytes of each size-byte element of b in place.
func swapElements(b []byte, size int) {
	for off := 0; off+size <= len(b); off += size {
		e := b[off : off+size]
		for i, j := 0, size-1; i < j; i, j = i+1, j-1 {
			e[i], e[j] = e[j], e[i]
		}
	}
}
