package zarr3_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/selection"
)

// counter serves the fixtures and counts the requests per path, keeping
// their Range headers.
type counter struct {
	mu     sync.Mutex
	reqs   map[string]int
	ranges map[string][]string
	h      http.Handler
}

func (c *counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.reqs[r.URL.Path]++
	if c.ranges == nil {
		c.ranges = map[string][]string{}
	}
	c.ranges[r.URL.Path] = append(c.ranges[r.URL.Path], r.Header.Get("Range"))
	c.mu.Unlock()
	c.h.ServeHTTP(w, r)
}

// take returns the counts so far and starts again.
func (c *counter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.reqs
	c.reqs, c.ranges = map[string]int{}, nil
	return m
}

// takeRanges returns the Range headers of the requests so far, per path,
// and starts again.
func (c *counter) takeRanges() map[string][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.ranges
	c.reqs, c.ranges = map[string]int{}, nil
	return m
}

func serveFixtures(t *testing.T) (*counter, string) {
	c := &counter{reqs: map[string]int{}, h: http.FileServer(http.Dir(fixtures))}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return c, srv.URL
}

// TestRemoteConformance reads every case from both stores over HTTP: one
// with consolidated metadata, one probed path by path.
func TestRemoteConformance(t *testing.T) {
	_, base := serveFixtures(t)
	runCases(t, func(name string) (*h5.File, error) { return h5.Open(ctx, base+"/"+name) })
}

// TestRemoteConsolidated checks that a store with consolidated metadata
// opens on its root zarr.json alone, and that one without reads no
// zarr.json but those on the path asked for.
func TestRemoteConsolidated(t *testing.T) {
	c, base := serveFixtures(t)
	f, err := h5.Open(ctx, base+"/fixture-consolidated.zarr3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Dataset(ctx, "hierarchy/g1/g2/g3/leaf"); err != nil {
		t.Fatal(err)
	}
	for p := range c.take() {
		if strings.HasSuffix(p, "zarr.json") && p != "/fixture-consolidated.zarr3/zarr.json" {
			t.Errorf("read %s", p)
		}
	}
	f, err = h5.Open(ctx, base+"/fixture.zarr3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Dataset(ctx, "hierarchy/g1/g2/g3/leaf"); err != nil {
		t.Fatal(err)
	}
	var metas []string
	for p := range c.take() {
		if strings.HasSuffix(p, "zarr.json") {
			metas = append(metas, p)
		}
	}
	if len(metas) != 6 {
		t.Errorf("read %d zarr.json documents, want the root's and 5 on the path: %v", len(metas), metas)
	}
}

// TestRemoteShardRequests counts the requests a sharded read costs: each
// shard touched is read for its index once however many of its inner
// chunks are read (at the end of the shard: one suffix range, no request
// for the size first), and its inner chunks come in one coalesced request;
// a shard that does not exist costs its one index request.
func TestRemoteShardRequests(t *testing.T) {
	for _, tc := range []struct {
		array, sel string
		shards     map[string]int // requests per shard touched: the index, the chunks coalesced
		suffix     string         // the Range of an index request at the end
	}{
		// Index at the start: the index read tells the size too.
		{"sharding/start_zstd", "0:16, 0:24, :", map[string]int{"0/0/0": 2, "0/1/0": 2}, ""},
		// Index at the end: a suffix range tells the size too (1/0 is an
		// index alone, its inner chunks all fill; 1/1 does not exist).
		{"sharding/end_gzip", "0:32, 0:40", map[string]int{"0/0": 2, "0/1": 2}, "bytes=-132"},
		{"sharding/end_gzip", "20:50, 10:30", map[string]int{"0/0": 2, "0/1": 2, "1/0": 1, "1/1": 1}, "bytes=-132"},
		{"sharding/end_gzip", ":, :", map[string]int{"0/0": 2, "0/1": 2, "0/2": 2, "1/0": 1, "1/1": 1, "1/2": 2, "2/0": 2, "2/1": 2, "2/2": 2}, "bytes=-132"},
	} {
		t.Run(tc.array+" "+tc.sel, func(t *testing.T) {
			c, base := serveFixtures(t)
			f, err := h5.Open(ctx, base+"/fixture-consolidated.zarr3")
			if err != nil {
				t.Fatal(err)
			}
			d, err := f.Dataset(ctx, tc.array)
			if err != nil {
				t.Fatal(err)
			}
			c.take()
			sel, _ := selection.Parse(tc.sel)
			if _, err := d.Read(ctx, sel); err != nil {
				t.Fatal(err)
			}
			got := c.takeRanges()
			if len(got) != len(tc.shards) {
				t.Fatalf("requests %v, want %d shards", got, len(tc.shards))
			}
			for s, want := range tc.shards {
				p := "/fixture-consolidated.zarr3/" + tc.array + "/c/" + s
				rs := got[p]
				if len(rs) != want {
					t.Errorf("%s: requests %q, want %d", p, rs, want)
					continue
				}
				if tc.suffix != "" && rs[0] != tc.suffix {
					t.Errorf("%s: index read with %q, want %q", p, rs[0], tc.suffix)
				}
			}
			// Read again: the indexes are kept, the chunks are one request a shard.
			if _, err := d.Read(ctx, sel); err != nil {
				t.Fatal(err)
			}
			for p, n := range c.take() {
				if n != 1 {
					t.Errorf("second read: %s: %d requests, want 1", p, n)
				}
			}
		})
	}
}

// TestS3Conformance reads every case from both stores named by s3:// URLs,
// through an endpoint serving the fixtures as bucket "lab".
func TestS3Conformance(t *testing.T) {
	files := http.StripPrefix("/us-east-2/lab", http.FileServer(http.Dir(fixtures)))
	srv := httptest.NewServer(files)
	t.Cleanup(srv.Close)
	opt := h5.WithSourceOptions(source.WithS3Endpoint(srv.URL+"/{region}/{bucket}"), source.WithS3Region("us-east-2"))
	runCases(t, func(name string) (*h5.File, error) { return h5.Open(ctx, "s3://lab/"+name, opt) })
}

// barrier holds requests for the shards until n of them are in flight,
// then lets that round through: a reader that asked for one shard's index
// or chunks only after another's answer would never fill a round.
type barrier struct {
	mu      sync.Mutex
	n       int
	sizes   []int // when set, the requests of each round (the last for later ones) instead of n
	waiting int
	release chan struct{}
	rounds  int
	h       http.Handler
}

func (b *barrier) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.Path, "/c/") {
		b.mu.Lock()
		if b.release == nil {
			b.release = make(chan struct{})
		}
		ch := b.release
		n := b.n
		if len(b.sizes) > 0 {
			n = b.sizes[min(b.rounds, len(b.sizes)-1)]
		}
		if b.waiting++; b.waiting == n {
			b.waiting, b.release = 0, nil
			b.rounds++
			close(ch)
		}
		b.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(20 * time.Second): // a safety net only: a serial reader never fills the round
			http.Error(w, "round never filled", http.StatusServiceUnavailable)
			return
		}
	}
	b.h.ServeHTTP(w, r)
}

// TestShardRounds checks the rounds of requests a read of 16 inner chunks
// in each of 2 shards costs: with the index at the start, both indexes at
// once, then both shards' chunks at once; with the index at the end the
// same (a suffix range reads the index without asking the size first).
func TestShardRounds(t *testing.T) {
	for _, tc := range []struct {
		array, sel string
		sizes      []int // the requests of each round
		rounds     int
	}{
		{"sharding/start_zstd", "0:16, 0:24, :", []int{2}, 2},
		{"sharding/end_gzip", "0:32, 0:40", []int{2}, 2},
		// 4 shards, 1/1 missing and 1/0 all fill: their indexes, then
		// the chunks of the 2 others.
		{"sharding/end_gzip", "20:50, 10:30", []int{4, 2}, 2},
		// 6 shards: 5 indexes and a 404, then 4 shards' chunks.
		{"sharding/end_gzip", "0:70, 10:30", []int{6, 4}, 2},
		// All 9 shards: more inner chunks than the engine's locators,
		// whose indexes are read at once all the same (engine.Preparer).
		{"sharding/end_gzip", ":, :", []int{9, 7}, 2},
	} {
		t.Run(tc.array+" "+tc.sel, func(t *testing.T) {
			b := &barrier{sizes: tc.sizes, h: http.FileServer(http.Dir(fixtures))}
			srv := httptest.NewServer(b)
			t.Cleanup(srv.Close)
			// A fixed concurrency: the rounds are the engine's, not what a
			// host's adaptive limit lets through at the start.
			f, err := h5.Open(ctx, srv.URL+"/fixture-consolidated.zarr3", h5.WithConcurrency(64), h5.WithSourceOptions(source.WithRetry(source.Retry{MaxAttempts: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxElapsed: time.Minute})))
			if err != nil {
				t.Fatal(err)
			}
			d, err := f.Dataset(ctx, tc.array)
			if err != nil {
				t.Fatal(err)
			}
			sel, _ := selection.Parse(tc.sel)
			if _, err := d.Read(ctx, sel); err != nil {
				t.Fatal(err)
			}
			if b.rounds != tc.rounds {
				t.Errorf("%d rounds, want %d", b.rounds, tc.rounds)
			}
		})
	}
}
