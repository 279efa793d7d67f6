package source

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
)

func TestParseConcurrency(t *testing.T) {
	for s, want := range map[string]int{"": 0, "auto": 0, " AUTO ": 0, "1": 1, "8": 8, "65536": 65536} {
		if n, err := ParseConcurrency(s); err != nil || n != want {
			t.Errorf("ParseConcurrency(%q) = %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"0", "-3", "x", "1.5", "65537", "8 requests"} {
		if _, err := ParseConcurrency(s); err == nil || !strings.Contains(err.Error(), "auto") {
			t.Errorf("ParseConcurrency(%q): err %v, want one saying what is accepted", s, err)
		}
	}
	t.Setenv(ConcurrencyEnv, "many")
	if _, err := NewHTTP("http://127.0.0.1:1/x"); err == nil || !strings.Contains(err.Error(), ConcurrencyEnv) {
		t.Fatalf("bad %s: err %v, want one naming it", ConcurrencyEnv, err)
	}
	t.Setenv(ConcurrencyEnv, "3")
	c, err := newConfig(nil)
	if err != nil || c.concurrency != 3 {
		t.Fatalf("config concurrency %d, %v; want 3 from the environment", c.concurrency, err)
	}
	if c, _ := newConfig([]Option{WithConcurrency(0)}); c.concurrency != 0 {
		t.Fatalf("WithConcurrency(0) gave %d, want auto over the environment", c.concurrency)
	}
}

// ok is the outcome of a request answered at once with latency d.
func ok(d time.Duration) outcome { return outcome{status: 206, latency: d} }

func TestLimiterGrowsAndBacksOff(t *testing.T) {
	l := newHostLimiter("h", 0)
	ctx := context.Background()
	// Slow start: one more per success while the requests fill the limit.
	for range 12 {
		var ps []*permit
		for range l.Limit() {
			p, err := l.acquire(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		for _, p := range ps {
			p.done(ok(time.Millisecond))
		}
	}
	if got := l.Limit(); got != AutoMaxConcurrency {
		t.Fatalf("after 12 full rounds limit %d, want %d", got, AutoMaxConcurrency)
	}
	// Failures of requests started before a cut cut once.
	ps := make([]*permit, 10)
	for i := range ps {
		ps[i], _ = l.acquire(ctx)
	}
	var cuts []Throttle
	for _, p := range ps {
		if th, cut := p.done(outcome{status: 503}); cut {
			cuts = append(cuts, th)
		}
	}
	if len(cuts) != 1 || cuts[0].Limit != 32 || cuts[0].Why != "HTTP 503" || l.Limit() != 32 {
		t.Fatalf("cuts %+v, limit %d; want one cut to 32", cuts, l.Limit())
	}
	for _, o := range []outcome{
		{setup: 1100 * time.Millisecond, status: 200},
		{err: syscall.ECONNREFUSED},
		{err: syscall.ECONNRESET},
		{status: 429},
	} {
		p, _ := l.acquire(ctx)
		before := l.Limit()
		if th, cut := p.done(o); !cut || th.Limit != before/2 {
			t.Fatalf("outcome %+v: cut %v to %d, want to %d", o, cut, th.Limit, before/2)
		}
	}
	// Not throttling: a 404, a slow body, an EOF.
	for _, o := range []outcome{{status: 404}, {status: 500}, {err: errors.New("EOF")}, {setup: 900 * time.Millisecond, status: 206}} {
		p, _ := l.acquire(ctx)
		before := l.Limit()
		if _, cut := p.done(o); cut || l.Limit() < before {
			t.Fatalf("outcome %+v cut the limit from %d to %d", o, before, l.Limit())
		}
	}
	if s := l.snapshot(); s.Backoffs != 5 || s.Lowest != 2 || s.Highest != AutoMaxConcurrency {
		t.Fatalf("snapshot %+v", s)
	}
}

func TestLimiterLatency(t *testing.T) {
	l := newHostLimiter("h", 0)
	ctx := context.Background()
	round := func(lat time.Duration) {
		var ps []*permit
		for range l.Limit() {
			p, _ := l.acquire(ctx)
			ps = append(ps, p)
		}
		for _, p := range ps {
			p.done(ok(lat))
		}
	}
	for range 3 {
		round(10 * time.Millisecond)
	}
	peak := l.Limit()
	// Latency that climbs with the limit: it stops growing, then shrinks.
	for range 6 {
		round(60 * time.Millisecond)
	}
	if l.Limit() >= peak {
		t.Fatalf("latency ×6: limit %d, was %d; want it to shrink", l.Limit(), peak)
	}
	// An idle limiter (one request at a time) does not grow: the limit is
	// not what holds the reads back.
	before := l.Limit()
	for range 50 {
		p, _ := l.acquire(ctx)
		p.done(ok(60 * time.Millisecond))
	}
	if l.Limit() != before {
		t.Fatalf("one request at a time moved the limit from %d to %d", before, l.Limit())
	}
}

func TestLimiterFixedAndWaits(t *testing.T) {
	l := newHostLimiter("h", 2)
	ctx := context.Background()
	a, _ := l.acquire(ctx)
	b, _ := l.acquire(ctx)
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := l.acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third acquire under a limit of 2: %v, want to wait until cancelled", err)
	}
	got := make(chan *permit)
	go func() {
		p, _ := l.acquire(ctx)
		got <- p
	}()
	if _, cut := a.done(outcome{status: 503}); cut || l.Limit() != 2 {
		t.Fatalf("a fixed limit backed off to %d", l.Limit())
	}
	c := <-got
	b.done(ok(0))
	c.done(ok(0))
	if s := l.snapshot(); !s.Fixed || s.Limit != 2 || s.Requests != 3 {
		t.Fatalf("snapshot %+v", s)
	}
}

// readParts reads data's bytes through h in parts of part bytes, from
// workers goroutines, and checks them; step, when not nil, is called after
// each part with the parts done.
func readParts(t *testing.T, h *HTTP, data []byte, part, workers int, step func(done int64)) {
	t.Helper()
	var next, done atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for {
				off := next.Add(int64(part)) - int64(part)
				if off >= int64(len(data)) {
					return
				}
				p := make([]byte, min(int64(part), int64(len(data))-off))
				if _, err := h.ReadAt(context.Background(), p, off); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(p, data[off:off+int64(len(p))]) {
					errs <- errors.New("wrong bytes")
					return
				}
				if step != nil {
					step(done.Add(1))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// smallServer serves data at /f on a netsim.Listener with the given backlog,
// one connection per request (as an HTTP/1.0 server does).
func smallServer(t *testing.T, backlog int, data []byte) (*netsim.Listener, string) {
	t.Helper()
	l, err := netsim.Listen(backlog)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: netsim.Blobs(map[string][]byte{"/f": data})}
	srv.SetKeepAlivesEnabled(false)
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l, "http://" + l.Addr().String() + "/f"
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// A server with a listen backlog of 5 and a slow accept loop, which drops
// the connection attempts beyond its queue: the read completes right, and
// the adaptive limit either never grew to overload it (its answers queued
// first) or backed off when connection setup stalled.
func TestLimiterBacklogServer(t *testing.T) {
	data := randomBytes(2 << 20)
	l, url := smallServer(t, 5, data)
	l.SetAcceptDelay(2 * time.Millisecond)
	var mu sync.Mutex
	var told []Throttle
	h, err := NewHTTP(url, WithResolver(nil), WithConcurrency(0),
		WithThrottleNotice(func(th Throttle) { mu.Lock(); told = append(told, th); mu.Unlock() }))
	if err != nil {
		t.Fatal(err)
	}
	// As many readers as a default Fetcher keeps in flight.
	readParts(t, h, data, 32<<10, AutoMaxConcurrency, nil)
	time.Sleep(hedgeJudge) // a dropped attempt is told once judged
	host := l.Addr().String()
	s := limiterFor(host, 0).snapshot()
	mu.Lock()
	seen := slices.Clone(told)
	mu.Unlock()
	t.Logf("host %+v, seen %+v", s, seen)
	// Growing half again past the start without a back-off would be
	// growing blind to the dropped attempts.
	if s.Highest > AutoInitialConcurrency*3/2 && (s.Backoffs == 0 || len(seen) == 0 || !strings.Contains(seen[0].Why, "connection setup") || seen[0].Host != host) {
		if drops, err := netsim.BacklogDrops(); err == nil && !drops {
			t.Skipf("this system queues connection attempts beyond a listen backlog, so nothing was dropped to back off from (the limit grew to %d)", s.Highest)
		}
		t.Fatalf("the limit grew to %d with no back-off for stalled connection setup: %+v, seen %+v", s.Highest, s, seen)
	}
	if s.Limit >= AutoMaxConcurrency {
		t.Fatalf("limit settled at %d against a backlog of 5", s.Limit)
	}
}

// A connection attempt whose SYN the server drops (its queue is full) is
// raced by a second one, which connects once the queue has room, long
// before the kernel would resend the first SYN; the request's stall
// function is called once the first attempt is seen to be dropped.
func TestHedgedDial(t *testing.T) {
	l, err := netsim.Listen(1)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := l.Addr().String()
	var held []net.Conn
	for range 4 { // fill the queue (backlog 1 holds about 2)
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			held = append(held, c)
		}
	}
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	go func() {
		time.Sleep(20 * time.Millisecond)
		for range len(held) {
			if c, err := l.Accept(); err == nil {
				defer c.Close()
			}
		}
		time.Sleep(2 * time.Second)
	}()
	stalled := make(chan struct{}, 1)
	ctx := context.WithValue(context.Background(), stallKey{}, func() { stalled <- struct{}{} })
	t0 := time.Now()
	c, err := hedged(newDialer().DialContext)(ctx, "tcp", addr)
	d := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if d >= 900*time.Millisecond {
		t.Fatalf("connected after %v; want the hedge to win well within a second", d)
	}
	select {
	case <-stalled:
	case <-time.After(3 * time.Second):
		t.Fatal("the dropped first attempt was not reported as a stall")
	}
}

// A server that starts resetting half its connections in the middle of a
// read, then recovers: the read completes right, the limit drops and climbs
// again.
func TestLimiterResettingServer(t *testing.T) {
	data := randomBytes(6 << 20)
	l, url := smallServer(t, 128, data)
	h, err := NewHTTP(url, WithResolver(nil), WithConcurrency(0))
	if err != nil {
		t.Fatal(err)
	}
	lim := limiterFor(l.Addr().String(), 0)
	var before, lowest atomic.Int64
	const parts = 6 << 20 >> 14
	readParts(t, h, data, 16<<10, 48, func(done int64) {
		switch done {
		case parts / 4:
			before.Store(int64(lim.Limit()))
			l.SetReset(2)
		case parts / 4 * 2:
			l.SetReset(0)
			lowest.Store(int64(lim.snapshot().Lowest))
		}
	})
	after := lim.snapshot()
	t.Logf("limit before %d, lowest %d, after %+v, %d resets", before.Load(), lowest.Load(), after, l.Resets())
	if l.Resets() == 0 || after.Backoffs == 0 {
		t.Fatalf("no connection was reset (%d) or no back-off (%+v)", l.Resets(), after)
	}
	if lowest.Load() >= before.Load() {
		t.Fatalf("limit did not drop: %d before the resets, lowest %d", before.Load(), lowest.Load())
	}
	if after.Limit <= int(lowest.Load()) {
		t.Fatalf("limit did not climb again: lowest %d, at the end %d", lowest.Load(), after.Limit)
	}
}
