package source

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultWarmConns is how many connections the first request of an HTTP
// source to a host without any opens at once, its own included (see
// WithWarmConns): fetch.DefaultConcurrency, the requests a read keeps in
// flight.
const DefaultWarmConns = 64

// warmDelay is how long the first connection to a host may take before
// the others are opened ahead (see warmer.first).
const warmDelay = 5 * time.Millisecond

// warmWait bounds how long connections opened ahead wait for the first
// connection's request before they finish their handshakes.
const warmWait = time.Second

// warmIdle is how long a connection opened ahead waits to be taken before
// it is closed. A server may close a connection that has sent no request
// (Apache's default keep-alive is 5 s), and the transport retries a failed
// request only on a connection that served one before, so a connection
// opened ahead must not outlive what servers grant it. Reads that follow
// their open take them within a few round trips.
const warmIdle = 4 * time.Second

// Connections opened ahead.
//
// A new HTTPS connection costs a round trip for TCP and another for TLS
// before its first request. A read starts with one request (a LINDI JSON
// document, an HDF5 superblock) and then wants many at once; dialled only
// then, every one of those pays both round trips again. So when a request
// that carries a warm count (withWarm) makes the transport dial a host it
// holds no connection to, the warmer opens the others while that dial is
// under way (unless it ends within warmDelay: a near host), and the
// transport's later dials to that host take them, ready, instead of
// dialling. A dial that finds one still opening waits for it: it started
// sooner than a new one would. The count bounds the connections open to a
// host then, the first included; connections opened ahead end with the
// read's context (if still opening), their dial and handshake timeouts,
// or warmIdle (if never taken).

// warmCtxKey keys the warmReq of a request's context.
type warmCtxKey struct{}

// warmReq asks the warmer to open n connections to a cold host. ctx is the
// read's context: the transport detaches its dials from the request's
// cancellation (and the request's own context ends with it), so the
// connections opened ahead follow the read's.
type warmReq struct {
	n   int
	ctx context.Context
}

// withWarm returns the context of a request made for a read under ctx,
// asking for n connections to a host that has none.
func withWarm(ctx context.Context, n int) context.Context {
	if n <= 1 {
		return ctx
	}
	return context.WithValue(ctx, warmCtxKey{}, warmReq{n: n, ctx: ctx})
}

// warmKey names the connections a dial may take: to one address, with TLS
// or without.
type warmKey struct {
	tls           bool
	network, addr string
}

// warmer dials the connections of one http.Transport, opening some ahead.
type warmer struct {
	t    *http.Transport // its TLSClientConfig and TLSHandshakeTimeout
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// delay is warmDelay; 0 opens ahead at once.
	delay, idle time.Duration
	// afterFunc is time.AfterFunc; tests replace it.
	afterFunc func(time.Duration, func()) interface{ Stop() bool }

	mu    sync.Mutex
	hosts map[warmKey]*warmHost

	wg         sync.WaitGroup // connections being opened ahead
	dials      atomic.Int64   // TCP connections made
	handshakes atomic.Int64   // TLS handshakes made
	aheads     atomic.Int64   // connections opened ahead
	expired    atomic.Int64   // opened ahead, never taken, closed
}

// warmHost holds the state of one warmKey, under warmer.mu.
type warmHost struct {
	open  int      // connections dialled or being dialled, and not closed
	ahead []*ahead // opened ahead and not taken, oldest first
}

// ahead is a connection opened ahead: done is closed when conn or err is set.
type ahead struct {
	done  chan struct{}
	conn  net.Conn
	err   error
	taken bool                     // under warmer.mu: a dial has it, or it expired
	timer interface{ Stop() bool } // its expiry while in the stash
}

func newWarmer(t *http.Transport, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *warmer {
	return &warmer{
		t: t, dial: dial, delay: warmDelay, idle: warmIdle, hosts: map[warmKey]*warmHost{},
		afterFunc: func(d time.Duration, f func()) interface{ Stop() bool } { return time.AfterFunc(d, f) },
	}
}

// install makes t dial through a warmer over dial, for http and https.
func installWarmer(t *http.Transport, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *warmer {
	w := newWarmer(t, dial)
	t.DialContext = w.dialTCP
	t.DialTLSContext = w.dialTLS
	return w
}

// dialTCP is the transport's DialContext: plain HTTP, and proxies.
func (w *warmer) dialTCP(ctx context.Context, network, addr string) (net.Conn, error) {
	return w.get(ctx, warmKey{network: network, addr: addr})
}

// dialTLS is the transport's DialTLSContext: HTTPS without a proxy, or
// through an HTTPS proxy.
func (w *warmer) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	return w.get(ctx, warmKey{tls: true, network: network, addr: addr})
}

// get returns a connection for k: one opened ahead if there is one, else a
// new one. A host without connections whose dial carries a warm request
// gets the others opened at the same time.
func (w *warmer) get(ctx context.Context, k warmKey) (net.Conn, error) {
	w.mu.Lock()
	h := w.hosts[k]
	if h == nil {
		h = &warmHost{}
		w.hosts[k] = h
	}
	if r, ok := ctx.Value(warmCtxKey{}).(warmReq); ok && h.open == 0 && r.n > 1 && r.ctx.Err() == nil {
		return w.first(ctx, r, k, h)
	}
	for len(h.ahead) > 0 {
		a := h.take()
		w.mu.Unlock()
		select {
		case <-a.done:
		case <-ctx.Done():
			w.giveBack(k, h, a)
			return nil, ctx.Err()
		}
		if a.err == nil {
			return a.conn, nil
		}
		w.mu.Lock() // it failed: the next, or a dial of our own
	}
	h.open++
	w.mu.Unlock()
	return w.connect(ctx, k, h, hooks{})
}

// first dials the first connection to a cold host, k, and opens the others
// ahead if the host has not answered within w.delay: connected, for TCP;
// sent the first bytes of its handshake, for TLS (not finished it: the
// first handshake of a process spends milliseconds loading the roots it
// verifies the certificate with, wherever the host is). A host answering
// within the delay is near: a new connection costs a read less there than
// the handshakes of the many it may not use (a few hundred microseconds of
// CPU each, the server's apart); and a refused connection says no other
// would do better. The others' handshakes read the host's answer only
// once the first connection has sent its request: their CPU (client and
// often server share it) would otherwise delay the one request everything
// waits for.
// It needs warmer.mu, and releases it.
func (w *warmer) first(ctx context.Context, r warmReq, k warmKey, h *warmHost) (net.Conn, error) {
	h.open++
	if w.delay <= 0 {
		w.openAhead(r.ctx, k, h, r.n-1, nil)
		w.mu.Unlock()
		return w.connect(ctx, k, h, hooks{})
	}
	answered := false // under w.mu
	sent := make(chan struct{})
	var sendOnce sync.Once
	send := func() { sendOnce.Do(func() { close(sent) }) }
	t := w.afterFunc(w.delay, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if !answered && r.ctx.Err() == nil && h.open < r.n {
			w.openAhead(r.ctx, k, h, r.n-h.open, sent)
		}
	})
	w.mu.Unlock()
	answer := func() {
		w.mu.Lock()
		answered = true
		w.mu.Unlock()
		t.Stop()
	}
	c, err := w.connect(ctx, k, h, hooks{answered: answer, wrote: send})
	if err != nil {
		answer()
		send()
		return nil, err
	}
	// The transport writes a request on a new connection at once; should
	// this one wait in the pool instead, the others go on soon anyway.
	w.afterFunc(warmWait, send)
	return c, nil
}

// take removes from h.ahead the oldest connection that is ready, or the
// oldest still opening if none is. It needs warmer.mu.
func (h *warmHost) take() *ahead {
	i := max(slices.IndexFunc(h.ahead, (*ahead).ready), 0)
	a := h.ahead[i]
	h.ahead = slices.Delete(h.ahead, i, i+1)
	a.taken = true
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	return a
}

// ready reports whether a has been opened, or failed to.
func (a *ahead) ready() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// openAhead starts opening n connections for k, whose handshakes read the
// host's answer once wait is closed (nil: at once). It needs warmer.mu.
func (w *warmer) openAhead(ctx context.Context, k warmKey, h *warmHost, n int, wait <-chan struct{}) {
	for range n {
		a := &ahead{done: make(chan struct{})}
		h.ahead = append(h.ahead, a)
		h.open++
		w.aheads.Add(1)
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			c, err := w.connect(ctx, k, h, hooks{wait: wait})
			w.mu.Lock()
			a.conn, a.err = c, err
			close(a.done)
			if !a.taken {
				if err != nil {
					h.ahead = slices.DeleteFunc(h.ahead, func(b *ahead) bool { return b == a })
					w.tidy(k, h)
				} else {
					a.timer = w.afterFunc(w.idle, func() { w.expire(h, a) })
				}
			}
			w.mu.Unlock()
		}()
	}
}

// giveBack returns a connection a dial took and no longer wants (its
// context ended while the connection was opening) to the stash once it is
// open, for the next dial.
func (w *warmer) giveBack(k warmKey, h *warmHost, a *ahead) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		<-a.done
		if a.err != nil {
			return
		}
		w.mu.Lock()
		a.taken = false
		h.ahead = append(h.ahead, a)
		a.timer = w.afterFunc(w.idle, func() { w.expire(h, a) })
		w.mu.Unlock()
	}()
}

// expire closes a connection opened ahead that no dial took in time.
func (w *warmer) expire(h *warmHost, a *ahead) {
	w.mu.Lock()
	if a.taken {
		w.mu.Unlock()
		return
	}
	a.taken = true
	a.timer = nil
	h.ahead = slices.DeleteFunc(h.ahead, func(b *ahead) bool { return b == a })
	w.mu.Unlock()
	w.expired.Add(1)
	a.conn.Close()
}

// release counts a connection of h closed (or never opened).
func (w *warmer) release(k warmKey, h *warmHost) {
	w.mu.Lock()
	h.open--
	w.tidy(k, h)
	w.mu.Unlock()
}

// tidy forgets a host left without connections. It needs warmer.mu.
func (w *warmer) tidy(k warmKey, h *warmHost) {
	if h.open == 0 && len(h.ahead) == 0 && w.hosts[k] == h {
		delete(w.hosts, k)
	}
}

// hooks are what the first connection to a host tells the others, and
// when they wait for it (see warmer.first); the zero value does nothing.
type hooks struct {
	answered func()          // the host's first bytes (TLS), or connected (TCP)
	wrote    func()          // the first write after the handshake (a request), or Close
	wait     <-chan struct{} // the handshake reads the host's answer only once closed
}

// connect dials k (a connection counted in h.open) and, for TLS, makes the
// handshake the transport would. Whatever the outcome, the count is
// released exactly once: when the connection closes, or now if it failed.
func (w *warmer) connect(ctx context.Context, k warmKey, h *warmHost, hk hooks) (net.Conn, error) {
	raw, err := w.dial(ctx, k.network, k.addr)
	if err != nil {
		w.release(k, h)
		return nil, err
	}
	w.dials.Add(1)
	c := &countedConn{Conn: raw, release: func() { w.release(k, h) }}
	if !k.tls {
		if hk.answered != nil {
			hk.answered()
		}
		return c, nil
	}
	tc := tls.Client(c, w.tlsConfig(k.addr))
	hctx := ctx
	if d := w.t.TLSHandshakeTimeout; d > 0 {
		var cancel context.CancelFunc
		hctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	c.answered, c.wait, c.stop = hk.answered, hk.wait, hctx.Done()
	err = tc.HandshakeContext(hctx)
	c.answered, c.wait, c.stop = nil, nil, nil
	if err == nil {
		c.wrote = hk.wrote
	}
	if err != nil {
		tc.Close()
		if ctx.Err() == nil && errors.Is(hctx.Err(), context.DeadlineExceeded) {
			return nil, handshakeTimeout{}
		}
		return nil, err
	}
	w.handshakes.Add(1)
	return tc, nil
}

// tlsConfig is what the transport's own handshake would use for addr: its
// TLSClientConfig with the host as ServerName, and no ALPN (HTTP/1.1 only).
func (w *warmer) tlsConfig(addr string) *tls.Config {
	cfg := &tls.Config{}
	if w.t.TLSClientConfig != nil {
		cfg = w.t.TLSClientConfig.Clone()
	}
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		cfg.ServerName = host
	}
	cfg.NextProtos = nil
	return cfg
}

// handshakeTimeout is the error of a TLS handshake that took longer than
// the transport's TLSHandshakeTimeout, a timeout as the transport's own.
type handshakeTimeout struct{}

func (handshakeTimeout) Error() string   { return "net/http: TLS handshake timeout" }
func (handshakeTimeout) Timeout() bool   { return true }
func (handshakeTimeout) Temporary() bool { return true }

// countedConn releases its count in the warmer when it is first closed,
// and runs the hooks of its handshake.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()

	// During the handshake (whose reads are sequential): answered runs on
	// the first bytes read, which wait for wait unless stop closes first.
	answered   func()
	wait, stop <-chan struct{}
	// After it: wrote runs once, on the first write or on Close.
	wrote     func()
	wroteDone atomic.Bool
}

func (c *countedConn) Read(p []byte) (int, error) {
	if c.wait != nil {
		select {
		case <-c.wait:
		case <-c.stop:
			return 0, errWarmStopped
		}
		c.wait = nil
	}
	n, err := c.Conn.Read(p)
	if n > 0 && c.answered != nil {
		c.answered()
		c.answered = nil
	}
	return n, err
}

func (c *countedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.wroteOnce()
	return n, err
}

func (c *countedConn) wroteOnce() {
	if c.wrote != nil && !c.wroteDone.Swap(true) {
		c.wrote()
	}
}

func (c *countedConn) Close() error {
	c.wroteOnce()
	c.once.Do(c.release)
	return c.Conn.Close()
}

// errWarmStopped ends the handshake of a connection opened ahead whose
// context ended while it waited for the first connection.
var errWarmStopped = errors.New("source: connection opened ahead: stopped")
