package source

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tlsServer is an HTTPS test server counting the connections it accepts,
// and the TLS handshakes it completes.
type tlsServer struct {
	*httptest.Server
	conns, handshakes atomic.Int64
}

func newTLSServer(t *testing.T, h http.Handler) *tlsServer {
	t.Helper()
	s := &tlsServer{}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.TLS = &tls.Config{VerifyConnection: func(tls.ConnectionState) error {
		s.handshakes.Add(1)
		return nil
	}}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// warmTransport is a transport like the shared one, trusting s, and its
// warmer, whose expiry timers are left to the test: each expiry is sent on
// the channel returned.
func warmTransport(t *testing.T, s *tlsServer) (*http.Transport, *warmer, *fakeTimers) {
	t.Helper()
	tr, w := newTransport(false)
	tr.TLSClientConfig = s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	ft := &fakeTimers{}
	w.afterFunc = ft.afterFunc
	w.delay = 0 // open ahead at once: loopback connects within warmDelay
	t.Cleanup(func() {
		w.wg.Wait()
		ft.fireAll()
		tr.CloseIdleConnections()
	})
	return tr, w, ft
}

// fakeTimers holds the functions a warmer scheduled, to run them at will.
type fakeTimers struct {
	mu sync.Mutex
	fs []*fakeTimer
}

type fakeTimer struct {
	f       func()
	stopped atomic.Bool
}

func (t *fakeTimer) Stop() bool { return !t.stopped.Swap(true) }

func (ft *fakeTimers) afterFunc(_ time.Duration, f func()) interface{ Stop() bool } {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	t := &fakeTimer{f: f}
	ft.fs = append(ft.fs, t)
	return t
}

// fireAll runs every scheduled function not stopped, as if time had passed.
func (ft *fakeTimers) fireAll() int {
	ft.mu.Lock()
	fs := ft.fs
	ft.fs = nil
	ft.mu.Unlock()
	n := 0
	for _, t := range fs {
		if !t.stopped.Load() {
			t.f()
			n++
		}
	}
	return n
}

func get(t *testing.T, c *http.Client, ctx context.Context, url string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// barrier answers once n requests are in flight at once, so that they
// need n connections.
func barrier(n int) http.HandlerFunc {
	var wg sync.WaitGroup
	wg.Add(n)
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/barrier" {
			wg.Done()
			wg.Wait()
		}
		io.WriteString(w, "ok")
	}
}

// concurrently makes n requests to url at once.
func concurrently(t *testing.T, c *http.Client, n int, url string) []*http.Response {
	t.Helper()
	out := make([]*http.Response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			resp, err := c.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			out[i] = resp
		})
	}
	wg.Wait()
	return out
}

func TestWarmOpensAheadAndReuses(t *testing.T) {
	const n = 8
	s := newTLSServer(t, barrier(n))
	tr, w, _ := warmTransport(t, s)
	c := &http.Client{Transport: tr}
	ctx := withWarm(context.Background(), n)
	if resp := get(t, c, ctx, s.URL+"/first"); resp.TLS == nil {
		t.Error("first response has no TLS state")
	}
	w.wg.Wait()
	if got := w.handshakes.Load(); got != n {
		t.Fatalf("after the first request: %d handshakes, want %d (1 + %d opened ahead)", got, n, n-1)
	}
	// n requests in flight at once: the connections opened ahead serve
	// them, the transport dials none of its own.
	for _, resp := range concurrently(t, c, n, s.URL+"/barrier") {
		if resp != nil && resp.TLS == nil {
			t.Error("a response over a connection opened ahead has no TLS state")
		}
	}
	if got := s.conns.Load(); got != n {
		t.Errorf("after %d concurrent requests: %d connections, want %d", n, got, n)
	}
	if d, a := w.dials.Load(), w.aheads.Load(); d != n || a != n-1 {
		t.Errorf("dials %d, opened ahead %d; want %d, %d", d, a, n, n-1)
	}
	if got := s.handshakes.Load(); got != n {
		t.Errorf("the server made %d handshakes, want %d", got, n)
	}
}

func TestWarmBounded(t *testing.T) {
	const n, wide = 4, 10
	s := newTLSServer(t, barrier(wide))
	tr, w, _ := warmTransport(t, s)
	c := &http.Client{Transport: tr}
	get(t, c, withWarm(context.Background(), n), s.URL+"/first")
	w.wg.Wait()
	if got := w.dials.Load(); got != n {
		t.Fatalf("opened %d connections for a warm count of %d", got, n)
	}
	// A host with connections is not cold: more requests than the warm
	// count dial what they lack, and open nothing ahead.
	get(t, c, withWarm(context.Background(), n), s.URL+"/again")
	concurrently(t, c, wide, s.URL+"/barrier")
	w.wg.Wait()
	if got := s.conns.Load(); got != wide {
		t.Errorf("%d concurrent requests: %d connections, want %d", wide, got, wide)
	}
	if a := w.aheads.Load(); a != n-1 {
		t.Errorf("opened %d ahead, want %d", a, n-1)
	}
}

func TestWarmOff(t *testing.T) {
	for _, n := range []int{0, 1} {
		s := newTLSServer(t, barrier(1))
		tr, w, _ := warmTransport(t, s)
		get(t, &http.Client{Transport: tr}, withWarm(context.Background(), n), s.URL+"/")
		w.wg.Wait()
		if got := w.dials.Load(); got != 1 || w.aheads.Load() != 0 {
			t.Errorf("warm count %d: %d connections, %d opened ahead; want 1, 0", n, got, w.aheads.Load())
		}
	}
	// A request without a warm count, such as a DANDI resolution, opens
	// no connection ahead either.
	s := newTLSServer(t, barrier(1))
	tr, w, _ := warmTransport(t, s)
	get(t, &http.Client{Transport: tr}, context.Background(), s.URL+"/")
	w.wg.Wait()
	if got := w.dials.Load(); got != 1 {
		t.Errorf("no warm count: %d connections, want 1", got)
	}
}

func TestWarmPlainHTTP(t *testing.T) {
	const n = 5
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(barrier(n))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	tr, w := newTransport(false)
	w.afterFunc = (&fakeTimers{}).afterFunc
	w.delay = 0
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr}
	get(t, c, withWarm(context.Background(), n), srv.URL+"/first")
	w.wg.Wait()
	concurrently(t, c, n, srv.URL+"/barrier")
	if got := conns.Load(); got != n {
		t.Errorf("%d connections, want %d", got, n)
	}
}

func TestWarmExpiry(t *testing.T) {
	const n = 4
	s := newTLSServer(t, barrier(1))
	tr, w, ft := warmTransport(t, s)
	c := &http.Client{Transport: tr}
	get(t, c, withWarm(context.Background(), n), s.URL+"/first")
	w.wg.Wait()
	if fired := ft.fireAll(); fired != n-1 {
		t.Fatalf("%d expiries ran, want %d", fired, n-1)
	}
	if e := w.expired.Load(); e != n-1 {
		t.Errorf("%d expired, want %d", e, n-1)
	}
	// Once the transport's own connection is gone too, the host is cold
	// again: the next request opens ahead again.
	tr.CloseIdleConnections()
	w.mu.Lock()
	left := len(w.hosts)
	w.mu.Unlock()
	if left != 0 {
		t.Errorf("%d hosts still held after every connection closed", left)
	}
	get(t, c, withWarm(context.Background(), n), s.URL+"/cold")
	w.wg.Wait()
	if a := w.aheads.Load(); a != 2*(n-1) {
		t.Errorf("opened %d ahead in all, want %d", a, 2*(n-1))
	}
}

// gatedWarmer is a warmer over the address of s whose dials wait for gate
// (or their context).
func gatedWarmer(t *testing.T, s *tlsServer, gate <-chan struct{}) (*warmer, warmKey) {
	t.Helper()
	_, w, _ := warmTransport(t, s)
	var d net.Dialer
	w.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return d.DialContext(ctx, network, addr)
	}
	return w, warmKey{tls: true, network: "tcp", addr: s.Listener.Addr().String()}
}

func TestWarmDialWaitsAndGivesBack(t *testing.T) {
	s := newTLSServer(t, barrier(1))
	gate := make(chan struct{})
	w, k := gatedWarmer(t, s, gate)
	var conns []net.Conn
	var mu sync.Mutex
	keep := func(c net.Conn, err error) {
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var first sync.WaitGroup
	first.Go(func() { keep(w.get(withWarm(context.Background(), 3), k)) })
	for {
		w.mu.Lock()
		h := w.hosts[k]
		started := h != nil && len(h.ahead) == 2
		w.mu.Unlock()
		if started {
			break
		}
		time.Sleep(time.Millisecond) // until the first dial has opened ahead
	}
	// A dial that takes one still opening, then gives up, gives it back.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := w.get(ctx, k); done <- err }()
	for {
		w.mu.Lock()
		waiting := len(w.hosts[k].ahead) == 1
		w.mu.Unlock()
		if waiting {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled dial returned %v", err)
	}
	close(gate)
	first.Wait()
	w.wg.Wait()
	// Both connections opened ahead are there for the next dials.
	for range 2 {
		keep(w.get(context.Background(), k))
	}
	if d := w.dials.Load(); d != 3 {
		t.Errorf("%d dials for 3 connections", d)
	}
	if got := w.handshakes.Load(); got != 3 {
		t.Errorf("%d handshakes, want 3", got)
	}
}

func TestWarmCancelledRead(t *testing.T) {
	s := newTLSServer(t, barrier(1))
	gate := make(chan struct{}) // never opens: every dial waits for its context
	w, k := gatedWarmer(t, s, gate)
	read, cancelRead := context.WithCancel(context.Background())
	own, cancelOwn := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		// The transport's dial context keeps the request's values and
		// drops its cancellation.
		_, err := w.get(context.WithValue(own, warmCtxKey{}, warmReq{n: 8, ctx: read}), k)
		done <- err
	}()
	for {
		w.mu.Lock()
		h := w.hosts[k]
		started := h != nil && len(h.ahead) == 7
		w.mu.Unlock()
		if started {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancelRead()
	w.wg.Wait() // every connection opened ahead has given up
	w.mu.Lock()
	h := w.hosts[k]
	left, open := len(h.ahead), h.open
	w.mu.Unlock()
	if left != 0 || open != 1 {
		t.Errorf("after the read's context ended: %d opened ahead kept, %d open; want 0, 1 (the dial's own)", left, open)
	}
	cancelOwn()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("dial returned %v", err)
	}
	w.mu.Lock()
	held := len(w.hosts)
	w.mu.Unlock()
	if held != 0 || w.dials.Load() != 0 || s.conns.Load() != 0 {
		t.Errorf("%d hosts held, %d dials, %d connections; want none", held, w.dials.Load(), s.conns.Load())
	}
}

func TestWarmHandshakeErrors(t *testing.T) {
	s := newTLSServer(t, barrier(1))
	tr, w := newTransport(false) // trusts only the system's roots, not s
	t.Cleanup(tr.CloseIdleConnections)
	req, _ := http.NewRequestWithContext(withWarm(context.Background(), 4), http.MethodGet, s.URL, nil)
	_, err := (&http.Client{Transport: tr}).Do(req)
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("untrusted server: %v, want an x509.UnknownAuthorityError", err)
	}
	if retryableTransport(err) {
		t.Errorf("a bad certificate is retried: %v", err)
	}
	w.wg.Wait()
	w.mu.Lock()
	held := len(w.hosts)
	w.mu.Unlock()
	if held != 0 {
		for k, h := range w.hosts {
			t.Logf("%v: open %d, ahead %d", k, h.open, len(h.ahead))
		}
		t.Errorf("%d hosts held after every handshake failed", held)
	}

	// A server that never answers the handshake times out, retryably.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	tr2, _ := newTransport(false)
	tr2.TLSHandshakeTimeout = time.Nanosecond
	_, err = (&http.Client{Transport: tr2}).Get("https://" + ln.Addr().String() + "/")
	if !retryableTransport(err) {
		t.Errorf("handshake timeout: %v, not retryable", err)
	}
}

func TestWarmPolicy(t *testing.T) {
	s := newTLSServer(t, barrier(1))
	h, err := NewHTTP(s.URL+"/f", WithPolicy(Policy{}), WithResolver(nil), WithWarmConns(8))
	if err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	if _, err := h.ReadAt(context.Background(), b[:], 0); !errors.Is(err, ErrBlocked) {
		t.Errorf("loopback under a policy: %v, want ErrBlocked", err)
	}
	if got := s.conns.Load(); got != 0 {
		t.Errorf("%d connections reached a blocked address", got)
	}
}

func TestHTTPWarmConns(t *testing.T) {
	const n = 6
	body := []byte("0123456789")
	s := newTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(body))
	}))
	tr, w, _ := warmTransport(t, s)
	h, err := NewHTTP(s.URL+"/f", WithClient(&http.Client{Transport: tr}), WithResolver(nil), WithWarmConns(n), WithConcurrency(n))
	if err != nil {
		t.Fatal(err)
	}
	var p [4]byte
	if _, err := h.ReadAt(context.Background(), p[:], 3); err != nil || string(p[:]) != "3456" {
		t.Fatalf("ReadAt = %q, %v", p, err)
	}
	w.wg.Wait()
	if got := w.handshakes.Load(); got != n {
		t.Errorf("%d handshakes after the first read, want %d", got, n)
	}
	for _, bad := range []int{-1, 1<<16 + 1} {
		if _, err := NewHTTP(s.URL, WithWarmConns(bad)); err == nil {
			t.Errorf("WithWarmConns(%d) accepted", bad)
		}
	}
}

// An answer that is not data (a 404 page, a 503 to retry) is read to its
// end before it is closed, so that its connection serves the next request:
// a store probing missing keys over HTTPS would otherwise pay a TCP and a
// TLS round trip for each.
func TestErrorAnswersKeepTheirConnection(t *testing.T) {
	s := newTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, strings.Repeat("no such key ", 100), http.StatusNotFound)
	}))
	tr, _, _ := warmTransport(t, s)
	for i := range 5 {
		h, err := NewHTTP(fmt.Sprintf("%s/missing%d", s.URL, i), WithClient(&http.Client{Transport: tr}), WithResolver(nil), WithWarmConns(0))
		if err != nil {
			t.Fatal(err)
		}
		var b [8]byte
		var he *HTTPError
		if _, err := h.ReadAt(context.Background(), b[:], 0); !errors.As(err, &he) || he.Status != http.StatusNotFound {
			t.Fatalf("ReadAt = %v, want a 404", err)
		}
	}
	if got := s.conns.Load(); got != 1 {
		t.Errorf("5 requests answered 404: %d connections, want 1", got)
	}
}

// The others are opened only if the first connection is still under way
// after the delay: a near host connects sooner, and a read there gains less
// from connections opened ahead than their handshakes cost.
func TestWarmDelay(t *testing.T) {
	const n = 4
	for _, slow := range []bool{false, true} {
		s := newTLSServer(t, barrier(1))
		gate := make(chan struct{})
		w, k := gatedWarmer(t, s, gate)
		ft := &fakeTimers{}
		w.afterFunc, w.delay = ft.afterFunc, warmDelay
		got := make(chan net.Conn, 1)
		go func() {
			c, err := w.get(withWarm(context.Background(), n), k)
			if err != nil {
				t.Error(err)
			}
			got <- c
		}()
		for {
			ft.mu.Lock()
			armed := len(ft.fs) == 1
			ft.mu.Unlock()
			if armed {
				break
			}
			time.Sleep(time.Millisecond) // until the first dial has armed its delay
		}
		if slow {
			ft.fireAll() // the delay passes while the first dial waits
			close(gate)
			c := <-got
			if got := w.handshakes.Load(); got != 1 {
				t.Errorf("%d handshakes done before the first connection sent anything, want 1", got)
			}
			// Its first request lets the others finish their handshakes.
			if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
				t.Error(err)
			}
			got <- c
		} else {
			close(gate)
			if c := <-got; c != nil {
				c.Close()
			}
			ft.fireAll() // the delay passes after the first dial ended
		}
		w.wg.Wait()
		if slow {
			if c := <-got; c != nil {
				c.Close()
			}
		}
		want := int64(0)
		if slow {
			want = n - 1
		}
		if a := w.aheads.Load(); a != want {
			t.Errorf("first dial slow=%v: %d opened ahead, want %d", slow, a, want)
		}
		ft.fireAll() // expire those opened ahead
	}
}
