package h5_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/netsim"
)

// slowFixture serves the conformance HDF5 file with a first-byte latency.
func slowFixture(tb testing.TB, latency time.Duration) (string, *netsim.Handler) {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "conformance", "fixture.h5"))
	if err != nil {
		tb.Fatal(err)
	}
	h, err := netsim.New(netsim.Blobs(map[string][]byte{"/fixture.h5": data}), netsim.Config{Latency: latency})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL + "/fixture.h5", h
}

// openAndRead is one analysis session: open the remote file, read a dataset.
func openAndRead(tb testing.TB, url string, opts ...h5.Option) []float64 {
	tb.Helper()
	ctx := context.Background()
	f, err := h5.Open(ctx, url, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		tb.Fatal(err)
	}
	a, err := h5.Read[float64](ctx, d, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return a.Data
}

// TestDiskCacheSession: with LINDI_CACHE_DIR set, a second session reads
// the same data with one request, the check that the file is unchanged.
func TestDiskCacheSession(t *testing.T) {
	url, h := slowFixture(t, 0)
	t.Setenv(h5.CacheDirEnv, t.TempDir())
	first := openAndRead(t, url)
	n1 := h.Stats().Requests
	second := openAndRead(t, url)
	if n2 := h.Stats().Requests - n1; n2 != 1 {
		t.Errorf("second session made %d requests, want 1", n2)
	}
	if !slices.Equal(first, second) {
		t.Error("second session read different data")
	}
	third := openAndRead(t, url, h5.WithDiskCache("", 0)) // off again
	if n3 := h.Stats().Requests - n1; n3 <= 1 || !slices.Equal(first, third) {
		t.Errorf("with the disk cache off: %d requests", n3)
	}
}

// BenchmarkSecondRun times an analysis session against a server 20 ms
// away: "network" without a disk cache, "disk" a second session with one.
func BenchmarkSecondRun(b *testing.B) {
	url, _ := slowFixture(b, 20*time.Millisecond)
	b.Run("network", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			openAndRead(b, url, h5.WithDiskCache("", 0))
		}
	})
	b.Run("disk", func(b *testing.B) {
		opt := h5.WithDiskCache(b.TempDir(), 0)
		openAndRead(b, url, opt) // the first session fills the cache
		b.ReportAllocs()
		for b.Loop() {
			openAndRead(b, url, opt)
		}
	})
}
