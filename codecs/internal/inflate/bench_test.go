package inflate

import (
	"bytes"
	stdzlib "compress/zlib"
	"encoding/binary"
	kzlib "github.com/klauspost/compress/zlib"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// noisyInt16 returns n bytes of a slow sine plus Gaussian noise as
// little-endian int16, like an electrophysiology recording: the low bits are
// noise, so deflate saves a little under half.
func noisyInt16(n int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, n)
	for i := 0; i+1 < n; i += 2 {
		v := 2000*math.Sin(float64(i)/5000) + 40*r.NormFloat64()
		binary.LittleEndian.PutUint16(b[i:], uint16(int16(v)))
	}
	return b
}

// zlibChunk is a 1.5 MiB noisy int16 chunk compressed at zlib's default level.
func zlibChunk(tb testing.TB) (raw, enc []byte) {
	tb.Helper()
	raw = noisyInt16(3 << 19)
	var buf bytes.Buffer
	w := stdzlib.NewWriter(&buf)
	if _, err := w.Write(raw); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return raw, buf.Bytes()
}

// imageChunk is a 64 KiB chunk of a camera-like uint16 image (mean 1000,
// noise 50) at zlib level 1, as the 320-chunk image of the benchmark file.
func imageChunk(tb testing.TB) (raw, enc []byte) {
	tb.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	raw = make([]byte, 64<<10)
	for i := 0; i+1 < len(raw); i += 2 {
		binary.LittleEndian.PutUint16(raw[i:], uint16(1000+50*r.NormFloat64()))
	}
	var buf bytes.Buffer
	w, err := stdzlib.NewWriterLevel(&buf, 1)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(raw)
	w.Close()
	return raw, buf.Bytes()
}

// zlibImageChunk is one chunk of the benchmark file's image (8 × 64 × 64
// uint16, normal(1000, 50)) as zlib 1.2.13 compresses it at level 1, as
// h5py writes it: C zlib's fast level finds 3-byte matches that Go's does
// not, so most symbols are short matches, not literals. Made by
//
//	rng = numpy.random.default_rng(7)
//	raw = rng.normal(1000, 50, size=(8, 64, 64)).astype("<u2").tobytes()
//	open("testdata/image-zlib1.z", "wb").write(zlib.compress(raw, 1))
func zlibImageChunk(tb testing.TB) (raw, enc []byte) {
	tb.Helper()
	enc, err := os.ReadFile("testdata/image-zlib1.z")
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := stdzlib.NewReader(bytes.NewReader(enc))
	if err != nil {
		tb.Fatal(err)
	}
	if raw, err = io.ReadAll(zr); err != nil {
		tb.Fatal(err)
	}
	return raw, enc
}

// BenchmarkDecoders compares, on one core, this package's whole-buffer
// decoder (Zlib, with its checksum) with the klauspost/compress reader it replaced and the
// standard library's, on the chunks the project's benchmarks read: the
// measurement that keeps Zlib.
func BenchmarkDecoders(b *testing.B) {
	chunks := map[string]func(testing.TB) ([]byte, []byte){"noisy-int16-1.5MiB": zlibChunk, "image-64KiB": imageChunk, "zlib-image-64KiB": zlibImageChunk}
	for name, mk := range chunks {
		raw, enc := mk(b)
		dst := make([]byte, len(raw))
		b.Run(name+"/klauspost", func(b *testing.B) {
			br := bytes.NewReader(enc)
			zr, err := kzlib.NewReader(br)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				br.Reset(enc)
				if err := zr.(kzlib.Resetter).Reset(br, nil); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(zr, dst); err != nil {
					b.Fatal(err)
				}
			}
			if !bytes.Equal(dst, raw) {
				b.Fatal("decoded data differs")
			}
		})
		b.Run(name+"/stdlib", func(b *testing.B) {
			br := bytes.NewReader(enc)
			zr, _ := stdzlib.NewReader(br)
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				br.Reset(enc)
				zr.(stdzlib.Resetter).Reset(br, nil)
				if _, err := io.ReadFull(zr, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/whole", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				out, err := Zlib(dst[:0], enc, len(dst))
				if err != nil || len(out) != len(raw) {
					b.Fatal(err)
				}
			}
			if !bytes.Equal(dst, raw) {
				b.Fatal("decoded data differs")
			}
		})
	}
}

// BenchmarkCorpus decodes every zlib file of the numcodecs codec corpus
// (78 streams of 13 arrays at levels 1–9) per iteration, on one core, with
// Zlib and with the klauspost/compress reader.
func BenchmarkCorpus(b *testing.B) {
	files, _ := filepath.Glob("../../../testdata/numcodecs/zlib/codec.*/encoded.*.dat")
	if len(files) == 0 {
		b.Skip("no corpus")
	}
	var encs [][]byte
	total := 0
	for _, f := range files {
		enc, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		out, err := Zlib(nil, enc, 1<<30)
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		encs = append(encs, enc)
		total += len(out)
	}
	dst := make([]byte, 0, total)
	b.Run("klauspost", func(b *testing.B) {
		zr, _ := kzlib.NewReader(bytes.NewReader(encs[0]))
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, enc := range encs {
				zr.(kzlib.Resetter).Reset(bytes.NewReader(enc), nil)
				if _, err := io.Copy(io.Discard, zr); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, enc := range encs {
				if _, err := Zlib(dst[:0], enc, cap(dst)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
