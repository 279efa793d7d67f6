package h5_test

import (
	"testing"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/netsim"
)

// TestRemoteHDF5OpenRequests opens each HDF5 fixture over HTTP and walks
// it (which reads the whole tree: groups, links, datasets, attributes), and
// checks that it costs a handful of requests, thanks to the metadata page
// cache.
func TestRemoteHDF5OpenRequests(t *testing.T) {
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		t.Run(name, func(t *testing.T) {
			h, err := netsim.New(httpFixtures(), netsim.Config{})
			if err != nil {
				t.Fatal(err)
			}
			srv := startServer(t, h)
			f, err := h5.Open(ctx, srv+"/"+name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			objects := 0
			f.Root().Walk(ctx, func(string, h5.Link, h5.Object, error) error { objects++; return nil })
			reqs := h.Stats().Requests
			t.Logf("%s: %d objects listed with %d requests", name, objects, reqs)
			if reqs > 25 {
				t.Errorf("opening %s took %d requests, want at most 25", name, reqs)
			}
		})
	}
}

// BenchmarkRemoteHDF5Chunks reads a dataset of 1,950 zlib chunks from an HDF5
// file served with 20 ms latency and 100 MB/s per request, at concurrency 1
// and at the default, with no cache. The file is opened once: the first read also reads the
// chunk index, later reads only the chunks.
func BenchmarkRemoteHDF5Chunks(b *testing.B) {
	h, err := netsim.New(httpFixtures(), netsim.Config{Latency: 20 * time.Millisecond, Bandwidth: 100e6})
	if err != nil {
		b.Fatal(err)
	}
	srv := startServer(b, h)
	for _, tc := range []struct {
		name string
		opts []h5.Option
	}{
		{"concurrency=1", []h5.Option{h5.WithConcurrency(1), h5.WithCacheBytes(0)}},
		{"concurrency=default", []h5.Option{h5.WithCacheBytes(0)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f, err := h5.Open(ctx, srv+"/fixture.h5", tc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			d, err := f.Dataset(ctx, "misc/over_1000_chunks")
			if err != nil {
				b.Fatal(err)
			}
			before := h.Stats().Requests
			n := 0
			for b.Loop() {
				if _, err := d.Read(ctx, nil); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(h.Stats().Requests-before)/float64(n), "requests/op")
		})
	}
}
