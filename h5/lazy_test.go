package h5_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/h5gen"
	"github.com/lindigo/lindi/internal/netsim"
	"github.com/lindigo/lindi/io/source"
)

// serveNWB serves an NWB-shaped HDF5 file of the given number of series of
// rows samples as /nwb.h5 through the network simulator.
func serveNWB(tb testing.TB, series, rows int, cfg netsim.Config) (string, *netsim.Handler) {
	tb.Helper()
	b, err := h5gen.NWB(series, rows)
	if err != nil {
		tb.Fatal(err)
	}
	h, err := netsim.New(netsim.Blobs(map[string][]byte{"/nwb.h5": b}), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return startServer(tb, h) + "/nwb.h5", h
}

// TestLazyOpenCost opens NWB-shaped files of 10 and 200 series over HTTP and
// reads one small dataset deep in the tree: the requests must not grow with
// the objects off the path.
func TestLazyOpenCost(t *testing.T) {
	reqs := map[int]int64{}
	for _, series := range []int{10, 200} {
		url, h := serveNWB(t, series, 600, netsim.Config{})
		f, err := h5.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.Dataset(ctx, "acquisition/series_005/channels")
		if err != nil {
			t.Fatal(err)
		}
		got, err := h5.Read[int64](ctx, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v := got.Data; len(v) != 8 || v[7] != 7 {
			t.Fatalf("channels = %v", v)
		}
		g, err := f.Group(ctx, "acquisition/series_005")
		if err != nil {
			t.Fatal(err)
		}
		if r, err := g.Attrs().Ref("previous"); err != nil || r.Path != "/acquisition/series_004" {
			t.Errorf("previous = %v, %v", r, err)
		}
		// Groups passed through are completed when they are handed out.
		if got := len(g.Members()); got != 4 {
			t.Errorf("series_005 has %d members, want 4", got)
		}
		acq, err := f.Group(ctx, "acquisition")
		if err != nil {
			t.Fatal(err)
		}
		if got := len(acq.Members()); got != series {
			t.Errorf("acquisition has %d members, want %d", got, series)
		}
		reqs[series] = h.Stats().Requests
		f.Close()
		t.Logf("%d series: %d requests", series, reqs[series])
	}
	if reqs[200] > reqs[10]+1 || reqs[200] > 8 {
		t.Errorf("requests: %d for 10 series, %d for 200; want at most 8 and no growth", reqs[10], reqs[200])
	}
}

// TestLazyWalk checks that a walk of a lazily opened file sees every object
// once, and that concurrent walks and lookups agree (run with -race).
func TestLazyWalk(t *testing.T) {
	url, _ := serveNWB(t, 30, 600, netsim.Config{})
	f, err := h5.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			n := 0
			err := f.Root().Walk(ctx, func(p string, _ h5.Link, o h5.Object, err error) error {
				if err != nil {
					return err
				}
				if o.Path() != p {
					return fmt.Errorf("object at %s says %s", p, o.Path())
				}
				n++
				return nil
			})
			if err == nil && n != 3+30*5 {
				err = fmt.Errorf("walk saw %d objects, want %d", n, 3+30*5)
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkRemoteNWB opens a 120-series NWB-shaped HDF5 file served with
// 20 ms latency and reads one small dataset deep in the tree, lists the
// root, and lists the whole tree, reporting requests and bytes per open.
func BenchmarkRemoteNWB(b *testing.B) {
	url, h := serveNWB(b, 120, 6000, netsim.Config{Latency: 20 * time.Millisecond, Bandwidth: 100e6})
	for _, tc := range []struct {
		name string
		run  func(f *h5.File) error
	}{
		{"deep dataset", func(f *h5.File) error {
			d, err := f.Dataset(ctx, "acquisition/series_050/channels")
			if err == nil {
				_, err = d.Read(ctx, nil)
			}
			return err
		}},
		{"ls root", func(f *h5.File) error {
			return f.Root().Walk(ctx, func(string, h5.Link, h5.Object, error) error { return h5.SkipGroup })
		}},
		{"ls -r", func(f *h5.File) error {
			return f.Root().Walk(ctx, func(_ string, _ h5.Link, _ h5.Object, err error) error { return err })
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			before := h.Stats()
			n := 0
			for b.Loop() {
				f, err := h5.Open(ctx, url)
				if err != nil {
					b.Fatal(err)
				}
				if err := tc.run(f); err != nil {
					b.Fatal(err)
				}
				f.Close()
				n++
			}
			after := h.Stats()
			b.ReportMetric(float64(after.Requests-before.Requests)/float64(n), "requests/op")
			b.ReportMetric(float64(after.Bytes-before.Bytes)/float64(n), "bytes/op")
		})
	}
}

// TestRemoteLINDIOneGET opens a remote LINDI JSON file with one request,
// from a server that honours Range and from one that sends the whole file.
func TestRemoteLINDIOneGET(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(conformanceDir, "fixture.lindi.json"))
	if err != nil {
		t.Fatal(err)
	}
	blobs := netsim.Blobs(map[string][]byte{"/f.lindi.json": doc})
	noRange := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("Range")
		blobs.ServeHTTP(w, r)
	})
	for name, next := range map[string]http.Handler{"range": blobs, "no range": noRange} {
		t.Run(name, func(t *testing.T) {
			h, err := netsim.New(next, netsim.Config{})
			if err != nil {
				t.Fatal(err)
			}
			f, err := h5.Open(ctx, startServer(t, h)+"/f.lindi.json", h5.WithSourceOptions(source.WithMaxWhole(int64(len(doc)))))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if n := len(f.Root().Members()); n == 0 {
				t.Error("root has no members")
			}
			if got := h.Stats().Requests; got != 1 {
				t.Errorf("opening took %d requests, want 1", got)
			}
		})
	}
}

// TestSniffReadIsFirstPage checks that opening a remote HDF5 file reads its
// first bytes once, with or without a cache of fetched ranges: the sniffing
// read is the first metadata page.
func TestSniffReadIsFirstPage(t *testing.T) {
	counts := map[int64]int64{}
	for _, cache := range []int64{0, 64 << 20} {
		url, h := serveNWB(t, 100, 600, netsim.Config{})
		f, err := h5.Open(ctx, url, h5.WithCacheBytes(cache))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Dataset(ctx, "acquisition/series_005/channels"); err != nil {
			t.Fatal(err)
		}
		counts[cache] = h.Stats().Requests
		f.Close()
	}
	t.Logf("requests: %v", counts)
	if counts[0] != counts[64<<20] {
		t.Errorf("%d requests without a range cache, %d with one", counts[0], counts[64<<20])
	}
}

// TestSmallDataFromMetadataPages checks that reading a small contiguous
// dataset whose bytes lie in a metadata page already read costs no request.
func TestSmallDataFromMetadataPages(t *testing.T) {
	url, h := serveNWB(t, 100, 600, netsim.Config{})
	f, err := h5.Open(ctx, url, h5.WithCacheBytes(0))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "acquisition/series_050/channels")
	if err != nil {
		t.Fatal(err)
	}
	before := h.Stats().Requests
	got, err := h5.Read[int64](ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Data; len(v) != 8 || v[7] != 7 {
		t.Fatalf("channels = %v", v)
	}
	if n := h.Stats().Requests - before; n != 0 {
		t.Errorf("the read took %d requests, want 0: its bytes came with the metadata", n)
	}
}
