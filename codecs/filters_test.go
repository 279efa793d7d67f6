package codecs

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"math"
	"testing"
)

func TestFilters(t *testing.T) {
	seq := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	tests := []struct {
		name    string
		config  string
		enc     []byte
		want    []byte
		limit   int // 0: len(want)
		wantErr error
	}{
		{"shuffle 4", `{"id":"shuffle","elementsize":4}`, shuffleBytes(seq, 4), seq, 0, nil},
		{"shuffle default size", `{"id":"shuffle"}`, shuffleBytes(seq, 4), seq, 0, nil},
		{"shuffle 0 is a copy", `{"id":"shuffle","elementsize":0}`, seq, seq, 0, nil},
		{"shuffle leftover bytes kept", `{"id":"shuffle","elementsize":8}`, append(shuffleBytes(seq[:8], 8), seq[8:]...), seq, 0, nil},
		{"shuffle over limit", `{"id":"shuffle","elementsize":2}`, seq, nil, 11, ErrTooLarge},
		{"delta i2", `{"id":"delta","dtype":"<i2"}`, i16s(5, 1, -2, 10), i16s(5, 6, 4, 14), 0, nil},
		{"delta i2 as i1 wraps", `{"id":"delta","dtype":"<i2","astype":"|i1"}`, []byte{0x7f, 0x7f, 0x7f}, i16s(127, 254, 381), 0, nil},
		{"delta u1 wraps", `{"id":"delta","dtype":"|u1"}`, []byte{250, 10}, []byte{250, 4}, 0, nil},
		{"delta big-endian i4", `{"id":"delta","dtype":">i4"}`, []byte{0, 0, 0, 1, 0, 0, 0, 2}, []byte{0, 0, 0, 1, 0, 0, 0, 3}, 0, nil},
		{"delta f8", `{"id":"delta","dtype":"<f8"}`, float64s(1.5, 0.25, -1), float64s(1.5, 1.75, 0.75), 0, nil},
		{"delta f4 accumulates in f4", `{"id":"delta","dtype":"<f4"}`, float32s(1, 1e-8, 1e-8), float32s(1, 1, 1), 0, nil},
		{"delta ragged input", `{"id":"delta","dtype":"<i2"}`, []byte{1, 2, 3}, nil, 10, ErrCorrupt},
		{"delta over limit", `{"id":"delta","dtype":"<i2","astype":"|i1"}`, []byte{1, 2, 3}, nil, 5, ErrTooLarge},
		{"astype i2 to f8", `{"id":"astype","encode_dtype":"<i2","decode_dtype":"<f8"}`, i16s(-3, 7), float64s(-3, 7), 0, nil},
		{"astype f8 to i4 truncates", `{"id":"astype","encode_dtype":"<f8","decode_dtype":"<i4"}`, float64s(2.9, -2.9), i32s(2, -2), 0, nil},
		{"astype f2 to f8", `{"id":"astype","encode_dtype":"<f2","decode_dtype":"<f8"}`, []byte{0x00, 0x3c, 0x00, 0xc0, 0x01, 0x00, 0x00, 0x7c}, float64s(1, -2, math.Ldexp(1, -24), math.Inf(1)), 0, nil},
		{"astype u8 to i8 keeps bits", `{"id":"astype","encode_dtype":"<u8","decode_dtype":"<i8"}`, u64s(math.MaxUint64), u64s(math.MaxUint64), 0, nil},
		{"quantize f4 to f8", `{"id":"quantize","digits":2,"dtype":"<f8","astype":"<f4"}`, float32s(0.5, 0.25), float64s(0.5, 0.25), 0, nil},
		{"fixedscaleoffset", `{"id":"fixedscaleoffset","scale":10,"offset":1000,"dtype":"<f8","astype":"|i1"}`, []byte{5, 0xfb}, float64s(1000.5, 999.5), 0, nil},
		{"fixedscaleoffset to int", `{"id":"fixedscaleoffset","scale":2,"offset":0,"dtype":"<i4","astype":"<i2"}`, i16s(5, -5), i32s(2, -2), 0, nil},
		{"bitround passes through", `{"id":"bitround","keepbits":3}`, seq, seq, 0, nil},
		{"packbits", `{"id":"packbits"}`, []byte{3, 0b10110000}, []byte{1, 0, 1, 1, 0}, 0, nil},
		{"packbits no padding", `{"id":"packbits"}`, []byte{0, 0xff, 0x01}, []byte{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1}, 0, nil},
		{"packbits zero length", `{"id":"packbits"}`, []byte{0}, []byte{}, 0, nil},
		{"packbits empty input", `{"id":"packbits"}`, nil, nil, 10, ErrCorrupt},
		{"packbits padding 8", `{"id":"packbits"}`, []byte{8, 0}, nil, 10, ErrCorrupt},
		{"packbits over limit", `{"id":"packbits"}`, []byte{0, 0, 0}, nil, 15, ErrTooLarge},
		{"categorize text", `{"id":"categorize","labels":["a","bé","long"],"dtype":"<U2","astype":"|u1"}`, []byte{1, 2, 0, 3, 9}, utf32("a", 2, "bé", 2, "", 2, "lo", 2, "", 2), 0, nil},
		{"categorize ragged", `{"id":"categorize","labels":["a"],"dtype":"<U1","astype":"<u2"}`, []byte{1}, nil, 10, ErrCorrupt},
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
			if tc.wantErr == nil && (got[0] != 9 || !bytes.Equal(got[1:], tc.want)) {
				t.Fatalf("decoded % x, want % x", got[1:], tc.want)
			}
		})
	}
}

func TestChecksums(t *testing.T) {
	data := []byte("the quick brown fox")
	crc := crc32.ChecksumIEEE(data)
	crcc := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
	adl := adler32.Checksum(data)
	prefix := func(sum uint32) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, sum), data...)
	}
	// Fletcher-32 of the big-endian words "ab" "cd" "ef" equals the
	// textbook (little-endian words) value for "abcdef", 0x56502D2A.
	swapped := []byte("badcfe")
	tests := []struct {
		name    string
		config  string
		enc     []byte
		want    []byte
		wantErr error
	}{
		{"crc32 at start", `{"id":"crc32"}`, prefix(crc), data, nil},
		{"crc32 at end", `{"id":"crc32","location":"end"}`, withChecksum(data, crc), data, nil},
		{"crc32 mismatch", `{"id":"crc32"}`, prefix(crc ^ 1), nil, ErrCorrupt},
		{"crc32c at end", `{"id":"crc32c"}`, withChecksum(data, crcc), data, nil},
		{"crc32c at start", `{"id":"crc32c","location":"start"}`, prefix(crcc), data, nil},
		{"crc32c mismatch", `{"id":"crc32c"}`, withChecksum(data, crc), nil, ErrCorrupt},
		{"adler32", `{"id":"adler32"}`, prefix(adl), data, nil},
		{"checksum of nothing", `{"id":"adler32"}`, binary.LittleEndian.AppendUint32(nil, 1), []byte{}, nil},
		{"too short", `{"id":"crc32"}`, []byte{1, 2, 3}, nil, ErrCorrupt},
		{"fletcher32 known value", `{"id":"fletcher32"}`, withChecksum(swapped, 0x56502d2a), swapped, nil},
		{"fletcher32 known value 2", `{"id":"fletcher32"}`, withChecksum([]byte("badcfehg"), 0xebe19591), []byte("badcfehg"), nil},
		{"fletcher32 legacy byte order", `{"id":"fletcher32"}`, withChecksum(swapped, 0x50562a2d), swapped, nil},
		{"fletcher32 mismatch", `{"id":"fletcher32"}`, withChecksum(swapped, 0x56502d2b), nil, ErrCorrupt},
		{"fletcher32 odd length", `{"id":"fletcher32"}`, withChecksum([]byte("abc"), fletcher32([]byte("abc"))), []byte("abc"), nil},
		{"fletcher32 too short", `{"id":"fletcher32"}`, []byte{1}, nil, ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCodec(t, tc.config)
			got, err := c.Decode(nil, tc.enc, 1000)
			wantErr(t, err, tc.wantErr)
			if tc.wantErr == nil && !bytes.Equal(got, tc.want) {
				t.Fatalf("decoded %q, want %q", got, tc.want)
			}
			if tc.wantErr == nil && len(tc.want) > 0 {
				_, err := c.Decode(nil, tc.enc, len(tc.want)-1)
				wantErr(t, err, ErrTooLarge)
			}
		})
	}
}

// TestFletcher32Long crosses the 360-word folding boundary: the sums must
// equal a direct modulo-65535 computation.
func TestFletcher32Long(t *testing.T) {
	for _, n := range []int{0, 2, 719, 720, 721, 10_001} {
		b := signal(n + n%2)[:n]
		for i := range b {
			b[i] |= 0x80 // large words stress the folding
		}
		var s1, s2 uint64
		for i := 0; i < n; i += 2 {
			w := uint64(b[i]) << 8
			if i+1 < n {
				w |= uint64(b[i+1])
			}
			s1 = (s1 + w) % 65535
			s2 = (s2 + s1) % 65535
		}
		got := fletcher32(b)
		if uint64(got>>16)%65535 != s2 || uint64(got&0xffff)%65535 != s1 {
			t.Errorf("n=%d: fletcher32 = %#08x, want sums %#04x %#04x (mod 65535)", n, got, s2, s1)
		}
	}
}

func TestHalfFloat(t *testing.T) {
	tests := []struct {
		h uint16
		f float32
	}{
		{0x0000, 0}, {0x8000, float32(math.Copysign(0, -1))}, {0x3c00, 1}, {0xc000, -2},
		{0x7bff, 65504}, {0x0400, float32(math.Ldexp(1, -14))}, {0x0001, float32(math.Ldexp(1, -24))},
		{0x03ff, float32(math.Ldexp(1023, -24))}, {0x7c00, float32(math.Inf(1))}, {0x3555, 0.333251953125},
	}
	for _, tc := range tests {
		if got := halfToFloat32(tc.h); math.Float32bits(got) != math.Float32bits(tc.f) {
			t.Errorf("halfToFloat32(%#04x) = %v, want %v", tc.h, got, tc.f)
		}
		if got := float32ToHalf(tc.f); got != tc.h {
			t.Errorf("float32ToHalf(%v) = %#04x, want %#04x", tc.f, got, tc.h)
		}
	}
	if h := float32ToHalf(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("NaN narrowed to %#04x", h)
	}
	// Ties round to even: 1+2^-11 lies halfway between 1 and 1+2^-10.
	if h := float32ToHalf(1 + 1.0/2048); h != 0x3c00 {
		t.Errorf("tie rounded to %#04x, want 0x3c00", h)
	}
	if h := float32ToHalf(70000); h != 0x7c00 {
		t.Errorf("overflow narrowed to %#04x, want +Inf", h)
	}
}

func TestBadFilterConfigs(t *testing.T) {
	for _, config := range []string{
		`{"id":"delta","dtype":"<c16"}`,
		`{"id":"delta","dtype":"i2"}`,
		`{"id":"delta"}`,
		`{"id":"astype","encode_dtype":"<f8"}`,
		`{"id":"quantize","dtype":"<f8"}`,
		`{"id":"quantize","digits":2,"dtype":"<i4"}`,
		`{"id":"fixedscaleoffset","dtype":"<f8","scale":1}`,
		`{"id":"shuffle","elementsize":-1}`,
		`{"id":"bitround"}`,
		`{"id":"categorize","labels":["a"],"dtype":"<f8","astype":"|u1"}`,
		`{"id":"categorize","labels":["a"],"dtype":"<U1","astype":"<f4"}`,
		`{"id":"crc32","location":"middle"}`,
		`{"id":"vlen-array","dtype":"|O"}`,
		`{"id":"shuffle","elementsize":"four"}`,
	} {
		t.Run(config, func(t *testing.T) {
			_, err := newAny(Builtin(), []byte(config))
			wantErr(t, err, ErrConfig)
		})
	}
}

func i16s(vs ...int16) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	return b
}

func i32s(vs ...int32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return b
}

func u64s(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

func float32s(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// utf32 encodes pairs of (text, width) as numpy <U width cells.
func utf32(pairs ...any) []byte {
	var b []byte
	for i := 0; i < len(pairs); i += 2 {
		s, width := pairs[i].(string), pairs[i+1].(int)
		cell := make([]byte, 4*width)
		k := 0
		for _, r := range s {
			binary.LittleEndian.PutUint32(cell[4*k:], uint32(r))
			k++
		}
		b = append(b, cell...)
	}
	return b
}
