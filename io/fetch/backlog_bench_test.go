package fetch

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
	"github.com/lindigo/lindi/io/source"
)

// backlogRead reads 8 MiB as 128 ranges of 64 KiB from a new server with a
// listen backlog of 5, a slow accept loop and one connection per request
// (Python's ThreadingHTTPServer speaking HTTP/1.0), at the given concurrency
// (0: the defaults, adapting), and returns how long it took.
func backlogRead(b *testing.B, data []byte, concurrency int) time.Duration {
	l, err := netsim.Listen(5)
	if err != nil {
		b.Fatal(err)
	}
	l.SetAcceptDelay(500 * time.Microsecond)
	srv := &http.Server{Handler: netsim.Blobs(map[string][]byte{"/f": data})}
	srv.SetKeepAlivesEnabled(false)
	go srv.Serve(l)
	defer srv.Close()
	sopts := []source.Option{source.WithResolver(nil), source.WithConcurrency(concurrency)}
	var fopts []Option
	if concurrency > 0 {
		sopts = append(sopts, source.WithWarmConns(concurrency))
		fopts = append(fopts, WithConcurrency(concurrency))
	}
	src, err := source.NewHTTP("http://"+l.Addr().String()+"/f", sopts...)
	if err != nil {
		b.Fatal(err)
	}
	f, err := New(fopts...)
	if err != nil {
		b.Fatal(err)
	}
	const part = 64 << 10
	ranges := make([]Range, len(data)/part)
	for i := range ranges {
		ranges[i] = Range{Src: src, Off: int64(i * part), Len: part}
	}
	t0 := time.Now()
	err = f.Fetch(context.Background(), ranges, func(i int, p []byte) error {
		if string(p) != string(data[i*part:(i+1)*part]) {
			return fmt.Errorf("range %d: wrong bytes", i)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	d := time.Since(t0)
	if testing.Verbose() {
		for _, h := range source.Hosts() {
			if h.Host == l.Addr().String() {
				b.Logf("concurrency %d: %v, %+v", concurrency, d, h)
			}
		}
	}
	return d
}

// BenchmarkBacklogServer compares the defaults (each host's adaptive
// limit) with fixed concurrencies against a server with a listen backlog
// of 5, each read from cold (a new server, so a new limiter): auto/best is
// the defaults' median time over the best fixed concurrency's.
func BenchmarkBacklogServer(b *testing.B) {
	data := make([]byte, 8<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	fixed := []int{2, 4, 8, 16, 64}
	times := map[int][]time.Duration{}
	for b.Loop() {
		times[0] = append(times[0], backlogRead(b, data, 0))
		for _, n := range fixed {
			times[n] = append(times[n], backlogRead(b, data, n))
		}
	}
	median := func(d []time.Duration) time.Duration {
		d = slices.Clone(d)
		slices.Sort(d)
		return d[len(d)/2]
	}
	auto := median(times[0])
	best, bestN := time.Duration(1<<62), 0
	for _, n := range fixed {
		if m := median(times[n]); m < best {
			best, bestN = m, n
		}
		b.Logf("concurrency %2d: median %v", n, median(times[n]))
	}
	b.Logf("auto: median %v; best fixed %d: %v; auto/best %.2f", auto, bestN, best, float64(auto)/float64(best))
	b.ReportMetric(float64(auto)/float64(best), "auto/best")
	b.ReportMetric(auto.Seconds()*1e3, "auto-ms")
	b.ReportMetric(best.Seconds()*1e3, "best-fixed-ms")
}
