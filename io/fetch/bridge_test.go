package fetch

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
	"github.com/lindigo/lindi/io/source"
)

// costly is a source whose host lets n requests run at once and showed a
// round trip of rtt and a throughput of rate bytes/s per connection (ok
// false: it showed nothing yet).
type costly struct {
	limited
	rtt  time.Duration
	rate float64
	ok   bool
}

func (c *costly) Costs() (time.Duration, float64, bool) { return c.rtt, c.rate, c.ok }

// Chunk and frame group of the read of issue 36: img[:, 0:64, 0:64] of a
// uint16 [160,256,256] dataset in [8,64,64] zlib chunks is one 43 KB chunk
// out of every 16 (about 690 KB).
const (
	chunkLen = 43 << 10
	groupLen = 16 * chunkLen
)

// slab returns n ranges of chunkLen, one at the start of each group of src
// (gaps of groupLen-chunkLen bytes), and the bytes of src.
func slab(src *costly, n int) ([]Range, []byte) {
	file := make([]byte, n*groupLen)
	rand.NewChaCha8([32]byte{1}).Read(file)
	src.Source = source.NewBytes("img", file)
	rs := make([]Range, n)
	for i := range rs {
		rs[i] = Range{Src: src, Off: int64(i * groupLen), Len: chunkLen}
	}
	return rs, file
}

// TestBridgeRule checks when wide gaps are bridged: only when the reads
// outnumber the host's width and its costs make a gap cheaper than a
// round trip, and then only as far as it saves a round of reads.
func TestBridgeRule(t *testing.T) {
	const gb, mb = 1e9, 1e6
	tests := []struct {
		name      string
		ranges    int
		rate      float64
		ok        bool
		wantReads int
	}{
		{"20 reads, 16 wide, 1 GB/s", 20, gb, true, 16},
		{"20 reads, 16 wide, 10 MB/s", 20, 10 * mb, true, 20},
		{"20 reads, no estimate", 20, gb, false, 20},
		{"12 reads fit the width", 12, gb, true, 12},
		{"40 reads, 1 GB/s: three rounds become one", 40, gb, true, 16},
		// 50 MB/s reads one 650 KB gap in 13 ms but not two: pairs only.
		{"20 reads, 50 MB/s", 20, 50 * mb, true, 16},
		// Twenty pairs would do, but eight make the two rounds they can.
		{"40 reads, 50 MB/s: three rounds become two", 40, 50 * mb, true, 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &costly{limited: limited{n: 16}, rtt: 20 * time.Millisecond, rate: tt.rate, ok: tt.ok}
			rs, file := slab(src, tt.ranges)
			f, err := New()
			if err != nil {
				t.Fatal(err)
			}
			col := newCollector()
			if err := f.Fetch(context.Background(), rs, col.deliver); err != nil {
				t.Fatal(err)
			}
			for i, r := range rs {
				if !bytes.Equal(col.got[i], file[r.Off:r.Off+r.Len]) {
					t.Fatalf("range %d: wrong bytes", i)
				}
			}
			if got := int(src.reads.Load()); got != tt.wantReads {
				t.Errorf("%d reads, want %d", got, tt.wantReads)
			}
			joins := int64(tt.ranges - tt.wantReads)
			if got, want := src.bytes.Load(), int64(tt.ranges)*chunkLen+joins*(groupLen-chunkLen); got != want {
				t.Errorf("%d bytes read, want %d (%d gaps bridged)", got, want, joins)
			}
		})
	}
}

// TestBridgeBounds checks that bridged blocks keep to the budget of one
// round trip and to the merge size, that the smallest gaps go first and
// that bridges among equal gaps are spread, not chained.
func TestBridgeBounds(t *testing.T) {
	src := &costly{limited: limited{n: 16}, rtt: 20 * time.Millisecond, ok: true}
	rs, _ := slab(src, 20)
	// Move range 10 forward: the gaps around it become the smallest.
	rs[10].Off -= 300 << 10
	f, _ := New()
	longest := func() int64 {
		var n int64
		_, blocks := f.layout(rs, 20*chunkLen)
		for _, b := range blocks {
			n = max(n, b.len)
		}
		return n
	}
	// 50 MB/s: one round trip reads 1 MB, so no block bridges two gaps.
	src.rate = 50e6
	if got := longest(); got > 2*groupLen {
		t.Errorf("50 MB/s: a block of %d bytes bridges more than one gap", got)
	}
	_, blocks := f.layout(rs, 20*chunkLen)
	for _, b := range blocks {
		if b.off == rs[9].Off && b.len != rs[10].Off+chunkLen-rs[9].Off {
			t.Errorf("the smallest gap, before range 10, is not bridged: block [%d, +%d)", b.off, b.len)
		}
	}
	// 1 GB/s reads many gaps in a round trip, but four bridges among equal
	// gaps are spread: no block bridges two.
	rs[10].Off += 300 << 10
	src.rate = 1e9
	if got := longest(); got > 2*groupLen {
		t.Errorf("1 GB/s: a block of %d bytes bridges more than one gap", got)
	}
	// 1 GB/s but joined reads of at most 1 MB: still no block of three.
	f, _ = New(WithMaxMerged(1 << 20))
	src.rate = 1e9
	if got := longest(); got > 1<<20 {
		t.Errorf("merge size 1 MB: a block of %d bytes", got)
	}
}

// TestBridgeHTTP reads the slab through an HTTP source from a server 20 ms
// away: once its host has shown its latency and throughput (a 1 MB read,
// as a LINDI JSON would be), the 20 chunks take at most 16 requests, the
// host's initial limit, instead of 20.
func TestBridgeHTTP(t *testing.T) {
	file := make([]byte, 20*groupLen)
	rand.NewChaCha8([32]byte{2}).Read(file)
	srv, sim := simServer(t, file, netsim.Config{Latency: 20 * time.Millisecond})
	src := httpSource(t, srv.URL+"/f.h5")
	if _, _, ok := source.Costs(src); ok {
		t.Fatal("costs known before any request")
	}
	if _, err := src.ReadAt(context.Background(), make([]byte, 1<<20), 0); err != nil {
		t.Fatal(err)
	}
	rtt, rate, ok := source.Costs(src)
	if !ok || rtt < 20*time.Millisecond || rate <= 0 {
		t.Fatalf("after a 1 MB read: costs %v, %.0f B/s, %v", rtt, rate, ok)
	}
	if w := source.Concurrency(src); w != source.AutoInitialConcurrency {
		t.Fatalf("host limit %d, want %d", w, source.AutoInitialConcurrency)
	}
	rs := make([]Range, 20)
	for i := range rs {
		rs[i] = Range{Src: src, Off: int64(i * groupLen), Len: chunkLen}
	}
	before := sim.Stats().RangeRequests
	f, _ := New()
	col := newCollector()
	if err := f.Fetch(context.Background(), rs, col.deliver); err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		if !bytes.Equal(col.got[i], file[r.Off:r.Off+r.Len]) {
			t.Fatalf("range %d: wrong bytes", i)
		}
	}
	if n := sim.Stats().RangeRequests - before; n > int64(source.AutoInitialConcurrency) {
		t.Errorf("%d requests for 20 chunks, want at most %d", n, source.AutoInitialConcurrency)
	}
}

// noCosts hides its source's costs: a host that showed none.
type noCosts struct{ *source.HTTP }

func (noCosts) Costs() (time.Duration, float64, bool) { return 0, 0, false }

// BenchmarkBridge reads the slab of issue 36 (20 chunks of 43 KB, 650 KB
// apart) through netsim at 20 ms from a host that runs 16 requests at
// once, unlimited and at 50 MB/s per connection: "bridged" with the costs
// the host showed, "unbridged" with them hidden. RTT/op is the wall time
// in round trips of latency, req/op the requests the server saw.
func BenchmarkBridge(b *testing.B) {
	file := make([]byte, 20*groupLen)
	rand.NewChaCha8([32]byte{3}).Read(file)
	for _, bw := range []int64{0, 50e6} {
		sim, err := netsim.New(netsim.Blobs(map[string][]byte{"/f": file}), netsim.Config{Latency: benchLatency, Bandwidth: bw})
		if err != nil {
			b.Fatal(err)
		}
		src, err := source.NewHTTP(httptestServer(b, sim)+"/f", source.WithResolver(nil), source.WithConcurrency(16))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := src.ReadAt(context.Background(), make([]byte, 1<<20), 0); err != nil {
			b.Fatal(err)
		}
		for _, mode := range []struct {
			name string
			src  source.Source
		}{{"bridged", src}, {"unbridged", noCosts{src}}} {
			rs := make([]Range, 20)
			for i := range rs {
				rs[i] = Range{Src: mode.src, Off: int64(i * groupLen), Len: chunkLen}
			}
			b.Run(fmt.Sprintf("%dMBps/%s", bw/1e6, mode.name), func(b *testing.B) {
				f, _ := New()
				req0, t0, n := sim.Stats().Requests, time.Now(), 0
				for b.Loop() {
					if err := f.Fetch(context.Background(), rs, func(int, []byte) error { return nil }); err != nil {
						b.Fatal(err)
					}
					n++
				}
				b.ReportMetric(float64(time.Since(t0))/float64(n)/float64(benchLatency), "RTT/op")
				b.ReportMetric(float64(sim.Stats().Requests-req0)/float64(n), "req/op")
			})
		}
	}
}
