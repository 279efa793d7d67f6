package blosc

import (
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f under b.Loop and, besides the usual wall-clock MB/s, reports
// cpu-MB/s: decoded bytes per second of CPU time, summed over goroutines.
// On a shared, oversubscribed machine the wall-clock figure mostly measures
// the wait for a core; for serial decoding cpu-MB/s is the one-core speed.
func loop(b *testing.B, n int, f func()) {
	b.SetBytes(int64(n))
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		f()
	}
	if cpu := cpuTime(b) - start; cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

var benchSizes = []int{64 << 10, 1 << 20, 8 << 20}

// BenchmarkCopy is the baseline: copy() of the same sizes.
func BenchmarkCopy(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			src, dst := make([]byte, n), make([]byte, n)
			loop(b, n, func() { copy(dst, src) })
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

// BenchmarkDecode measures decoded bytes per second for the usual
// configurations, with the block sizes c-blosc picks for them.
func BenchmarkDecode(b *testing.B) {
	configs := []struct {
		name string
		opts encOpts
	}{
		{"lz4+shuffle", encOpts{typesize: 8, blocksize: 128 << 10, shuffle: 1, code: codeLZ4}},
		{"zstd+bitshuffle", encOpts{typesize: 8, blocksize: 256 << 10, shuffle: 2, code: codeZstd}},
		{"blosclz+shuffle", encOpts{typesize: 8, blocksize: 128 << 10, shuffle: 1, code: codeBlosclz}},
		{"snappy+shuffle", encOpts{typesize: 8, blocksize: 128 << 10, shuffle: 1, code: codeSnappy}},
		{"zlib+shuffle", encOpts{typesize: 8, blocksize: 256 << 10, shuffle: 1, code: codeZlib}},
		{"memcpyed", encOpts{typesize: 8, blocksize: 128 << 10, memcpyed: true}},
	}
	for _, c := range configs {
		for _, n := range benchSizes {
			b.Run(c.name+"/"+sizeName(n), func(b *testing.B) {
				benchDecode(b, n, c.opts)
			})
		}
	}
}

func benchDecode(b *testing.B, n int, opts encOpts) {
	data := testData(n, 1)
	src := encodeChunk(b, data, opts)
	dst := make([]byte, 0, n)
	loop(b, n, func() {
		if _, err := Decode(dst, src, n); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportMetric(float64(len(src))/float64(n), "ratio")
}

// BenchmarkDecodeParallel compares serial and parallel decoding of
// lz4+shuffle chunks around parallelMin, to place the threshold.
func BenchmarkDecodeParallel(b *testing.B) {
	defer func(v int) { parallelMin = v }(parallelMin)
	opts := encOpts{typesize: 8, blocksize: 64 << 10, shuffle: 1, code: codeLZ4}
	for _, n := range []int{128 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20} {
		for _, mode := range []string{"serial", "parallel"} {
			b.Run(sizeName(n)+"/"+mode, func(b *testing.B) {
				parallelMin = math.MaxInt
				if mode == "parallel" {
					parallelMin = 0
				}
				benchDecode(b, n, opts)
			})
		}
	}
}
