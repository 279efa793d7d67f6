package source

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// fakeServer answers range requests from memory, in the synctest bubble's
// time: silent never sends headers, drip sends the body one byte per drip.
type fakeServer struct {
	data     []byte
	silent   bool
	drip     time.Duration
	requests atomic.Int64
}

func (f *fakeServer) RoundTrip(r *http.Request) (*http.Response, error) {
	f.requests.Add(1)
	if f.silent {
		<-r.Context().Done()
		return nil, context.Cause(r.Context())
	}
	var first, last int
	rng := strings.TrimPrefix(r.Header.Get("Range"), "bytes=")
	a, b, _ := strings.Cut(rng, "-")
	first, _ = strconv.Atoi(a)
	last, _ = strconv.Atoi(b)
	last = min(last, len(f.data)-1)
	h := http.Header{}
	h.Set("Content-Range", "bytes "+a+"-"+strconv.Itoa(last)+"/"+strconv.Itoa(len(f.data)))
	body := &dripBody{ctx: r.Context(), p: f.data[first : last+1], every: f.drip}
	return &http.Response{StatusCode: 206, Header: h, ContentLength: int64(last - first + 1), Body: body, Request: r}, nil
}

type dripBody struct {
	ctx   context.Context
	p     []byte
	every time.Duration
}

func (d *dripBody) Read(p []byte) (int, error) {
	if len(d.p) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	select {
	case <-time.After(d.every):
	case <-d.ctx.Done():
		return 0, context.Cause(d.ctx)
	}
	p[0], d.p = d.p[0], d.p[1:]
	return 1, nil
}

func (d *dripBody) Close() error { return nil }

// TestTimeoutBoundsEveryWait reads from a server that never answers and
// from one that drips a byte a second, in a synctest bubble: each read
// fails with ErrTimeout, the silent one after the retries' cap, the
// dripping one no later than the cap either (an attempt that is still
// receiving bytes is cut where the cap ends, not restarted past it).
func TestTimeoutBoundsEveryWait(t *testing.T) {
	const T = 5 * time.Second
	cap := RequestTimeout(T)
	for _, tc := range []struct {
		name string
		srv  *fakeServer
	}{
		{"silent", &fakeServer{data: make([]byte, 4096), silent: true}},
		{"drip", &fakeServer{data: make([]byte, 4096), drip: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, err := NewHTTP("https://blob.example.org/x", WithClient(&http.Client{Transport: tc.srv}), WithTimeout(T))
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				_, err = h.ReadAt(context.Background(), make([]byte, 2000), 0)
				took := time.Since(start)
				if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "gave up after") {
					t.Fatalf("err = %v, want a timeout after retries", err)
				}
				if took > cap {
					t.Errorf("gave up after %v, past the cap %v", took, cap)
				}
				if tc.srv.silent && took < cap-DefaultRetry().MaxDelay {
					t.Errorf("a silent server was left after %v, long before the cap %v", took, cap)
				}
				if n := tc.srv.requests.Load(); tc.srv.silent && n < 2 {
					t.Errorf("%d requests: no retry", n)
				}
			})
		})
	}
}

// TestTimeoutEnv: LINDI_TIMEOUT sets the timeout, a bad value is an error
// naming it, WithTimeout overrides it.
func TestTimeoutEnv(t *testing.T) {
	t.Setenv(TimeoutEnv, "7s")
	c, err := newConfig(nil)
	if err != nil || c.timeout != 7*time.Second || c.retry.MaxElapsed != 42*time.Second {
		t.Fatalf("timeout %v, cap %v, %v", c.timeout, c.retry.MaxElapsed, err)
	}
	if c, err := newConfig([]Option{WithTimeout(time.Second)}); err != nil || c.timeout != time.Second {
		t.Fatalf("WithTimeout: %v", err)
	}
	for _, bad := range []string{"7", "-1s", "soon"} {
		t.Setenv(TimeoutEnv, bad)
		if _, err := newConfig(nil); err == nil || !strings.Contains(err.Error(), TimeoutEnv) {
			t.Errorf("%s=%q: %v", TimeoutEnv, bad, err)
		}
	}
}

// TestBounded: a client made by Bounded fails a request whose server never
// answers, or stops sending its body, with ErrTimeout after the timeout.
func TestBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const T = time.Second
		c := Bounded(&http.Client{Transport: &fakeServer{silent: true}}, T)
		start := time.Now()
		_, err := c.Get("https://api.example.org/x")
		if !errors.Is(err, ErrTimeout) || time.Since(start) != T {
			t.Errorf("silent: %v after %v", err, time.Since(start))
		}
		c = Bounded(&http.Client{Transport: &fakeServer{data: make([]byte, 100), drip: 2 * T}}, T)
		req, _ := http.NewRequest(http.MethodGet, "https://api.example.org/x", nil)
		req.Header.Set("Range", "bytes=0-99")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, ErrTimeout) || time.Since(start) != T {
			t.Errorf("stalled body: %v after %v", err, time.Since(start))
		}
		c = Bounded(&http.Client{Transport: &fakeServer{data: make([]byte, 100), drip: T / 2}}, T)
		resp, err = c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if !errors.Is(err, ErrTimeout) || time.Since(start) > RequestTimeout(T) {
			t.Errorf("dripping body: %v after %v", err, time.Since(start))
		}
	})
}

// TestRetryDo: Retry-After is honoured, Now retries at once, a fatal
// outcome stops, the attempts are capped, and Observe sees every outcome.
func TestRetryDo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := DefaultRetry()
		var seen []int
		r.Observe = func(o Outcome) { seen = append(seen, o.Status) }
		start := time.Now()
		n := 0
		err := r.Do(context.Background(), func(ctx context.Context, attempt int) Outcome {
			n++
			switch attempt {
			case 0:
				return Outcome{Err: errors.New("busy"), Retry: true, After: 7 * time.Second, Status: 429}
			case 1:
				return Outcome{Err: errors.New("renew"), Retry: true, Now: true, Status: 403}
			}
			return Outcome{Status: 200}
		})
		if err != nil || n != 3 || time.Since(start) != 7*time.Second || len(seen) != 3 || seen[0] != 429 {
			t.Errorf("err %v, %d attempts, %v, observed %v", err, n, time.Since(start), seen)
		}
		fatal := errors.New("fatal")
		if err := r.Do(context.Background(), func(context.Context, int) Outcome { return Outcome{Err: fatal} }); err != fatal {
			t.Errorf("fatal: %v", err)
		}
		n = 0
		err = r.Do(context.Background(), func(context.Context, int) Outcome {
			n++
			return Outcome{Err: errors.New("down"), Retry: true}
		})
		if n != r.MaxAttempts || !strings.Contains(err.Error(), "gave up after 8 attempts") {
			t.Errorf("%d attempts: %v", n, err)
		}
	})
}
