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

// counter serves the fixtures and counts the requests per path.
type counter struct {
	mu   sync.Mutex
	reqs map[string]int
	h    http.Handler
}

func (c *counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.reqs[r.URL.Path]++
	c.mu.Unlock()
	c.h.ServeHTTP(w, r)
}

// take returns the counts so far and starts again.
func (c *counter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.reqs
	c.reqs = map[string]int{}
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
// chunks are read, and its inner chunks come in one coalesced request.
func TestRemoteShardRequests(t *testing.T) {
	for _, tc := range []struct {
		array, sel string
		shards     int // shards touched, all present
		perShard   int // requests per shard: finding the index, and the chunks
	}{
		// Index at the start: the index read tells the size too.
		{"sharding/start_zstd", "0:16, 0:24, :", 2, 2},
		// Index at the end: the size first (HTTP sources learn it from an
		// answer), then the index.
		{"sharding/end_gzip", "0:32, 0:40", 2, 3},
	} {
		t.Run(tc.array, func(t *testing.T) {
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
			got := c.take()
			if len(got) != tc.shards {
				t.Fatalf("requests %v, want %d shards", got, tc.shards)
			}
			for p, n := range got {
				if n > tc.perShard {
					t.Errorf("%s: %d requests, want at most %d", p, n, tc.perShard)
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
		if b.waiting++; b.waiting == b.n {
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
// once, then both shards' chunks at once; with the index at the end, a
// round more first, for the shards' sizes (io/source has no suffix range).
func TestShardRounds(t *testing.T) {
	for _, tc := range []struct {
		array, sel string
		rounds     int
	}{
		{"sharding/start_zstd", "0:16, 0:24, :", 2},
		{"sharding/end_gzip", "0:32, 0:40", 3},
	} {
		t.Run(tc.array, func(t *testing.T) {
			b := &barrier{n: 2, h: http.FileServer(http.Dir(fixtures))}
			srv := httptest.NewServer(b)
			t.Cleanup(srv.Close)
			f, err := h5.Open(ctx, srv.URL+"/fixture-consolidated.zarr3", h5.WithSourceOptions(source.WithRetry(source.Retry{MaxAttempts: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, MaxElapsed: time.Minute})))
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
