package blosc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// testData returns n bytes that compress somewhat, like real arrays: a
// slowly varying float64 signal with noise in the low bits.
func testData(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	b := make([]byte, n+8)
	for i := 0; i < n; i += 8 {
		v := math.Sin(float64(i)/5000) + float64(r.IntN(16))/1024
		binary.LittleEndian.PutUint64(b[i:], math.Float64bits(v))
	}
	return b[:n]
}

var codeNames = map[int]string{-1: "raw", codeBlosclz: "blosclz", codeLZ4: "lz4", codeSnappy: "snappy", codeZlib: "zlib", codeZstd: "zstd"}

// TestRoundTrip decodes chunks from the test encoder across compressors,
// shuffles, typesizes (including > 16, where blocks are never split),
// split and unsplit blocks, and a short last block.
func TestRoundTrip(t *testing.T) {
	for _, code := range []int{-1, codeBlosclz, codeLZ4, codeSnappy, codeZlib, codeZstd} {
		for _, shuf := range []int{0, 1, 2} {
			for _, ts := range []int{1, 2, 3, 4, 8, 16, 24} {
				for _, dontSplit := range []bool{false, true} {
					blocksize := ts * 200
					nbytes := 3*blocksize + 5*ts + 3 // short last block with a partial element
					name := fmt.Sprintf("%s/shuffle%d/ts%d/dontsplit=%v", codeNames[code], shuf, ts, dontSplit)
					t.Run(name, func(t *testing.T) {
						data := testData(nbytes, uint64(ts))
						opts := encOpts{typesize: ts, blocksize: blocksize, shuffle: shuf, code: code, dontSplit: dontSplit}
						src := encodeChunk(t, data, opts)
						got, err := Decode(nil, src, nbytes)
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got, data) {
							t.Fatal("decoded bytes differ")
						}
					})
				}
			}
		}
	}
}

func TestDecodeCases(t *testing.T) {
	data := testData(10000, 7)
	tests := []struct {
		name  string
		data  []byte
		opts  encOpts
		pad   int // garbage appended after the chunk
		limit int
	}{
		{"memcpyed", data, encOpts{typesize: 8, blocksize: 4096, memcpyed: true}, 0, len(data)},
		{"memcpyed padded", data, encOpts{typesize: 8, blocksize: 4096, memcpyed: true}, 9, len(data)},
		{"lz4 padded", data, encOpts{typesize: 8, blocksize: 4096, shuffle: 1, code: codeLZ4}, 100, len(data)},
		{"one block", data, encOpts{typesize: 8, blocksize: len(data), shuffle: 1, code: codeLZ4}, 0, len(data)},
		{"blocks of one byte", data[:300], encOpts{typesize: 1, blocksize: 1, code: codeLZ4}, 0, 300},
		{"typesize 255 bitshuffle", data[:255*16+7], encOpts{typesize: 255, blocksize: 255 * 8, shuffle: 2, code: codeZstd}, 0, 255*16 + 7},
		{"block smaller than element", data[:40], encOpts{typesize: 16, blocksize: 12, shuffle: 2, code: -1}, 0, 40},
		{"limit above size", data, encOpts{typesize: 4, blocksize: 2048, shuffle: 2, code: codeSnappy}, 0, 1 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := encodeChunk(t, tt.data, tt.opts)
			src = append(src, bytes.Repeat([]byte{0xEE}, tt.pad)...)
			got, err := Decode([]byte("x"), src, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got[0] != 'x' || !bytes.Equal(got[1:], tt.data) {
				t.Fatal("decoded bytes differ")
			}
		})
	}
}

// TestBitShuffleNotMultipleOf8 pins c-blosc 1.x's rule without the
// reference encoder: a block of 12 elements is stored as is, even with the
// bit shuffle flag, while a block of 16 is not.
func TestBitShuffleNotMultipleOf8(t *testing.T) {
	data := testData(4*(12+12+16), 3)
	src := encodeChunk(t, data[:96], encOpts{typesize: 4, blocksize: 48, shuffle: 2, code: -1})
	if !bytes.Contains(src, data[:48]) || !bytes.Contains(src, data[48:96]) {
		t.Fatal("blocks of 12 elements were not stored unshuffled")
	}
	got, err := Decode(nil, src, 96)
	if err != nil || !bytes.Equal(got, data[:96]) {
		t.Fatalf("decode: %v, equal %v", err, bytes.Equal(got, data[:96]))
	}
	src = encodeChunk(t, data[96:], encOpts{typesize: 4, blocksize: 64, shuffle: 2, code: -1})
	if bytes.Contains(src, data[96:]) {
		t.Fatal("a block of 16 elements was not bit-shuffled")
	}
	got, err = Decode(nil, src, 64)
	if err != nil || !bytes.Equal(got, data[96:]) {
		t.Fatalf("decode: %v, equal %v", err, bytes.Equal(got, data[96:]))
	}
}

func TestDecodeEmpty(t *testing.T) {
	src := encodeChunk(t, nil, encOpts{typesize: 4, blocksize: 0, memcpyed: true})
	got, err := Decode([]byte("keep"), src, 0)
	if err != nil || string(got) != "keep" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// TestDecodeParallel decodes chunks large enough to use several
// goroutines; run it with -race.
func TestDecodeParallel(t *testing.T) {
	for _, code := range []int{codeLZ4, codeZstd, codeBlosclz} {
		t.Run(codeNames[code], func(t *testing.T) {
			data := testData(3<<20+123, 11)
			src := encodeChunk(t, data, encOpts{typesize: 8, blocksize: 64 << 10, shuffle: 1, code: code})
			got, err := Decode(nil, src, len(data))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Fatal("decoded bytes differ")
			}
			// A corrupt block in the middle must fail the whole chunk.
			bad := bytes.Clone(src)
			off := binary.LittleEndian.Uint32(bad[HeaderSize+4*20:])
			binary.LittleEndian.PutUint32(bad[off:], uint32(len(bad)))
			if _, err := Decode(nil, bad, len(data)); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	data := bytes.Repeat([]byte("abcdefgh12345678"), 250) // compresses: streams are not raw
	good := encodeChunk(t, data, encOpts{typesize: 4, blocksize: 1024, shuffle: 1, code: codeLZ4})
	mem := encodeChunk(t, data, encOpts{typesize: 4, blocksize: 1024, memcpyed: true})
	set32 := func(b []byte, off int, v uint32) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint32(b[off:], v)
		return b
	}
	setByte := func(b []byte, off int, v byte) []byte {
		b = bytes.Clone(b)
		b[off] = v
		return b
	}
	block0 := int(binary.LittleEndian.Uint32(good[HeaderSize:]))
	tests := []struct {
		name  string
		src   []byte
		limit int
		want  error
	}{
		{"empty input", nil, 4000, ErrCorrupt},
		{"short header", good[:15], 4000, ErrCorrupt},
		{"version 1", setByte(good, 0, 1), 4000, ErrUnsupported},
		{"version 3", setByte(good, 0, 3), 4000, ErrUnsupported},
		{"over limit", good, 3999, ErrTooLarge},
		{"negative limit", good, -1, ErrTooLarge},
		{"huge nbytes", set32(good, 4, 0xFFFFFFFF), 4000, ErrTooLarge},
		{"nbytes above blosc maximum", set32(good, 4, 0x7FFFFFF8), math.MaxInt, ErrCorrupt},
		{"blocksize above 2^31", set32(good, 8, 0x80000000), 4000, ErrCorrupt},
		{"cbytes above 2^31", set32(good, 12, 0x80000000), 4000, ErrCorrupt},
		{"truncated", good[:len(good)-1], 4000, ErrCorrupt},
		{"cbytes below header", set32(good, 12, 8), 4000, ErrCorrupt},
		{"typesize 0", setByte(good, 3, 0), 4000, ErrCorrupt},
		{"blocksize 0", set32(good, 8, 0), 4000, ErrCorrupt},
		{"blocksize above nbytes", set32(good, 8, 4001), 4000, ErrCorrupt},
		{"reserved flag", setByte(good, 2, good[2]|0x08), 4000, ErrUnsupported},
		{"compressor 5", setByte(good, 2, good[2]&0x1F|5<<5), 4000, ErrUnsupported},
		{"compressor 7", setByte(good, 2, good[2]&0x1F|7<<5), 4000, ErrUnsupported},
		{"memcpyed cbytes wrong", set32(mem, 12, uint32(len(mem)-1)), 4000, ErrCorrupt},
		{"memcpyed truncated", mem[:len(mem)-1], 4000, ErrCorrupt},
		{"block offsets do not fit", set32(good, 8, 1), 4000, ErrCorrupt},
		{"block offset past end", set32(good, HeaderSize, uint32(len(good))), 4000, ErrCorrupt},
		{"block offset huge", set32(good, HeaderSize, 0xFFFFFFFF), 4000, ErrCorrupt},
		{"stream size overruns", set32(good, block0, uint32(len(good))), 4000, ErrCorrupt},
		{"stream size huge", set32(good, block0, 0xFFFFFFFF), 4000, ErrCorrupt},
		{"stream data corrupt", set32(good, block0+4, 0xFFFFFFFF), 4000, ErrCorrupt},
		{"wrong compressor", setByte(good, 2, good[2]&0x1F|codeZstd<<5), 4000, ErrCorrupt},
		{"block not splittable", setByte(set32(good, 8, 1023), 2, good[2]&^FlagDontSplit), 4000, ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Decode([]byte("dst"), tt.src, tt.limit)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if string(out) != "dst" {
				t.Fatalf("dst changed to %d bytes on error", len(out))
			}
		})
	}
}

// TestTooLargeAllocatesNothing checks that the limit is enforced before
// any allocation sized from the header.
func TestTooLargeAllocatesNothing(t *testing.T) {
	src := make([]byte, HeaderSize)
	src[0], src[3] = formatVersion, 1
	binary.LittleEndian.PutUint32(src[4:], 1<<31-100)
	binary.LittleEndian.PutUint32(src[8:], 1<<20)
	binary.LittleEndian.PutUint32(src[12:], HeaderSize)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := Decode(nil, src, 1<<20); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Fatalf("%d bytes allocated rejecting 10 chunks", n)
	}
}

func TestParseHeader(t *testing.T) {
	src := encodeChunk(t, testData(4000, 1), encOpts{typesize: 8, blocksize: 1024, shuffle: 2, code: codeZstd, dontSplit: true})
	h, err := ParseHeader(src)
	if err != nil {
		t.Fatal(err)
	}
	want := Header{Version: 2, VersionLZ: 1, Flags: FlagBitShuffle | FlagDontSplit | codeZstd<<5,
		TypeSize: 8, NBytes: 4000, BlockSize: 1024, CBytes: len(src)}
	if h != want {
		t.Fatalf("got %+v, want %+v", h, want)
	}
	tests := []struct {
		flags      byte
		typesize   int
		compressor string
		shuffle    string
		memcpyed   bool
	}{
		{0x21, 8, "lz4", "byte", false},
		{0x01, 1, "blosclz", "none", false},
		{0x05, 1, "blosclz", "bit", false},
		{0x05, 2, "blosclz", "byte", false},
		{0x46, 4, "snappy", "bit", true},
		{0x60, 4, "zlib", "none", false},
		{0xE0, 4, "unknown(7)", "none", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("flags%#x", tt.flags), func(t *testing.T) {
			h := Header{Flags: tt.flags, TypeSize: tt.typesize}
			if h.Compressor() != tt.compressor || h.Shuffle() != tt.shuffle || h.Memcpyed() != tt.memcpyed {
				t.Fatalf("got %s %s %v", h.Compressor(), h.Shuffle(), h.Memcpyed())
			}
		})
	}
}
