package codecs

import (
	"encoding/binary"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// ephys returns n bytes of little-endian int16 samples shaped like an
// electrophysiology recording: a slow random walk plus Gaussian noise.
func ephys(n int) []byte {
	r := rand.New(rand.NewPCG(7, 11))
	b := make([]byte, n)
	walk := 0.0
	for i := 0; i+1 < n; i += 2 {
		walk += r.NormFloat64() * 4
		binary.LittleEndian.PutUint16(b[i:], uint16(int16(walk+r.NormFloat64()*20)))
	}
	return b
}

// processCPU returns the CPU time this process has used. The benchmark
// machine is shared, so the wall-clock MB/s mostly measure the wait for a
// core; cpu-MB/s is the single-core throughput.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchConfigs are the configurations BenchmarkEncode and
// BenchmarkEncodeDecode measure.
var benchConfigs = []struct{ name, config string }{
	{"zlib4", `{"id":"zlib","level":4}`},
	{"blosc-lz4-shuffle5", `{"id":"blosc","cname":"lz4","clevel":5,"shuffle":1}`},
	{"zstd3", `{"id":"zstd","level":3}`},
	{"lz4", `{"id":"lz4"}`},
}

const benchChunk = 4 << 20

// BenchmarkEncode encodes a 4 MiB chunk of ephys-like int16 samples on one
// goroutine, as the write engine does per chunk, into a reused buffer.
func BenchmarkEncode(b *testing.B) {
	src := ephys(benchChunk)
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			_, e := mustEncoder(b, bc.config)
			dst, err := e.Encode(nil, src, 2)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			start := processCPU(b)
			for b.Loop() {
				if dst, err = e.Encode(dst[:0], src, 2); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(src))*float64(b.N)/(processCPU(b)-start).Seconds()/1e6, "cpu-MB/s")
			b.ReportMetric(float64(len(src))/float64(len(dst)), "ratio")
		})
	}
}

// BenchmarkEncodeDecode decodes what BenchmarkEncode writes, for comparison
// with the encoders (same chunk, same reused-buffer discipline).
func BenchmarkEncodeDecode(b *testing.B) {
	src := ephys(benchChunk)
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			c, e := mustEncoder(b, bc.config)
			enc, err := e.Encode(nil, src, 2)
			if err != nil {
				b.Fatal(err)
			}
			dst, err := c.Decode(nil, enc, len(src))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			start := processCPU(b)
			for b.Loop() {
				if dst, err = c.Decode(dst[:0], enc, len(src)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(src))*float64(b.N)/(processCPU(b)-start).Seconds()/1e6, "cpu-MB/s")
		})
	}
}
