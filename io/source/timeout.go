package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// TimeoutEnv names the environment variable holding the timeout of remote
// requests, a Go duration such as "30s" (see DefaultTimeout). WithTimeout
// overrides it.
const TimeoutEnv = "LINDI_TIMEOUT"

// DefaultTimeout is the timeout T of remote requests when neither
// TimeoutEnv nor WithTimeout sets one. No wait on a server lasts longer
// than T: connecting (TCP and TLS), the answer's first byte (its headers),
// and every gap between bytes of its body. One request lasts at most
// RequestTimeout(T) (a range read one second more per MiB asked), and one
// read with its retries at most as long again, unless WithRetry sets
// another MaxElapsed: 20 s, 2 minutes and 2 minutes by default.
const DefaultTimeout = 20 * time.Second

// requestFactor is how many timeouts one request may last in all.
const requestFactor = 6

// RequestTimeout returns the bound of one whole request under the timeout
// t: 6t.
func RequestTimeout(t time.Duration) time.Duration { return requestFactor * t }

// ErrTimeout reports a request abandoned because the server made it wait
// past the timeout (TimeoutEnv): no connection, no answer or no byte of the
// body for the timeout, or the whole request over RequestTimeout.
var ErrTimeout = errors.New("timed out")

// TimeoutFromEnv returns the timeout TimeoutEnv sets, DefaultTimeout when
// it is unset, or an error naming the variable when it is not a positive
// Go duration.
func TimeoutFromEnv() (time.Duration, error) {
	s := os.Getenv(TimeoutEnv)
	if s == "" {
		return DefaultTimeout, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("source: %s=%q: want a positive Go duration such as 30s", TimeoutEnv, s)
	}
	return d, nil
}

// watch bounds one request: its context ends when the request has run for
// its total, or when no progress came for the stall bound (from the start:
// connecting and the headers included).
type watch struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	stall  time.Duration
}

// startWatch bounds a request made under ctx: stall without progress,
// total in all.
func startWatch(ctx context.Context, stall, total time.Duration) *watch {
	cctx, cancel := context.WithCancelCause(ctx)
	tctx, tcancel := context.WithTimeoutCause(cctx, total, fmt.Errorf("%w: the request took over %v", ErrTimeout, total))
	w := &watch{ctx: tctx, stall: stall}
	w.cancel = func(err error) { cancel(err); tcancel() }
	w.timer = time.AfterFunc(stall, func() {
		cancel(fmt.Errorf("%w: no answer or byte for %v", ErrTimeout, stall))
	})
	return w
}

// progress notes a piece of the answer: the stall bound starts again.
func (w *watch) progress() { w.timer.Reset(w.stall) }

// stop releases the watch.
func (w *watch) stop() {
	w.timer.Stop()
	w.cancel(context.Canceled)
}

// cause returns why the request's context ended (an ErrTimeout) when a
// bound ended it, or nil when it is live or its parent ended.
func (w *watch) cause(parent context.Context) error {
	if w.ctx.Err() == nil || parent.Err() != nil {
		return nil
	}
	if c := context.Cause(w.ctx); errors.Is(c, ErrTimeout) {
		return c
	}
	return nil
}

// Bounded returns a copy of client (nil: one on the package's shared
// transport) whose requests are bounded by the timeout t as HTTP sources'
// are: a request that waits t for a connection, for its answer's headers
// or for a byte of its body, or that lasts RequestTimeout(t) in all, fails
// with an error wrapping ErrTimeout. Reading the body counts as the
// request: close it to release the bound.
func Bounded(client *http.Client, t time.Duration) *http.Client {
	c := http.Client{Transport: sharedTransport}
	if client != nil {
		c = *client
	}
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = &boundedTransport{rt: rt, stall: t, total: RequestTimeout(t)}
	return &c
}

type boundedTransport struct {
	rt           http.RoundTripper
	stall, total time.Duration
}

func (b *boundedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	w := startWatch(r.Context(), b.stall, b.total)
	resp, err := b.rt.RoundTrip(r.WithContext(w.ctx))
	if err != nil {
		if c := w.cause(r.Context()); c != nil {
			err = c
		}
		w.stop()
		return nil, err
	}
	w.progress()
	resp.Body = &boundedBody{rc: resp.Body, w: w, parent: r.Context()}
	return resp, nil
}

// boundedBody is an answer's body under its request's watch.
type boundedBody struct {
	rc     io.ReadCloser
	w      *watch
	parent context.Context
	once   sync.Once
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.w.progress()
	}
	if err != nil && err != io.EOF {
		if c := b.w.cause(b.parent); c != nil {
			err = c
		}
	}
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.rc.Close()
	b.once.Do(b.w.stop)
	return err
}
