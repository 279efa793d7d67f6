package compress

import (
	"bytes"
	stdgzip "compress/gzip"
	stdzlib "compress/zlib"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	kzlib "github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// noisy returns n bytes of little-endian int16 samples: a random walk plus
// noise, like an electrophysiology recording.
func noisy(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]byte, n)
	walk := 0.0
	for i := 0; i+1 < n; i += 2 {
		walk += r.NormFloat64() * 4
		v := int16(walk + r.NormFloat64()*20)
		out[i], out[i+1] = byte(v), byte(uint16(v)>>8)
	}
	return out
}

var testInputs = map[string][]byte{
	"empty": nil,
	"one":   {7},
	"short": []byte("abcabcabcabc"),
	"255":   noisy(255, 1),
	"1023":  noisy(1023, 2),
	"noisy": noisy(300_000, 3),
}

func TestZlibGzip(t *testing.T) {
	for name, src := range testInputs {
		for level := -1; level <= 9; level++ {
			t.Run(fmt.Sprintf("%s/%d", name, level), func(t *testing.T) {
				z, err := Zlib([]byte("x"), src, level)
				if err != nil || z[0] != 'x' {
					t.Fatalf("Zlib: %v", err)
				}
				r, err := stdzlib.NewReader(bytes.NewReader(z[1:]))
				if err != nil {
					t.Fatal(err)
				}
				if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, src) {
					t.Fatalf("zlib round trip: %v", err)
				}
				g, err := Gzip(nil, src, level)
				if err != nil {
					t.Fatal(err)
				}
				gr, err := stdgzip.NewReader(bytes.NewReader(g))
				if err != nil {
					t.Fatal(err)
				}
				if !gr.ModTime.IsZero() && gr.ModTime.Unix() != 0 || gr.Name != "" {
					t.Fatalf("gzip header %+v, want no time and no name", gr.Header)
				}
				if got, err := io.ReadAll(gr); err != nil || !bytes.Equal(got, src) {
					t.Fatalf("gzip round trip: %v", err)
				}
				again, _ := Gzip(nil, src, level)
				if !bytes.Equal(again, g) {
					t.Fatal("gzip output is not deterministic")
				}
			})
		}
	}
	for _, level := range []int{-2, 10} {
		if _, err := Zlib(nil, nil, level); !errors.Is(err, ErrLevel) {
			t.Errorf("Zlib level %d: %v, want ErrLevel", level, err)
		}
		if _, err := Gzip(nil, nil, level); !errors.Is(err, ErrLevel) {
			t.Errorf("Gzip level %d: %v, want ErrLevel", level, err)
		}
	}
}

func TestZstdDeclaresSize(t *testing.T) {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for name, src := range testInputs {
		for _, level := range []int{-5, 0, 1, 3, 7, 19, 22} {
			t.Run(fmt.Sprintf("%s/%d", name, level), func(t *testing.T) {
				f, err := Zstd(nil, src, level)
				if err != nil {
					t.Fatal(err)
				}
				var h zstd.Header
				if err := h.Decode(f); err != nil {
					t.Fatal(err)
				}
				if !h.HasFCS || h.FrameContentSize != uint64(len(src)) {
					t.Fatalf("frame header %+v: no content size %d", h, len(src))
				}
				if h.HasCheckSum {
					t.Fatal("frame has a checksum; numcodecs writes none")
				}
				got, err := dec.DecodeAll(f, nil)
				if err != nil || !bytes.Equal(got, src) {
					t.Fatalf("round trip: %v", err)
				}
			})
		}
	}
	if _, err := Zstd(nil, nil, 23); !errors.Is(err, ErrLevel) {
		t.Errorf("level 23: %v, want ErrLevel", err)
	}
}

func TestZstdEmptyMatchesLibzstd(t *testing.T) {
	// numcodecs 0.11: Zstd(level=3).encode(b"").hex()
	const want = "28b52ffd2000010000"
	f, err := Zstd(nil, nil, 3)
	if err != nil || fmt.Sprintf("%x", f) != want {
		t.Fatalf("empty frame %x, %v; want %s", f, err, want)
	}
}

func TestLZ4Blocks(t *testing.T) {
	for name, src := range testInputs {
		for _, level := range []int{1, 5, 9} {
			t.Run(fmt.Sprintf("%s/%d", name, level), func(t *testing.T) {
				for kind, compress := range map[string]func(dst, src []byte, l int) int{"fast": LZ4Block, "hc": LZ4HCBlock} {
					dst := make([]byte, LZ4BlockBound(len(src)))
					n := compress(dst, src, level)
					if n == 0 && len(src) > 0 {
						t.Fatalf("%s: no block in a bound-sized buffer", kind)
					}
					got := make([]byte, len(src))
					if len(src) == 0 {
						continue
					}
					m, err := lz4.UncompressBlock(dst[:n], got)
					if err != nil || m != len(src) || !bytes.Equal(got, src) {
						t.Fatalf("%s: round trip: %v", kind, err)
					}
				}
			})
		}
	}
	random := make([]byte, 4096)
	r := rand.New(rand.NewPCG(9, 9))
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	if n := LZ4Block(make([]byte, 4096), random, 1); n != 0 {
		t.Errorf("incompressible data fit %d bytes into a buffer its own size", n)
	}
}

// cpuTime returns the CPU time this process has used: on the shared test
// machine it measures one core's throughput where wall time does not.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkZlib compares the standard library's zlib (what Zlib uses) with
// klauspost's at the same levels on noisy int16 samples, reporting each
// one's throughput and compression ratio: the measurement behind the choice
// of encoder (see deflate.go).
func BenchmarkZlib(b *testing.B) {
	src := noisy(4<<20, 7)
	var out bytes.Buffer
	for _, level := range []int{1, 4, 6, 9} {
		for _, impl := range []struct {
			name   string
			writer func(io.Writer, int) (io.WriteCloser, error)
		}{
			{"stdlib", func(w io.Writer, l int) (io.WriteCloser, error) { return stdzlib.NewWriterLevel(w, l) }},
			{"klauspost", func(w io.Writer, l int) (io.WriteCloser, error) { return kzlib.NewWriterLevel(w, l) }},
		} {
			b.Run(fmt.Sprintf("%s/level=%d", impl.name, level), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				start := cpuTime(b)
				for b.Loop() {
					out.Reset()
					w, err := impl.writer(&out, level)
					if err == nil {
						_, err = w.Write(src)
					}
					if err == nil {
						err = w.Close()
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(src))*float64(b.N)/(cpuTime(b)-start).Seconds()/1e6, "cpu-MB/s")
				b.ReportMetric(float64(len(src))/float64(out.Len()), "ratio")
			})
		}
	}
}

// TestZlibIsStdlib pins the encoder deflate.go names: Zlib's stream is the
// standard library's, byte for byte, at every level.
func TestZlibIsStdlib(t *testing.T) {
	src := noisy(100_000, 5)
	for level := -1; level <= 9; level++ {
		var want bytes.Buffer
		w, err := stdzlib.NewWriterLevel(&want, level)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(src)
		w.Close()
		got, err := Zlib(nil, src, level)
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("level %d: Zlib differs from compress/zlib (%d against %d bytes, %v)", level, len(got), want.Len(), err)
		}
	}
}
