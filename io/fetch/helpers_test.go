package fetch

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lindigo/lindi/io/source"
)

const fixture = "../../testdata/conformance/fixture.h5"

func readFixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// counting wraps a source and counts its reads.
type counting struct {
	source.Source
	reads atomic.Int64
	bytes atomic.Int64
}

func (c *counting) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	c.reads.Add(1)
	c.bytes.Add(int64(len(p)))
	return c.Source.ReadAt(ctx, p, off)
}

// failing fails every read touching byte bad.
type failing struct {
	source.Source
	bad int64
}

var errBroken = errors.New("broken disk")

func (f *failing) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off <= f.bad && f.bad < off+int64(len(p)) {
		return 0, errBroken
	}
	return f.Source.ReadAt(ctx, p, off)
}

// blocking never answers until ctx is done.
type blocking struct{ started atomic.Int64 }

func (b *blocking) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	b.started.Add(1)
	<-ctx.Done()
	return 0, ctx.Err()
}
func (b *blocking) Size(context.Context) (int64, error) { return 1 << 40, nil }
func (b *blocking) Name() string                        { return "blocking" }

// randomRanges draws n ranges of src (size bytes) with gaps, overlaps,
// duplicates and empty ranges.
func randomRanges(rng *rand.Rand, src source.Source, size int64, n int) []Range {
	rs := make([]Range, 0, n)
	for len(rs) < n {
		switch k := rng.IntN(10); {
		case k == 0 && len(rs) > 0:
			rs = append(rs, rs[rng.IntN(len(rs))]) // duplicate
		case k == 1:
			rs = append(rs, Range{Src: src, Off: rng.Int64N(size + 1), Len: 0})
		default:
			l := 1 + rng.Int64N(min(size, 1<<uint(rng.IntN(18))))
			rs = append(rs, Range{Src: src, Off: rng.Int64N(size - l + 1), Len: l})
		}
	}
	return rs
}

// collector checks deliveries: each index once, and keeps the slices as
// given, to verify after Fetch that the Fetcher never reused them.
type collector struct {
	mu   sync.Mutex
	got  map[int][]byte
	dups []int
}

func newCollector() *collector { return &collector{got: map[int][]byte{}} }

func (c *collector) deliver(i int, data []byte) error {
	if cap(data) != len(data) {
		return errors.New("data capacity reaches past its range")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.got[i]; ok {
		c.dups = append(c.dups, i)
	}
	c.got[i] = data
	return nil
}

// settle waits for the goroutine count to fall back to base.
func settle(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left (base %d):\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type atomicMax struct{ v atomic.Int64 }

func (m *atomicMax) load() int64 { return m.v.Load() }

// observing records how many reads run at once.
type observing struct {
	source.Source
	running, peak *atomicMax
}

func (o *observing) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	n := o.running.v.Add(1)
	for {
		p := o.peak.v.Load()
		if n <= p || o.peak.v.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(200 * time.Microsecond)
	defer o.running.v.Add(-1)
	return o.Source.ReadAt(ctx, p, off)
}

func httptestServer(tb testing.TB, h http.Handler) string {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}
