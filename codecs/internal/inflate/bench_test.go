package inflate

import (
	"bytes"
	stdzlib "compress/zlib"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
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

// BenchmarkInflate compares the standard library's inflate, with a reset
// reader as a pool would hand out, with this package's pooled reader, each
// reading a realistic chunk into a buffer of its decoded size. It is the
// measurement that chose the implementation behind this package.
func BenchmarkInflate(b *testing.B) {
	raw, enc := zlibChunk(b)
	b.Logf("chunk: %d bytes, zlib %d bytes (%.1f%%)", len(raw), len(enc), 100*float64(len(enc))/float64(len(raw)))
	dst := make([]byte, len(raw))
	check := func(b *testing.B) {
		if !bytes.Equal(dst, raw) {
			b.Fatal("decoded data differs")
		}
	}
	b.Run("stdlib", func(b *testing.B) {
		br := bytes.NewReader(enc)
		zr, err := stdzlib.NewReader(br)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			br.Reset(enc)
			if err := zr.(stdzlib.Resetter).Reset(br, nil); err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(zr, dst); err != nil {
				b.Fatal(err)
			}
		}
		check(b)
	})
	b.Run("inflate", func(b *testing.B) {
		br := bytes.NewReader(enc)
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			br.Reset(enc)
			zr, err := Zlib(br)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.ReadFull(zr, dst); err != nil {
				b.Fatal(err)
			}
			PutZlib(zr)
		}
		check(b)
	})
}
