package source

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"syscall"
	"time"
)

// limitTransport runs every request under its host's limiter (see
// limit.go): it holds a slot from the request until the answer's body is
// read to its end or closed, measures the connection setup and the latency
// of the answer with httptrace, and tells the limiter how the request went.
type limitTransport struct {
	base   http.RoundTripper
	fixed  int // 0: adaptive
	notice func(Throttle)
}

// errNoServer stands for a refused connection to a host that never
// answered, in the outcome the limiter is told.
var errNoServer = errors.New("no server")

// errOverloaded marks a refused connection to a host that answered before:
// it is overloaded, not absent, and the request is retried.
type errOverloaded struct{ err error }

func (e *errOverloaded) Error() string {
	return e.err.Error() + " (the server answered before: retried)"
}
func (e *errOverloaded) Unwrap() error { return e.err }

func (t *limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	l := limiterFor(r.URL.Host, t.fixed)
	ctx := r.Context()
	p, err := l.acquire(ctx)
	if err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	if w, ok := ctx.Value(warmCtxKey{}).(warmReq); ok && t.fixed == 0 {
		// Open no more connections ahead than the limit lets run.
		w.n = min(w.n, l.Limit())
		ctx = context.WithValue(ctx, warmCtxKey{}, w)
	}
	var tm timing
	stalled := func() {
		if th, ok := l.stall(p.epoch); ok && t.notice != nil {
			t.notice(th)
		}
	}
	ctx = context.WithValue(httptrace.WithClientTrace(ctx, tm.trace()), stallKey{}, stalled)
	resp, err := t.base.RoundTrip(r.WithContext(ctx))
	o := tm.outcome(resp, err)
	if err != nil {
		refused := errors.Is(err, syscall.ECONNREFUSED)
		if refused && !l.answered() {
			// Nothing listens there (yet): no sign of overload.
			o.err = errNoServer
		}
		t.finish(p, o)
		if refused && l.answered() {
			err = &errOverloaded{err}
		}
		return nil, err
	}
	l.setAnswered()
	resp.Body = &limitBody{ReadCloser: resp.Body, release: sync.OnceFunc(func() { t.finish(p, o) }),
		l: l, first: tm.firstByteAt(), want: resp.ContentLength}
	return resp, nil
}

func (t *limitTransport) finish(p *permit, o outcome) {
	if th, ok := p.done(o); ok && t.notice != nil {
		t.notice(th)
	}
}

// timing records the moments of one request.
type timing struct {
	mu                    sync.Mutex
	start, got, firstByte time.Time
}

func (tm *timing) trace() *httptrace.ClientTrace {
	set := func(p *time.Time) {
		tm.mu.Lock()
		if p.IsZero() {
			*p = time.Now()
		}
		tm.mu.Unlock()
	}
	return &httptrace.ClientTrace{
		GetConn:              func(string) { set(&tm.start) },
		GotConn:              func(httptrace.GotConnInfo) { set(&tm.got) },
		GotFirstResponseByte: func() { set(&tm.firstByte) },
	}
}

// firstByteAt returns when the answer's first byte came (zero if not yet).
func (tm *timing) firstByteAt() time.Time {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.firstByte
}

// outcome is what the request showed when its round trip returned.
func (tm *timing) outcome(resp *http.Response, err error) outcome {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	o := outcome{err: err}
	end := time.Now()
	if !tm.start.IsZero() {
		got := tm.got
		if got.IsZero() {
			got = end // no connection: setup lasted until the failure
		}
		o.setup = got.Sub(tm.start)
		if resp != nil {
			fb := tm.firstByte
			if fb.IsZero() {
				fb = end
			}
			o.latency = fb.Sub(got)
		}
	}
	if resp != nil {
		o.status = resp.StatusCode
	}
	return o
}

// limitBody releases its request's slot at the end of the body or on Close,
// and tells the limiter how fast a body read to its end came.
type limitBody struct {
	io.ReadCloser
	release func()

	l     *hostLimiter
	first time.Time // the answer's first byte; zero: unknown, nothing measured
	want  int64     // Content-Length, or -1
	got   int64     // bytes read so far
	timed bool      // the body's throughput was taken
}

func (b *limitBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.got += int64(n)
	if !b.timed && (b.got == b.want || errors.Is(err, io.EOF)) {
		b.timed = true
		if !b.first.IsZero() {
			b.l.bodyRate(b.got, time.Since(b.first))
		}
	}
	if err != nil {
		b.release()
	}
	return n, err
}

func (b *limitBody) Close() error {
	defer b.release()
	return b.ReadCloser.Close()
}
