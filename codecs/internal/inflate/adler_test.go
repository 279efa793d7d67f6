package inflate

import (
	"bytes"
	"hash/adler32"
	"math/rand/v2"
	"testing"
)

// TestAdler32 checks adler against hash/adler32 on lengths around its
// word and reduction boundaries, on random bytes and on all-0xff bytes (the
// largest sums its lanes hold).
func TestAdler32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rnd := make([]byte, 70000)
	for i := range rnd {
		rnd[i] = byte(r.Uint32())
	}
	ff := bytes.Repeat([]byte{0xff}, len(rnd))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 2047, 2048, 2049, 2055, 4096, 5552, 5553, 8 * adlerWords * 3, 65536, 70000} {
		for _, p := range [][]byte{rnd[:n], ff[:n], rnd[len(rnd)-n:]} {
			if got, want := adler(p), adler32.Checksum(p); got != want {
				t.Fatalf("%d bytes: %08x, want %08x", n, got, want)
			}
		}
	}
}

func FuzzAdler32(f *testing.F) {
	f.Add([]byte("Wikipedia"))
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := adler(p), adler32.Checksum(p); got != want {
			t.Fatalf("%08x, want %08x", got, want)
		}
	})
}

// BenchmarkAdler32 compares adler with hash/adler32 on a 64 KiB chunk.
func BenchmarkAdler32(b *testing.B) {
	p, _ := imageChunk(b)
	b.Run("here", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			adler(p)
		}
	})
	b.Run("stdlib", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			adler32.Checksum(p)
		}
	})
}
