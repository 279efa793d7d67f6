package blosc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// ramp returns n bytes of slowly growing little-endian uint16 values.
func ramp(n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = byte((i / 2) >> (8 * (i % 2)) / 3)
	}
	return out
}

// random returns n incompressible bytes.
func random(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	return out
}

var encodeSizes = []int{0, 1, 40, 127, 128, 129, 4096, 40_000, 100_003, 270_001}

func TestEncodeRoundTrip(t *testing.T) {
	for _, cname := range []string{"lz4", "lz4hc", "zlib", "zstd"} {
		for _, ts := range []int{1, 2, 4, 8, 20, 300} {
			for _, sh := range []int{-1, 0, 1} {
				for _, level := range []int{0, 5, 9} {
					for _, n := range encodeSizes {
						for kind, data := range map[string][]byte{"ramp": ramp(n / ts * ts), "random": random(n/ts*ts, uint64(n))} {
							name := fmt.Sprintf("%s/ts%d/sh%d/l%d/%d/%s", cname, ts, sh, level, len(data), kind)
							o := Options{Compressor: cname, Level: level, Shuffle: sh, TypeSize: ts}
							checkEncode(t, name, data, o)
						}
					}
				}
			}
		}
	}
}

// checkEncode encodes data with o and checks the frame's invariants and
// that Decode gives data back.
func checkEncode(t *testing.T, name string, data []byte, o Options) []byte {
	t.Helper()
	prefix := []byte("pre")
	out, err := Encode(prefix, data, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(out[:3], prefix) {
		t.Fatalf("%s: prefix changed", name)
	}
	frame := out[3:]
	h, err := ParseHeader(frame)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if h.CBytes != len(frame) || h.NBytes != len(data) {
		t.Fatalf("%s: header %+v for %d bytes in %d", name, h, len(data), len(frame))
	}
	if len(frame) > len(data)+HeaderSize {
		t.Fatalf("%s: frame of %d bytes for %d bytes of data", name, len(frame), len(data))
	}
	wantMemcpy := o.Level == 0 || len(data) < minBufferSize
	if wantMemcpy && !h.Memcpyed() {
		t.Fatalf("%s: not memcpyed", name)
	}
	if ts := min(o.TypeSize, 255); h.TypeSize != ts && !(o.TypeSize > 255 && h.TypeSize == 1) {
		t.Fatalf("%s: typesize %d, want %d", name, h.TypeSize, ts)
	}
	if len(data) > 0 && (h.BlockSize%h.TypeSize != 0 && h.BlockSize > h.TypeSize) {
		t.Fatalf("%s: blocksize %d not a multiple of typesize %d", name, h.BlockSize, h.TypeSize)
	}
	got, err := Decode(nil, frame, len(data))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%s: round trip failed: %v", name, err)
	}
	return frame
}

func TestEncodeMatchesCBloscLayout(t *testing.T) {
	// Frames written by numcodecs 0.11 (c-blosc 1.21.3), header fields and
	// first block offset; see ../testdata/encode/gen.py for the full set.
	tests := []struct {
		name      string
		data      []byte
		o         Options
		flags     byte
		blocksize int
	}{
		{"memcpyed small", ramp(40), Options{"lz4", 5, 1, 4, 0}, 0x33, 40},
		{"empty", nil, Options{"lz4", 5, 1, 1, 0}, 0x33, 1},
		{"lz4 split", ramp(1600), Options{"lz4", 5, 1, 8, 0}, 0x21, 1600},
		{"zstd never splits", ramp(1600), Options{"zstd", 5, 1, 2, 0}, 0x91, 1600},
		{"large typesize", ramp(3000), Options{"lz4", 5, 0, 300, 0}, 0x20, 3000},
	}
	for _, tt := range tests {
		frame := checkEncode(t, tt.name, tt.data, tt.o)
		h, _ := ParseHeader(frame)
		if h.Flags != tt.flags || h.BlockSize != tt.blocksize {
			t.Errorf("%s: flags %#02x blocksize %d, want %#02x %d", tt.name, h.Flags, h.BlockSize, tt.flags, tt.blocksize)
		}
	}
}

func TestEncodeBlocksize(t *testing.T) {
	tests := []struct {
		o      Options
		nbytes int
		want   int
	}{
		{Options{"lz4", 5, 1, 2, 0}, 4 << 20, 256 << 10},  // 128 KiB × 2, split, clamped to 64K..1M
		{Options{"lz4", 5, 1, 8, 0}, 4 << 20, 1 << 20},    // 128 KiB × 8 = 1 MiB
		{Options{"lz4", 5, 0, 1, 0}, 4 << 20, 128 << 10},  // 32K × 4
		{Options{"zstd", 5, 1, 2, 0}, 4 << 20, 256 << 10}, // HCR 64K × 4, no split
		{Options{"zlib", 9, 1, 4, 0}, 8 << 20, 1 << 20},   // 64K × 8 × 2 = 1M, split ×4 clamped
		{Options{"lz4", 1, 1, 2, 0}, 20_000, 20_000},      // whole small buffer
		{Options{"lz4", 5, 1, 20, 0}, 150, 140},           // rounded to typesize
		{Options{"lz4", 5, 1, 20, 1000}, 100_000, 1000},   // forced
		{Options{"lz4", 5, 1, 4, 16}, 100_000, 128},       // forced, raised to 128, too small to split
		{Options{"lz4", 5, 1, 8, 0}, 7, 1},                // shorter than an element
	}
	for _, tt := range tests {
		e := newEncoding(make([]byte, tt.nbytes), tt.o)
		if e.blocksize != tt.want {
			t.Errorf("%+v, %d bytes: blocksize %d, want %d", tt.o, tt.nbytes, e.blocksize, tt.want)
		}
	}
}

func TestEncodeIncompressibleIsMemcpyed(t *testing.T) {
	data := random(100_000, 5)
	frame := checkEncode(t, "random", data, Options{"lz4", 9, 1, 8, 0})
	h, _ := ParseHeader(frame)
	if !h.Memcpyed() || len(frame) != len(data)+HeaderSize {
		t.Fatalf("incompressible data: flags %#02x, %d bytes", h.Flags, len(frame))
	}
}

func TestEncodeRawStreams(t *testing.T) {
	// Unshuffled 2-byte elements split into two streams per block: the
	// first (zeros) compresses, the second (random) is stored raw, its
	// length equal to the stream's.
	data := append(make([]byte, 65536), random(65536, 3)...)
	frame := checkEncode(t, "mixed", data, Options{"lz4", 5, 0, 2, 0})
	h, _ := ParseHeader(frame)
	if h.Memcpyed() || h.nblocks() != 1 || h.Flags&FlagDontSplit != 0 {
		t.Fatalf("mixed data: header %+v", h)
	}
	first := 20 + int(binary.LittleEndian.Uint32(frame[20:]))
	if raw := int(binary.LittleEndian.Uint32(frame[first+4:])); raw != 65536 {
		t.Fatalf("second stream of %d bytes, want 65536 stored raw", raw)
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		o    Options
		want error
	}{
		{Options{"snappy", 5, 1, 1, 0}, ErrUnsupported},
		{Options{"blosclz", 5, 1, 1, 0}, ErrUnsupported},
		{Options{"lzma", 5, 1, 1, 0}, ErrOptions},
		{Options{"lz4", 10, 1, 1, 0}, ErrOptions},
		{Options{"lz4", -1, 1, 1, 0}, ErrOptions},
		{Options{"lz4", 5, 2, 1, 0}, ErrUnsupported},
		{Options{"lz4", 5, 3, 1, 0}, ErrOptions},
		{Options{"lz4", 5, 1, 0, 0}, ErrOptions},
		{Options{"lz4", 5, 1, 1, -5}, ErrOptions},
	}
	for _, tt := range tests {
		out, err := Encode([]byte("x"), ramp(1000), tt.o)
		if !errors.Is(err, tt.want) || !errors.Is(err, ErrOptions) || string(out) != "x" {
			t.Errorf("%+v: %v (dst %q), want %v", tt.o, err, out, tt.want)
		}
	}
}

func FuzzEncode(f *testing.F) {
	f.Add(ramp(1000), uint8(0), uint8(5), uint8(1), uint16(2), uint16(0))
	f.Add(random(300, 1), uint8(3), uint8(9), uint8(0), uint16(300), uint16(0))
	f.Add(ramp(5000), uint8(2), uint8(1), uint8(1), uint16(20), uint16(256))
	cnames := []string{"lz4", "lz4hc", "zlib", "zstd"}
	f.Fuzz(func(t *testing.T, data []byte, cname, level, sh uint8, ts, bs uint16) {
		o := Options{
			Compressor: cnames[int(cname)%len(cnames)],
			Level:      int(level) % 10,
			Shuffle:    int(sh)%3 - 1,
			TypeSize:   int(ts)%400 + 1,
			BlockSize:  int(bs),
		}
		data = data[:len(data)/o.TypeSize*o.TypeSize]
		checkEncode(t, fmt.Sprintf("%+v", o), data, o)
	})
}
