package codecs

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// newAny builds the codec of either class that config describes, an
// ObjectCodec first as a Pipeline's first filter would be.
func newAny(r *Registry, config []byte) (any, error) {
	oc, err := r.NewObjectCodec(config)
	if !errors.Is(err, ErrWrongClass) {
		return oc, err
	}
	return r.NewCodec(config)
}

// mustNew builds a codec from a configuration or fails the test.
func mustNew(t testing.TB, config string) any {
	t.Helper()
	c, err := newAny(Builtin(), []byte(config))
	if err != nil {
		t.Fatalf("New(%s): %v", config, err)
	}
	return c
}

// mustCodec builds a byte codec.
func mustCodec(t testing.TB, config string) Codec {
	t.Helper()
	c, ok := mustNew(t, config).(Codec)
	if !ok {
		t.Fatalf("%s is not a Codec", config)
	}
	return c
}

// wantErr checks that err wraps target (nil target: no error).
func wantErr(t testing.TB, err, target error) {
	t.Helper()
	switch {
	case target == nil && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case target != nil && !errors.Is(err, target):
		t.Fatalf("error %v, want one wrapping %v", err, target)
	}
}

// signal returns n bytes of a little-endian int16 random walk, the shape of
// electrophysiology data: compressible, but not trivially.
func signal(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	v := int16(0)
	for i := 0; i+1 < n; i += 2 {
		v += int16(r.IntN(64) - 32)
		binary.LittleEndian.PutUint16(b[i:], uint16(v))
	}
	return b
}

func encodeZlib(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeGzip(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodeZstd writes one frame; withSize false writes a frame of raw blocks
// whose header carries no content size, as streaming encoders do.
func encodeZstd(t testing.TB, b []byte, withSize bool) []byte {
	t.Helper()
	if withSize {
		e, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		return e.EncodeAll(b, nil)
	}
	// Magic, frame header descriptor 0 (no size, no checksum), window
	// descriptor 2^17 bytes.
	out := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3}
	for {
		n := min(len(b), 100_000)
		h := uint32(n) << 3 // raw block
		if n == len(b) {
			h |= 1 // last
		}
		out = append(out, byte(h), byte(h>>8), byte(h>>16))
		out = append(out, b[:n]...)
		b = b[n:]
		if len(b) == 0 {
			return out
		}
	}
}

// encodeLZ4 writes the numcodecs lz4 layout.
func encodeLZ4(t testing.TB, b []byte) []byte {
	t.Helper()
	out := make([]byte, 4+lz4.CompressBlockBound(len(b)))
	binary.LittleEndian.PutUint32(out, uint32(len(b)))
	var c lz4.Compressor
	n, err := c.CompressBlock(b, out[4:])
	if err != nil {
		t.Fatal(err)
	}
	return out[:4+n]
}

// encodeLZF is a small greedy LZF compressor (test only), producing the
// format liblzf and h5py write: literal runs of up to 32 bytes and back
// references of 3–264 bytes within 8 KiB.
func encodeLZF(b []byte) []byte {
	var out []byte
	var lit []byte
	flush := func() {
		for len(lit) > 0 {
			n := min(len(lit), 32)
			out = append(out, byte(n-1))
			out = append(out, lit[:n]...)
			lit = lit[n:]
		}
	}
	table := map[uint32]int{}
	for i := 0; i < len(b); {
		if i+3 <= len(b) {
			key := uint32(b[i])<<16 | uint32(b[i+1])<<8 | uint32(b[i+2])
			ref, ok := table[key]
			table[key] = i
			if ok && i-ref <= 8192 {
				n := 0
				for i+n < len(b) && n < 264 && b[ref+n] == b[i+n] {
					n++
				}
				if n >= 3 {
					flush()
					off := i - ref - 1
					l := n - 2
					if l < 7 {
						out = append(out, byte(l<<5|off>>8))
					} else {
						out = append(out, byte(7<<5|off>>8), byte(l-7))
					}
					out = append(out, byte(off))
					i += n
					continue
				}
			}
		}
		lit = append(lit, b[i])
		i++
	}
	flush()
	return out
}

// shuffleBytes applies the byte shuffle (test only).
func shuffleBytes(b []byte, size int) []byte {
	out := append([]byte(nil), b...)
	n := len(b) / size
	for i := 0; i < n; i++ {
		for j := 0; j < size; j++ {
			out[j*n+i] = b[i*size+j]
		}
	}
	return out
}

// withChecksum appends a little-endian checksum.
func withChecksum(b []byte, sum uint32) []byte {
	return binary.LittleEndian.AppendUint32(append([]byte(nil), b...), sum)
}

// float64s packs values as <f8.
func float64s(vs ...float64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
