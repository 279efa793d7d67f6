package compress

import (
	"bytes"
	stdgzip "compress/gzip"
	stdzlib "compress/zlib"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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

// corpora are kinds of chunk a zlib level is asked to compress: ephys-like
// int16 samples of 64 channels (as lindi-bench put writes), a noisy int16
// walk, the same shuffled (HDF5's shuffle filter), a shuffled float32
// sine with noise, Go source text (the module's own), and sparse bytes;
// each n bytes.
func corpora(t testing.TB, n int) map[string][]byte {
	r := rand.New(rand.NewPCG(7, 11))
	ephys := make([]byte, n)
	walk := make([]float64, 64)
	for i := 0; i+1 < n; i += 2 {
		c := i / 2 % 64
		walk[c] = 0.999*walk[c] + r.NormFloat64()*8
		v := int16(walk[c] + r.NormFloat64()*20)
		ephys[i], ephys[i+1] = byte(v), byte(uint16(v)>>8)
	}
	f32 := make([]byte, n)
	for i := 0; i+3 < n; i += 4 {
		u := math.Float32bits(float32(math.Sin(float64(i)/4000) + r.NormFloat64()*0.01))
		f32[i], f32[i+1], f32[i+2], f32[i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	sparse := make([]byte, n)
	for i := range sparse {
		if r.IntN(50) == 0 {
			sparse[i] = byte(r.IntN(4))
		}
	}
	var text []byte
	files, _ := filepath.Glob("../../../*/*.go")
	for len(text) < n && len(files) > 0 {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text = append(text, b...)
		}
	}
	return map[string][]byte{
		"ephys": ephys, "noisy": noisy(n, 7), "noisy-shuffled": shuffled(noisy(n, 7), 2),
		"f32-shuffled": shuffled(f32, 4), "text": text[:n], "sparse": sparse,
	}
}

// shuffled groups the k-th bytes of size-byte items, as HDF5's shuffle does.
func shuffled(b []byte, size int) []byte {
	out := make([]byte, len(b))
	n := len(b) / size
	for i := range n {
		for j := range size {
			out[j*n+i] = b[i*size+j]
		}
	}
	return out
}

func deflated(t testing.TB, w func(io.Writer) (io.WriteCloser, error), src []byte) int {
	var out bytes.Buffer
	z, err := w(&out)
	if err == nil {
		_, err = z.Write(src)
	}
	if err == nil {
		err = z.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.Len()
}

// BenchmarkDeflateCorpora compares, per corpus and level, the standard
// library's zlib, klauspost's at the same level, and Zlib (which picks one,
// see useKlauspost), reporting throughput and compression ratio: the
// measurement behind the choice of encoder.
func BenchmarkDeflateCorpora(b *testing.B) {
	cs := corpora(b, 4<<20)
	for _, name := range slices.Sorted(maps.Keys(cs)) {
		src := cs[name]
		for level := 1; level <= 9; level++ {
			for _, impl := range []struct {
				name   string
				writer func(io.Writer) (io.WriteCloser, error)
			}{
				{"stdlib", func(w io.Writer) (io.WriteCloser, error) { return stdzlib.NewWriterLevel(w, level) }},
				{"klauspost", func(w io.Writer) (io.WriteCloser, error) { return kzlib.NewWriterLevel(w, level) }},
				{"Zlib", func(w io.Writer) (io.WriteCloser, error) { return &zlibCall{w: w, level: level}, nil }},
			} {
				b.Run(fmt.Sprintf("%s/level=%d/%s", name, level, impl.name), func(b *testing.B) {
					b.SetBytes(int64(len(src)))
					var n int
					start := cpuTime(b)
					for b.Loop() {
						n = deflated(b, impl.writer, src)
					}
					b.ReportMetric(float64(len(src))*float64(b.N)/(cpuTime(b)-start).Seconds()/1e6, "cpu-MB/s")
					b.ReportMetric(float64(len(src))/float64(n), "ratio")
				})
			}
		}
	}
}

// zlibCall is Zlib behind an io.WriteCloser: it compresses what was
// written at Close.
type zlibCall struct {
	w     io.Writer
	level int
	src   []byte
}

func (z *zlibCall) Write(p []byte) (int, error) { z.src = append(z.src, p...); return len(p), nil }

func (z *zlibCall) Close() error {
	out, err := Zlib(nil, z.src, z.level)
	if err == nil {
		_, err = z.w.Write(out)
	}
	return err
}

// TestZlibEncoder pins the encoder deflate.go names for each level: Zlib's
// stream is klauspost's level 7, byte for byte, where useKlauspost says so,
// and the standard library's at the level asked elsewhere.
func TestZlibEncoder(t *testing.T) {
	src := noisy(100_000, 5)
	for level := -1; level <= 9; level++ {
		var want bytes.Buffer
		var w io.WriteCloser
		var err error
		if useKlauspost(level) {
			w, err = kzlib.NewWriterLevel(&want, klauspostLevel)
		} else {
			w, err = stdzlib.NewWriterLevel(&want, level)
		}
		if err != nil {
			t.Fatal(err)
		}
		w.Write(src)
		w.Close()
		got, err := Zlib(nil, src, level)
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("level %d: Zlib differs from its encoder (%d against %d bytes, %v)", level, len(got), want.Len(), err)
		}
	}
}

// TestDeflateRatios holds the ground for useKlauspost: at the levels it
// gives klauspost (elsewhere the stream is the standard library's, see
// TestZlibEncoder), on every corpus, Zlib compresses at least 97% as well
// as the standard library at that level (klauspost's own levels 4 to 6
// would store the ephys samples almost raw, 1.05× against 1.38×).
func TestDeflateRatios(t *testing.T) {
	for name, src := range corpora(t, 256<<10) {
		for _, level := range []int{-1, 4, 5, 6} {
			got, err := Zlib(nil, src, level)
			if err != nil {
				t.Fatal(err)
			}
			std := deflated(t, func(w io.Writer) (io.WriteCloser, error) { return stdzlib.NewWriterLevel(w, level) }, src)
			if r := float64(std) / float64(len(got)); r < 0.97 {
				t.Errorf("%s, level %d: Zlib's ratio is %.3f of the standard library's (%d against %d bytes)", name, level, r, len(got), std)
			}
		}
	}
}
