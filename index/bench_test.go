package index_test

import (
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/internal/h5gen"
	"github.com/lindigo/lindi/internal/netsim"
)

// BenchmarkIndexRemoteNWB indexes an NWB-shaped file of 120 series (each a
// group of chunked, contiguous and small datasets with attributes) served at
// 20 ms latency, the shape of ../shared/bench/run index, and reports the
// requests and bytes one index costs. Read the output back as a check.
func BenchmarkIndexRemoteNWB(b *testing.B) {
	data, err := h5gen.NWB(120, 6000)
	if err != nil {
		b.Fatal(err)
	}
	h, err := netsim.New(netsim.Blobs(map[string][]byte{"/nwb.h5": data}), netsim.Config{Latency: 20 * time.Millisecond, Bandwidth: 100e6})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	out := filepath.Join(b.TempDir(), "nwb.lindi.json")
	before := h.Stats()
	n := 0
	for b.Loop() {
		if err := index.WriteFile(ctx, srv.URL+"/nwb.h5", out); err != nil {
			b.Fatal(err)
		}
		n++
	}
	after := h.Stats()
	b.ReportMetric(float64(after.Requests-before.Requests)/float64(n), "requests/op")
	b.ReportMetric(float64(after.Bytes-before.Bytes)/float64(n)/1e6, "MB/op")
	f, err := h5.Open(ctx, out)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Dataset(ctx, "acquisition/series_050/channels"); err != nil {
		b.Fatal(err)
	}
}
