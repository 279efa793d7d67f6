package codecs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"testing"
)

// soHeader is the 21-byte header of a scale-offset chunk: minbits, the size
// of minval, minval, 8 unused bytes.
func soHeader(minbits uint32, minval uint64) []byte {
	out := binary.LittleEndian.AppendUint32(nil, minbits)
	out = append(out, 8)
	out = binary.LittleEndian.AppendUint64(out, minval)
	return append(out, make([]byte, 8)...)
}

// soChunk builds a scale-offset chunk as the HDF5 library writes it: the
// header, then vals in minbits bits each, most significant bit first, one
// bit at a time.
func soChunk(minbits uint32, minval uint64, vals ...uint64) []byte {
	out := soHeader(minbits, minval)
	var packed []byte
	n := 0
	for _, v := range vals {
		for b := int(minbits) - 1; b >= 0; b-- {
			if n%8 == 0 {
				packed = append(packed, 0)
			}
			packed[n/8] |= byte(v>>b&1) << (7 - n%8)
			n++
		}
	}
	return append(append(out, packed...), 0) // the library's encoder may leave a byte more
}

func soConfig(dtype string, scaleType, factor, count int, fill any) string {
	cfg := fmt.Sprintf(`{"id":"hdf5_scaleoffset","dtype":%q,"scale_type":%d,"scale_factor":%d,"count":%d`, dtype, scaleType, factor, count)
	if fill != nil {
		cfg += fmt.Sprintf(`,"fill":%v`, fill)
	}
	return cfg + "}"
}

func u16be(v ...uint16) []byte {
	var out []byte
	for _, x := range v {
		out = binary.BigEndian.AppendUint16(out, x)
	}
	return out
}

func TestScaleOffsetDecode(t *testing.T) {
	neg5 := uint64(math.MaxUint64 - 4) // -5, as the library stores a signed minimum
	big := uint64(math.MaxUint64 - 9)
	tests := []struct {
		name    string
		config  string
		enc     []byte
		want    []byte
		limit   int // 0: len(want)
		wantErr error
	}{
		{"int32 offset", soConfig("<i4", 2, 0, 4, nil), soChunk(3, neg5, 0, 1, 7, 2), i32s(-5, -4, 2, -3), 0, nil},
		{"int32 fill", soConfig("<i4", 2, 0, 3, uint32(math.MaxUint32)), soChunk(3, 10, 7, 0, 6), i32s(-1, 10, 16), 0, nil},
		{"int32 given bits", soConfig("<i4", 2, 5, 2, nil), soChunk(5, 100, 31, 2), i32s(131, 102), 0, nil},
		{"uint16 big-endian", soConfig(">u2", 2, 0, 3, nil), soChunk(4, 1000, 0, 15, 9), u16be(1000, 1015, 1009), 0, nil},
		{"uint8 minbits 0", soConfig("|u1", 2, 0, 3, nil), soChunk(0, 42), []byte{42, 42, 42}, 0, nil},
		{"uint8 minbits 0 with a fill value", soConfig("|u1", 2, 0, 2, 7), soChunk(0, 42), []byte{7, 7}, 0, nil},
		{"uint64 of 63 bits wraps", soConfig("<u8", 2, 0, 2, nil), soChunk(63, big, 1<<62+3, 5), u64s(1<<62-7, big+5), 0, nil},
		{"int16 full precision", soConfig("<i2", 2, 0, 2, 0), append(soHeader(16, 0), i16s(-32768, 32767)...), i16s(-32768, 32767), 0, nil},
		{"int16 big-endian full precision", soConfig(">i2", 2, 0, 2, 0), append(soHeader(16, 0), i16s(-2, 300)...), u16be(0xfffe, 300), 0, nil},
		{"int8 of 8 minimum bits is not filtered", soConfig("|i1", 2, 8, 3, 0), []byte{1, 0x80, 3}, []byte{1, 0x80, 3}, 0, nil},
		{"float32 D-scale", soConfig("<f4", 0, 2, 3, 0), soChunk(8, uint64(math.Float32bits(-1.5)), 0, 150, 25),
			float32s(-1.5, 0, -1.25), 0, nil},
		{"float64 D-scale", soConfig("<f8", 0, 3, 2, nil), soChunk(20, math.Float64bits(2.5), 1250, 0), float64s(3.75, 2.5), 0, nil},
		{"float64 NaN fill", soConfig("<f8", 0, 1, 2, math.Float64bits(math.NaN())), soChunk(2, math.Float64bits(1), 3, 1),
			append(u64s(math.Float64bits(math.NaN())), float64s(1.1)...), 0, nil},
		{"float64 fill of all ones only", soConfig("<f8", 0, 0, 2, math.Float64bits(-2)), soChunk(3, math.Float64bits(0.5), 7, 6),
			float64s(-2, 6.5), 0, nil},
		{"float32 negative D-scale", soConfig("<f4", 0, -1, 1, nil), soChunk(4, 0, 3), float32s(30), 0, nil},
		{"short header", soConfig("<i4", 2, 0, 1, nil), soChunk(3, 0)[:20], nil, 4, ErrCorrupt},
		{"minbits beyond the type", soConfig("<i4", 2, 0, 1, nil), soChunk(33, 0, 1), nil, 4, ErrCorrupt},
		{"values cut short", soConfig("<i4", 2, 0, 8, nil), soChunk(12, 0, 1, 2, 3)[:24], nil, 32, ErrCorrupt},
		{"full precision cut short", soConfig("<i2", 2, 0, 4, nil), append(soHeader(16, 0), 1, 2, 3), nil, 8, ErrCorrupt},
		{"chunk over limit", soConfig("<i4", 2, 0, 4, nil), soChunk(3, 0, 1, 2, 3, 4), nil, 15, ErrTooLarge},
		{"unfiltered over limit", soConfig("|u1", 2, 8, 4, nil), []byte{1, 2, 3, 4}, nil, 3, ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCodec(t, tc.config)
			limit := tc.limit
			if limit == 0 {
				limit = len(tc.want)
			}
			got, err := c.Decode([]byte{9}, tc.enc, limit)
			wantErr(t, err, tc.wantErr)
			if err != nil {
				if len(got) != 1 {
					t.Fatalf("failed Decode returned %d bytes, want dst's 1", len(got))
				}
				if !strings.Contains(err.Error(), "hdf5_scaleoffset") {
					t.Fatalf("error %q does not name the codec", err)
				}
				return
			}
			if !bytes.Equal(got, append([]byte{9}, tc.want...)) {
				t.Fatalf("decoded % x, want 09 % x", got, tc.want)
			}
		})
	}
}

func TestScaleOffsetConfig(t *testing.T) {
	tests := []struct {
		name, config, errHas string
	}{
		{"E-scale", soConfig("<f4", 1, 8, 4, nil), "E-scale"},
		{"integer scale for floats", soConfig("<f8", 2, 0, 4, nil), "scale type 2"},
		{"D-scale for integers", soConfig("<i2", 0, 0, 4, nil), "scale type 0"},
		{"unknown scale type", soConfig("<i2", 7, 0, 4, nil), "scale type 7"},
		{"more bits than the type", soConfig("|i1", 2, 9, 4, nil), "9 minimum bits"},
		{"half floats", soConfig("<f2", 0, 1, 4, nil), "4 or 8 bytes"},
		{"three bytes", soConfig("<i3", 2, 0, 4, nil), "dtype"},
		{"fill wider than the type", soConfig("<u2", 2, 0, 4, 70000), "fill 70000"},
		{"negative count", soConfig("<u2", 2, 0, -1, nil), "count -1"},
		{"no count", `{"id":"hdf5_scaleoffset","dtype":"<i4","scale_type":2}`, "required"},
		{"not an object", `{"id":"hdf5_scaleoffset","dtype":4}`, "hdf5_scaleoffset"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Builtin().NewCodec([]byte(tc.config))
			wantErr(t, err, ErrConfig)
			if !strings.Contains(err.Error(), tc.errHas) {
				t.Fatalf("error %q does not say %q", err, tc.errHas)
			}
		})
	}
}

// soClientData is what the HDF5 library stores for the filter: the scale
// type and factor, the chunk's elements, the class, size, sign and order,
// whether a fill value is defined and its bits.
func soClientData(scaleType, factor, count, class, size, sign, order, filled uint32, fill uint64) []uint32 {
	cd := make([]uint32, 20)
	copy(cd, []uint32{scaleType, factor, count, class, size, sign, order, filled, uint32(fill), uint32(fill >> 32)})
	return cd
}

func TestScaleOffsetFilter(t *testing.T) {
	tests := []struct {
		name   string
		cd     []uint32
		want   string
		errHas string
	}{
		{"int32", soClientData(2, 0, 20, 0, 4, 1, 0, 1, 0), `{"count":20,"dtype":"<i4","fill":0,"id":"hdf5_scaleoffset","scale_factor":0,"scale_type":2}`, ""},
		{"uint8 without fill", soClientData(2, 3, 7, 0, 1, 0, 0, 0, 0), `{"count":7,"dtype":"|u1","id":"hdf5_scaleoffset","scale_factor":3,"scale_type":2}`, ""},
		{"big-endian int16 fill keeps its bits", soClientData(2, 0, 8, 0, 2, 1, 1, 1, 0xfff9), `{"count":8,"dtype":">i2","fill":65529,"id":"hdf5_scaleoffset","scale_factor":0,"scale_type":2}`, ""},
		{"float64 fill of 64 bits", soClientData(0, 5, 6, 1, 8, 0, 0, 1, math.Float64bits(-2)), `{"count":6,"dtype":"<f8","fill":13835058055282163712,"id":"hdf5_scaleoffset","scale_factor":5,"scale_type":0}`, ""},
		{"float32 fill ignores the next value", append(soClientData(0, 2, 4, 1, 4, 0, 0, 1, 0x7fc00000|99<<32)[:10], make([]uint32, 10)...), `{"count":4,"dtype":"<f4","fill":2143289344,"id":"hdf5_scaleoffset","scale_factor":2,"scale_type":0}`, ""},
		{"too few values", soClientData(2, 0, 20, 0, 4, 1, 0, 1, 0)[:19], "", "19 client data values"},
		{"none", nil, "", "0 client data values"},
		{"string class", soClientData(2, 0, 20, 3, 4, 1, 0, 1, 0), "", "type class 3"},
		{"bad sign", soClientData(2, 0, 20, 0, 4, 2, 0, 1, 0), "", "sign 2"},
		{"bad order", soClientData(2, 0, 20, 0, 4, 1, 2, 1, 0), "", "byte order 2"},
		{"size 16", soClientData(2, 0, 20, 0, 16, 1, 0, 1, 0), "", "16-byte"},
		{"bad fill flag", soClientData(2, 0, 20, 0, 4, 1, 0, 2, 0), "", "fill value flag 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HDF5Filter(6, tc.cd, 4)
			if tc.errHas != "" {
				wantErr(t, err, ErrConfig)
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %q does not say %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("config %s, want %s", got, tc.want)
			}
			if _, err := Builtin().NewCodec(got); err != nil {
				t.Fatalf("NewCodec(%s): %v", got, err)
			}
		})
	}
}

// soEncode encodes integers of type t (fill value undefined) as the HDF5
// library does when it computes the minimum bits: the minimum, then the
// offsets in the bits their range needs, or the values as they are (little-
// endian) when the range needs every bit.
func soEncode(t numType, src []byte) []byte {
	n := len(src) / t.size
	vals := make([]uint64, n)
	lo, hi := uint64(0), uint64(0)
	for i := range vals {
		vals[i] = t.bits(src[i*t.size:])
		if t.kind == 'i' {
			vals[i] = uint64(t.int(src[i*t.size:]))
		}
		if i == 0 || less(t, vals[i], lo) {
			lo = vals[i]
		}
		if i == 0 || less(t, hi, vals[i]) {
			hi = vals[i]
		}
	}
	width := 8 * t.size
	mask := uint64(math.MaxUint64) >> (64 - width)
	span := (hi - lo) & mask
	minbits := bits.Len64(span) // the least with 2^minbits ≥ span+1 values
	if n == 0 || span > mask-2 || minbits == width {
		out := soHeader(uint32(width), 0)
		for _, v := range vals {
			le := binary.LittleEndian.AppendUint64(nil, v)
			out = append(out, le[:t.size]...)
		}
		return out
	}
	offs := make([]uint64, n)
	for i := range vals {
		offs[i] = vals[i] - lo
	}
	return soChunk(uint32(minbits), lo, offs...)
}

// fuzzClientData builds the codec of 20 client data values read from b, as
// an HDF5 file may hold them, and decodes src with it when they make one.
func fuzzClientData(t *testing.T, b, src []byte) {
	cd := make([]uint32, 20)
	for i := range cd {
		cd[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	cfg, err := HDF5Filter(6, cd, 4)
	if err == nil {
		var c Codec
		if c, err = Builtin().NewCodec(cfg); err == nil {
			checkDecode(t, c, src, fuzzLimit)
			return
		}
	}
	if !errors.Is(err, ErrConfig) {
		t.Fatalf("client data %v: error %v does not wrap ErrConfig", cd, err)
	}
}

func less(t numType, a, b uint64) bool {
	if t.kind == 'i' {
		return int64(a) < int64(b)
	}
	return a < b
}

// FuzzScaleOffset checks the decoder's contract on any chunk, for integer
// and float configurations with and without a fill value and for any
// client data, and that integers encoded as the library encodes them decode
// back exactly.
func FuzzScaleOffset(f *testing.F) {
	configs := []string{soConfig("<i4", 2, 0, 16, nil), soConfig(">u2", 2, 0, 33, 5), soConfig("|i1", 2, 0, 7, nil),
		soConfig("<u8", 2, 0, 9, nil), soConfig("<f4", 0, 3, 16, 0), soConfig(">f8", 0, 2, 5, nil)}
	cs := make([]Codec, len(configs))
	for i, c := range configs {
		cs[i] = mustCodec(f, c)
	}
	f.Add(soChunk(3, 0, 1, 2, 3, 4, 5, 6, 7), byte(4), signal(64))
	f.Add(soChunk(0, 9), byte(1), []byte{1, 1, 1})
	f.Add(append(soChunk(64, 0), signal(72)...), byte(8), signal(80))
	var cd []byte // float32, D-scale 2, 8 elements, fill 0
	for _, v := range soClientData(0, 2, 8, 1, 4, 0, 0, 1, 0) {
		cd = binary.LittleEndian.AppendUint32(cd, v)
	}
	f.Add(soChunk(5, uint64(math.Float32bits(1.5)), 1, 2, 3, 4, 31, 0, 7, 9), byte(3), cd)
	f.Fuzz(func(t *testing.T, src []byte, size byte, plain []byte) {
		for _, c := range cs {
			checkDecode(t, c, src, fuzzLimit)
		}
		if len(plain) >= 80 {
			fuzzClientData(t, plain[:80], src)
		}
		kinds := map[byte]string{1: "|i1", 2: ">u2", 4: "<i4", 8: "<u8"}
		dtype, ok := kinds[size]
		if !ok {
			return
		}
		ty, _ := parseNumType("fuzz", dtype)
		plain = plain[:len(plain)/ty.size*ty.size]
		n := len(plain) / ty.size
		c := mustCodec(t, soConfig(dtype, 2, 0, n, nil))
		got := checkDecode(t, c, soEncode(ty, plain), len(plain))
		if !bytes.Equal(got, plain) {
			t.Fatalf("%s: decoded % x, want % x", dtype, got, plain)
		}
	})
}

// BenchmarkScaleOffset decodes 1 MiB chunks of int16 samples as the HDF5
// library packs them (12 of 16 bits), with and without a fill value, and of
// float32 with D-scale (17 bits).
func BenchmarkScaleOffset(b *testing.B) {
	const n = 1 << 20
	i2, _ := parseNumType("bench", "<i2")
	walk := signal(n)
	for i := 0; i < n; i += 2 {
		walk[i+1] &= 0x0f // 12 bits
	}
	enc := soEncode(i2, walk)
	f4 := make([]uint64, n/4)
	for i := range f4 {
		f4[i] = uint64(binary.LittleEndian.Uint16(walk[2*i:])) * 30 // offsets of 17 bits
	}
	for _, tc := range []struct {
		name, config string
		enc          []byte
	}{
		{"i2", soConfig("<i2", 2, 0, n/2, nil), enc},
		{"i2-fill", soConfig("<i2", 2, 0, n/2, 0), enc},
		{"f4-dscale", soConfig("<f4", 0, 3, n/4, 0), soChunk(17, uint64(math.Float32bits(-40)), f4...)},
	} {
		b.Run(tc.name, func(b *testing.B) { benchDecode(b, mustCodec(b, tc.config), tc.enc, n) })
	}
}
