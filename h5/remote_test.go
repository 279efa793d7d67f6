package h5_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/conformance"
	"github.com/lindigo/lindi/internal/netsim"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/selection"
)

// serve serves the conformance fixtures over HTTP through the network simulator.
func serve(t *testing.T, cfg netsim.Config) *httptest.Server {
	t.Helper()
	h, err := netsim.New(httpFixtures(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// httpFixtures serves the conformance directory.
func httpFixtures() http.Handler { return http.FileServer(http.Dir(conformanceDir)) }

// startServer runs an HTTP server on loopback for the test and returns its URL.
func startServer(tb testing.TB, h http.Handler) string {
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}

// noWait retries at once: tests must not sleep through backoffs.
var noWait = source.Retry{MaxAttempts: 20, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxElapsed: time.Minute,
	Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}

// runCases reads every case on the named files, opened from base over HTTP.
func runCases(t *testing.T, base string, names []string, opts ...h5.Option) {
	cases, err := conformance.Load(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		f, err := h5.Open(ctx, base+"/"+name, opts...)
		if err != nil {
			t.Fatalf("open %s: %v", name, err)
		}
		defer f.Close()
		for _, c := range cases {
			if !slicesContains(c.Files, name) {
				continue
			}
			want, err := c.Expected(conformanceDir)
			if err != nil {
				t.Fatal(err)
			}
			d, err := f.Dataset(ctx, c.Dataset)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, c.ID, err)
			}
			sel, _ := selection.Parse(c.Selection)
			got, err := d.Read(ctx, sel)
			if err != nil {
				t.Fatalf("%s: %s: %s[%s]: %v", name, c.ID, c.Dataset, c.Selection, err)
			}
			if err := conformance.Compare(got, want); err != nil {
				t.Fatalf("%s: %s: %s[%s]: %v", name, c.ID, c.Dataset, c.Selection, err)
			}
		}
	}
}

func slicesContains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

var allFixtures = []string{"fixture.lindi.json", "fixture.extlink.lindi.json", "fixture.zarr", "fixture.h5", "fixture-latest.h5", "fixture.lindi.tar", "fixture.lindi.d"}

// TestRemoteConformance runs the conformance cases with the fixtures served over HTTP.
func TestRemoteConformance(t *testing.T) {
	srv := serve(t, netsim.Config{})
	runCases(t, srv.URL, allFixtures)
}

// TestRemoteFaults runs the cases while the server fails 10% of requests with
// 503, cuts 5% of connections mid-body and answers some requests 429.
func TestRemoteFaults(t *testing.T) {
	srv := serve(t, netsim.Config{Error503: 0.10, Cut: 0.05, TooMany: 0.03, Seed: 7})
	runCases(t, srv.URL, allFixtures, h5.WithSourceOptions(source.WithRetry(noWait)))
}

// TestRemote404 checks that a permanent 404 names the URL and the status.
func TestRemote404(t *testing.T) {
	srv := serve(t, netsim.Config{NotFound: []string{"/fixture.h5"}})
	f, err := h5.Open(ctx, srv.URL+"/fixture.lindi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Read(ctx, nil)
	var he *source.HTTPError
	if !errors.As(err, &he) || he.Status != 404 || !strings.Contains(err.Error(), srv.URL+"/fixture.h5") {
		t.Fatalf("got %v, want an HTTP 404 error naming %s/fixture.h5", err, srv.URL)
	}
}

// TestRemoteCancel cancels a remote read whose chunks never arrive: it must
// end with context.Canceled (it cannot end any other way, so no clock is
// involved) and leave no goroutine behind.
func TestRemoteCancel(t *testing.T) {
	// The document is served; every other request is held until the client
	// gives it up.
	url := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".json") {
			httpFixtures().ServeHTTP(w, r)
			return
		}
		<-r.Context().Done()
	}))
	f, err := h5.Open(ctx, url+"/fixture.lindi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "acquisition/TwoPhotonSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	c, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := d.Read(c, nil)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let requests start (the test holds either way)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled read did not return")
	}
	for range 200 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("goroutines: %d before the read, %d after", before, runtime.NumGoroutine())
}

// TestRemoteCache reads a remote dataset twice: the second read is served by
// the cache, unless caching is turned off.
func TestRemoteCache(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []h5.Option
		second bool // whether the second read makes requests
	}{
		{"default", nil, false},
		{"off", []h5.Option{h5.WithCacheBytes(0)}, true},
		{"sized", []h5.Option{h5.WithCacheBytes(64 << 20)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := netsim.New(httpFixtures(), netsim.Config{})
			if err != nil {
				t.Fatal(err)
			}
			f, err := h5.Open(ctx, startServer(t, h)+"/fixture.lindi.json", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Read(ctx, nil); err != nil {
				t.Fatal(err)
			}
			before := h.Stats().Requests
			if _, err := d.Read(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if made := h.Stats().Requests - before; (made > 0) != tc.second {
				t.Errorf("the second read made %d requests", made)
			}
		})
	}
}
