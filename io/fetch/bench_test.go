package fetch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
	"github.com/lindigo/lindi/io/source"
)

const benchLatency = 20 * time.Millisecond

// BenchmarkFetchNetsim reads through netsim with 20 ms first-byte latency:
// 1000 adjacent 4 KiB ranges and 200 scattered 16 KiB ranges (320 KiB
// apart, beyond the default gap), at concurrency 1 and at the default.
// RTT/op is the wall time in round trips of latency; req/op the requests the
// server saw.
func BenchmarkFetchNetsim(b *testing.B) {
	blob := make([]byte, 200*320<<10)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range blob {
		blob[i] = byte(rng.Uint32())
	}
	sim, err := netsim.New(netsim.Blobs(map[string][]byte{"/blob": blob}), netsim.Config{Latency: benchLatency})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptestServer(b, sim)
	src, err := source.NewHTTP(srv+"/blob", source.WithResolver(nil))
	if err != nil {
		b.Fatal(err)
	}
	reads := []struct {
		name   string
		ranges []Range
	}{
		{"adjacent1000x4KiB", grid(src, 1000, 4<<10, 4<<10)},
		{"scattered200x16KiB", grid(src, 200, 16<<10, 320<<10)},
	}
	modes := []struct {
		name string
		opts []Option
	}{
		{"c1-nocoalesce", []Option{WithConcurrency(1), WithMaxMerged(1), WithMaxGap(0)}},
		{"c1", []Option{WithConcurrency(1)}},
		{"default", nil},
	}
	for _, rd := range reads {
		var total int64
		for _, r := range rd.ranges {
			total += r.Len
		}
		for _, m := range modes {
			if m.name == "c1-nocoalesce" && len(rd.ranges) > 200 {
				continue // 1000 serial round trips: 20 s an iteration
			}
			b.Run(fmt.Sprintf("%s/%s", rd.name, m.name), func(b *testing.B) {
				f, err := New(m.opts...)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(total)
				req0 := sim.Stats().Requests
				t0 := time.Now()
				n := 0
				for b.Loop() {
					if err := f.Fetch(context.Background(), rd.ranges, func(int, []byte) error { return nil }); err != nil {
						b.Fatal(err)
					}
					n++
				}
				el := time.Since(t0)
				b.ReportMetric(float64(el)/float64(n)/float64(benchLatency), "RTT/op")
				b.ReportMetric(float64(sim.Stats().Requests-req0)/float64(n), "req/op")
			})
		}
	}
}

// BenchmarkFetchTuning measures the coalescing and splitting defaults over a
// link with 20 ms latency and 50 MB/s per connection (an S3-like stream):
// a 62.5 MiB range split in parts of several sizes, and 200 scattered 16 KiB
// ranges 320 KiB apart read with several maximum gaps (merged reads up to
// 8 MiB).
func BenchmarkFetchTuning(b *testing.B) {
	blob := make([]byte, 200*320<<10)
	sim, err := netsim.New(netsim.Blobs(map[string][]byte{"/blob": blob}), netsim.Config{Latency: benchLatency, Bandwidth: 50e6})
	if err != nil {
		b.Fatal(err)
	}
	src, err := source.NewHTTP(httptestServer(b, sim)+"/blob", source.WithResolver(nil))
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, f *Fetcher, rs []Range) {
		var total int64
		for _, r := range rs {
			total += r.Len
		}
		b.ReportAllocs()
		b.SetBytes(total)
		req0, t0, n := sim.Stats().Requests, time.Now(), 0
		for b.Loop() {
			if err := f.Fetch(context.Background(), rs, func(int, []byte) error { return nil }); err != nil {
				b.Fatal(err)
			}
			n++
		}
		b.ReportMetric(float64(time.Since(t0))/float64(n)/float64(benchLatency), "RTT/op")
		b.ReportMetric(float64(sim.Stats().Requests-req0)/float64(n), "req/op")
	}
	for _, part := range []int64{1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20, 64 << 20} {
		b.Run(fmt.Sprintf("one62MiB/part=%dMiB", part>>20), func(b *testing.B) {
			f, err := New(WithPartSize(part), WithMinPartSize(part))
			if err != nil {
				b.Fatal(err)
			}
			run(b, f, []Range{{Src: src, Off: 0, Len: int64(len(blob))}})
		})
	}
	for _, gap := range []int64{0, 256 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("scattered200/gap=%dKiB", gap>>10), func(b *testing.B) {
			f, err := New(WithMaxGap(gap), WithMinPartSize(8<<20))
			if err != nil {
				b.Fatal(err)
			}
			run(b, f, grid(src, 200, 16<<10, 320<<10))
		})
	}
}

// BenchmarkFetchLocal measures the Fetcher's own cost: 1000 scattered 1 KiB
// ranges of the fixture file, from memory and from the file.
func BenchmarkFetchLocal(b *testing.B) {
	file := readFixture(b)
	f, err := source.OpenFile(fixture)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for _, src := range []source.Source{source.NewBytes("mem", file), f} {
		rs := grid(src, 1000, 1<<10, int64(len(file))/1000)
		b.Run(src.Name(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(1000 << 10)
			for b.Loop() {
				if err := Default().Fetch(context.Background(), rs, func(int, []byte) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
