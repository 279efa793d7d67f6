package fetch

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
	"github.com/lindigo/lindi/io/source"
)

func noWait(ctx context.Context, d time.Duration) error { return ctx.Err() }

// simServer serves the fixture at /f.h5 through netsim with cfg.
func simServer(t testing.TB, data []byte, cfg netsim.Config) (*httptest.Server, *netsim.Handler) {
	t.Helper()
	h, err := netsim.New(netsim.Blobs(map[string][]byte{"/f.h5": data}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, h
}

func httpSource(t testing.TB, url string) *source.HTTP {
	t.Helper()
	r := source.DefaultRetry()
	r.MaxAttempts, r.Sleep = 20, noWait
	s, err := source.NewHTTP(url, source.WithResolver(nil), source.WithRetry(r))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestFetchHTTPFaults(t *testing.T) {
	file := readFixture(t)
	srv, sim := simServer(t, file, netsim.Config{Error503: 0.10, Cut: 0.05, TooMany: 0.05, Seed: 42})
	src := httpSource(t, srv.URL+"/f.h5")
	rng := rand.New(rand.NewPCG(1, 2))
	rs := randomRanges(rng, src, int64(len(file)), 600)
	for _, opts := range [][]Option{
		{WithMaxGap(0), WithMaxMerged(1)}, // one request per range: many faults
		nil,
		{WithPartSize(20_000)},
	} {
		f, _ := New(opts...)
		c := newCollector()
		if err := f.Fetch(context.Background(), rs, c.deliver); err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			if !bytes.Equal(c.got[i], file[r.Off:r.Off+r.Len]) || int64(len(c.got[i])) != r.Len {
				t.Fatalf("range %d: wrong bytes", i)
			}
		}
	}
	st := sim.Stats()
	if st.Errors503 == 0 || st.Cuts == 0 || st.Errors429 == 0 {
		t.Fatalf("faults not exercised: %+v", st)
	}
	if got := src.Stats().Retries; got < st.Errors503+st.Errors429+st.Cuts {
		t.Fatalf("%d retries for %+v", got, st)
	}
	t.Logf("netsim %+v; source %+v", st, src.Stats())
}

func TestFetchHTTP404(t *testing.T) {
	file := readFixture(t)
	srv, sim := simServer(t, file, netsim.Config{NotFound: []string{"/gone.h5"}})
	good := httpSource(t, srv.URL+"/f.h5")
	gone := httpSource(t, srv.URL+"/gone.h5")
	f, _ := New()
	rs := append(grid(good, 100, 10, 10_000), Range{Src: gone, Off: 0, Len: 10})
	err := f.Fetch(context.Background(), rs, func(int, []byte) error { return nil })
	var he *source.HTTPError
	if !errors.As(err, &he) || he.Status != 404 || he.URL != srv.URL+"/gone.h5" {
		t.Fatalf("err = %v, want a 404 for /gone.h5", err)
	}
	if !strings.Contains(err.Error(), srv.URL+"/gone.h5") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("error %q does not name URL and status", err)
	}
	if n := sim.Stats().NotFounds; n != 1 {
		t.Fatalf("404 asked %d times, want once (not retried)", n)
	}
}

func TestFetchHTTPCancel(t *testing.T) {
	file := readFixture(t)
	srv, _ := simServer(t, file, netsim.Config{Latency: 5 * time.Second})
	src := httpSource(t, srv.URL+"/f.h5")
	f, _ := New(WithMaxGap(0), WithMaxMerged(1), WithConcurrency(16))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Fetch(ctx, grid(src, 200, 10, 1000), func(int, []byte) error { return nil }) }()
	time.Sleep(50 * time.Millisecond)
	t0 := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		d := time.Since(t0)
		t.Logf("returned %v after cancel", d)
		// Well under the server's 5 s latency, with room for a loaded
		// machine under the race detector.
		if d > time.Second {
			t.Fatalf("returned after %v", d)
		}
	case <-time.After(4 * time.Second):
		t.Fatal("Fetch did not return")
	}
	settleFetch(t)
}

// settleFetch waits for every goroutine running fetch or HTTP source code to
// end. The goroutines of the server and of kept-alive client connections
// belong to net/http and are left to their own schedule.
func settleFetch(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		ours := 0
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "lindi/io/fetch.(*run)") || strings.Contains(g, "lindi/io/source.(*HTTP)") {
				ours++
			}
		}
		if ours == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of the fetch left:\n%s", ours, stacks)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFetchConformanceOverHTTP serves the conformance fixture directory
// (HDF5 files, LINDI JSON, the Zarr store's metadata and chunks) with
// http.FileServer behind faults, and reads every file whole and in pieces
// through the fetcher: every byte must match the file on disk.
func TestFetchConformanceOverHTTP(t *testing.T) {
	const dir = "../../testdata/conformance"
	sim, err := netsim.New(http.FileServer(http.Dir(dir)), netsim.Config{Error503: 0.05, Cut: 0.05, TooMany: 0.02, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	defer srv.Close()
	var files []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(path, filepath.Join(dir, "expected")) {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) < 20 {
		t.Fatalf("walk: %d files, %v", len(files), err)
	}
	var rs []Range
	var want [][]byte
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, path)
		src := httpSource(t, srv.URL+"/"+filepath.ToSlash(rel))
		n := int64(len(data))
		for _, r := range [][2]int64{{0, n}, {n / 3, n / 3}, {n / 2, n - n/2}} {
			rs = append(rs, Range{Src: src, Off: r[0], Len: r[1]})
			want = append(want, data[r[0]:r[0]+r[1]])
		}
	}
	f, _ := New(WithMinPartSize(64 << 10))
	c := newCollector()
	if err := f.Fetch(context.Background(), rs, c.deliver); err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		if !bytes.Equal(c.got[i], want[i]) {
			t.Fatalf("%s [%d, +%d): wrong bytes", rs[i].Src.Name(), rs[i].Off, rs[i].Len)
		}
	}
	if st := sim.Stats(); st.Errors503+st.Cuts == 0 {
		t.Fatalf("no faults injected: %+v", st)
	}
}
