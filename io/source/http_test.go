package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
)

// sleeps records the waits of a Retry without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func fastRetry(s *sleeps) Option {
	r := DefaultRetry()
	r.Sleep = s.sleep
	return WithRetry(r)
}

func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func serveB(b *testing.B, data []byte) string {
	srv := httptest.NewServer(netsim.Blobs(map[string][]byte{"/f": data}))
	b.Cleanup(srv.Close)
	return srv.URL
}

func TestHTTPReads(t *testing.T) {
	want := readFixture(t)
	srv := serve(t, netsim.Blobs(map[string][]byte{"/f.h5": want}))
	h, err := NewHTTP(srv.URL+"/f.h5", WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	checkReads(t, h, want)
	if st := h.Stats(); st.Requests == 0 || st.Bytes < int64(len(want)) || st.Time <= 0 {
		t.Errorf("Stats = %+v", st)
	}
}

func TestHTTPEmptyObject(t *testing.T) {
	srv := serve(t, netsim.Blobs(map[string][]byte{"/e": {}}))
	h, err := NewHTTP(srv.URL+"/e", WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	n, err := h.Size(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("Size = %d, %v; want 0", n, err)
	}
}

// rawServer answers every request with the status, headers and body given,
// whatever the request asked for.
func rawServer(t *testing.T, status int, header map[string]string, body string) *httptest.Server {
	return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
}

func TestHTTPStrict(t *testing.T) {
	small := strings.Repeat("0123456789", 10)
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		off    int64
		n      int
		want   string // bytes expected, or "" for an error
		is     error
	}{
		{"200 small whole file sliced", 200, nil, small, 25, 10, small[25:35], nil},
		{"200 too large", 200, map[string]string{"Content-Length": "2000000"}, "", 0, 10, "", ErrProtocol},
		{"200 whole object asked", 200, nil, small, 0, 100, small, nil},
		{"200 more than the object asked", 200, nil, small, 0, 150, small, nil},
		{"206 wrong start", 206, map[string]string{"Content-Range": "bytes 0-9/100"}, small[:10], 5, 10, "", ErrProtocol},
		{"206 longer than asked", 206, map[string]string{"Content-Range": "bytes 5-29/100"}, small[5:30], 5, 10, "", ErrProtocol},
		{"206 bad header", 206, map[string]string{"Content-Range": "bytes=5-14/100"}, small[5:15], 5, 10, "", ErrProtocol},
		{"206 no header", 206, nil, small[5:15], 5, 10, "", ErrProtocol},
		{"206 length mismatch", 206, map[string]string{"Content-Range": "bytes 5-14/100", "Content-Length": "9"}, small[5:14], 5, 10, "", ErrProtocol},
		{"206 exact", 206, map[string]string{"Content-Range": "bytes 5-14/100"}, small[5:15], 5, 10, small[5:15], nil},
		{"206 unknown total", 206, map[string]string{"Content-Range": "bytes 5-14/*"}, small[5:15], 5, 10, small[5:15], nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := rawServer(t, tt.status, tt.header, tt.body)
			h, err := NewHTTP(srv.URL+"/x", WithResolver(nil))
			if err != nil {
				t.Fatal(err)
			}
			p := make([]byte, tt.n)
			n, err := h.ReadAt(context.Background(), p, tt.off)
			if len(tt.want) < tt.n && errors.Is(err, io.EOF) {
				err = nil
			}
			if tt.want == "" {
				if !errors.Is(err, tt.is) {
					t.Fatalf("err = %v, want %v", err, tt.is)
				}
				return
			}
			if err != nil || string(p[:n]) != tt.want {
				t.Fatalf("got %q, %v; want %q", p[:n], err, tt.want)
			}
		})
	}
}

func TestHTTPStatus(t *testing.T) {
	tests := []struct {
		status   int
		requests int64 // attempts made with MaxAttempts 3
	}{
		{404, 1}, {403, 1}, {401, 1}, {400, 1}, {410, 1},
		{408, 3}, {429, 3}, {500, 3}, {502, 3}, {503, 3}, {504, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			srv := rawServer(t, tt.status, nil, "no")
			var s sleeps
			r := DefaultRetry()
			r.MaxAttempts, r.Sleep = 3, s.sleep
			url := srv.URL + "/missing.h5"
			h, err := NewHTTP(url, WithResolver(nil), WithRetry(r))
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.ReadAt(context.Background(), make([]byte, 4), 0)
			var he *HTTPError
			if !errors.As(err, &he) || he.Status != tt.status || he.URL != url {
				t.Fatalf("err = %v, want *HTTPError{%s, %d}", err, url, tt.status)
			}
			if !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), fmt.Sprint(tt.status)) {
				t.Fatalf("error %q does not name URL and status", err)
			}
			if st := h.Stats(); st.Requests != tt.requests || st.Retries != tt.requests-1 {
				t.Fatalf("stats %+v, want %d requests", st, tt.requests)
			}
		})
	}
}

// flaky fails the first n requests with fail, then serves data.
func flaky(n int64, data []byte, fail func(w http.ResponseWriter, r *http.Request)) (http.Handler, *atomic.Int64) {
	var count atomic.Int64
	ok := netsim.Blobs(map[string][]byte{"/f": data})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if count.Add(1) <= n {
			fail(w, r)
			return
		}
		ok.ServeHTTP(w, r)
	}), &count
}

func TestHTTPRetries(t *testing.T) {
	data := readFixture(t)[:300_000]
	cutter, err := netsim.New(netsim.Blobs(map[string][]byte{"/f": data}), netsim.Config{Cut: 1})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		fail  func(w http.ResponseWriter, r *http.Request)
		waits []time.Duration // exact waits expected, nil: backoff
	}{
		{"503", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, nil},
		{"429 Retry-After", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(429)
		}, []time.Duration{3 * time.Second, 3 * time.Second}},
		{"503 Retry-After date", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", time.Now().Add(30*time.Second).UTC().Format(http.TimeFormat))
			w.WriteHeader(503)
		}, nil},
		{"cut body", cutter.ServeHTTP, nil},
		{"connection closed", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h0, count := flaky(2, data, tt.fail)
			srv := serve(t, h0)
			var s sleeps
			h, err := NewHTTP(srv.URL+"/f", WithResolver(nil), fastRetry(&s))
			if err != nil {
				t.Fatal(err)
			}
			p := make([]byte, 100_000)
			n, err := h.ReadAt(context.Background(), p, 1000)
			if err != nil || n != len(p) || string(p) != string(data[1000:101_000]) {
				t.Fatalf("n = %d, err = %v, bytes equal %v", n, err, string(p) == string(data[1000:101_000]))
			}
			if c := count.Load(); c != 3 {
				t.Fatalf("%d requests, want 3", c)
			}
			w := s.all()
			if len(w) != 2 || h.Stats().Retries != 2 {
				t.Fatalf("waits %v, retries %d; want 2", w, h.Stats().Retries)
			}
			if tt.waits != nil && (w[0] != tt.waits[0] || w[1] != tt.waits[1]) {
				t.Fatalf("waits %v, want %v", w, tt.waits)
			}
			for k, d := range w {
				if tt.waits == nil && !strings.Contains(tt.name, "date") && d > DefaultRetry().BaseDelay<<k {
					t.Fatalf("wait %d = %v exceeds the backoff cap", k, d)
				}
			}
		})
	}
}

func TestHTTPGivesUp(t *testing.T) {
	h0, _ := flaky(1<<30, nil, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1000")
		w.WriteHeader(503)
	})
	srv := serve(t, h0)
	var s sleeps
	h, err := NewHTTP(srv.URL+"/f", WithResolver(nil), fastRetry(&s))
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.ReadAt(context.Background(), make([]byte, 10), 0)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 503 {
		t.Fatalf("err = %v, want 503", err)
	}
	if len(s.all()) != 0 {
		t.Fatalf("waited %v although Retry-After exceeds MaxElapsed", s.all())
	}
}

func TestHTTPStall(t *testing.T) {
	data := readFixture(t)[:1000]
	release := make(chan struct{})
	defer close(release)
	h0, count := flaky(1, data, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Range", "bytes 0-99/1000")
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(206)
		w.Write(data[:10])
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	srv := serve(t, h0)
	var s sleeps
	h, err := NewHTTP(srv.URL+"/f", WithResolver(nil), fastRetry(&s), WithTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 100)
	if n, err := h.ReadAt(context.Background(), p, 0); err != nil || string(p[:n]) != string(data[:100]) {
		t.Fatalf("n = %d, err = %v", n, err)
	}
	if c := count.Load(); c != 2 {
		t.Fatalf("%d requests, want 2", c)
	}
}

func TestHTTPCancel(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	h, err := NewHTTP(srv.URL+"/f", WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	t0 := time.Now()
	_, err = h.ReadAt(ctx, make([]byte, 10), 0)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Canceled", err)
	}
	if d := time.Since(t0); d > 200*time.Millisecond {
		t.Fatalf("took %v", d)
	}
}

func TestHTTPBadURL(t *testing.T) {
	for _, u := range []string{"http://", "ftp://x/y", "http://[::1/x"} {
		t.Run(u, func(t *testing.T) {
			if _, err := NewHTTP(u); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// TestHTTPNoRanges: a server that ignores Range still serves whole-object
// reads of any size and reports the size.
func TestHTTPNoRanges(t *testing.T) {
	data := readFixture(t)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data)
	}))
	h, err := NewHTTP(srv.URL+"/f", WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	n, err := h.Size(context.Background())
	if err != nil || n != int64(len(data)) {
		t.Fatalf("Size = %d, %v", n, err)
	}
	p := make([]byte, n)
	if m, err := h.ReadAt(context.Background(), p, 0); err != nil || m != len(p) || string(p) != string(data) {
		t.Fatalf("whole read: %d, %v", m, err)
	}
	if _, err := h.ReadAt(context.Background(), p[:10], 5); !errors.Is(err, ErrProtocol) {
		t.Fatalf("partial read of a large object: %v, want ErrProtocol", err)
	}
}

func TestHTTPResolverErrors(t *testing.T) {
	errNope := errors.New("no such asset")
	tests := []struct {
		name    string
		resolve ResolveFunc
		calls   int
	}{
		{"plain error fails at once", func(context.Context, string) (string, error) { return "", errNope }, 1},
		{"network error retried", func(context.Context, string) (string, error) {
			return "", &url.Error{Op: "Get", URL: "x", Err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}}
		}, 3},
		{"refused fails at once", func(context.Context, string) (string, error) {
			return "", &url.Error{Op: "Get", URL: "x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
		}, 1},
		{"failed exchange fails at once", func(context.Context, string) (string, error) {
			return "", &url.Error{Op: "Get", URL: "x", Err: errNope} // a redirect loop, say
		}, 1},
		{"404 fails at once", func(_ context.Context, u string) (string, error) { return "", &HTTPError{URL: u, Status: 404} }, 1},
		{"503 retried", func(_ context.Context, u string) (string, error) { return "", &HTTPError{URL: u, Status: 503} }, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			r := DefaultRetry()
			r.MaxAttempts, r.Sleep = 3, func(context.Context, time.Duration) error { return nil }
			h, err := NewHTTP("http://127.0.0.1:1/x", WithRetry(r), WithResolver(func(ctx context.Context, u string) (string, error) {
				calls++
				return tt.resolve(ctx, u)
			}))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.ReadAt(context.Background(), make([]byte, 4), 0); err == nil {
				t.Fatal("no error")
			}
			if calls != tt.calls {
				t.Fatalf("%d resolver calls, want %d", calls, tt.calls)
			}
		})
	}
}

// TestPasswordRedacted is the regression test of issue 13 (6):
// http://user:pass@host/… appeared whole in errors and stats.
func TestPasswordRedacted(t *testing.T) {
	srv := serve(t, netsim.Blobs(map[string][]byte{"/f": []byte("0123456789")}))
	closed := serve(t, http.NotFoundHandler())
	closed.Close()
	ctx := context.Background()
	for _, u := range []string{
		strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1) + "/missing",
		strings.Replace(closed.URL, "http://", "http://user:hunter2@", 1) + "/f",
		"http://user:hunter2@",
		"ftp://user:hunter2@host/x",
	} {
		s, err := Open(ctx, u, WithResolver(nil), WithRetry(Retry{MaxAttempts: 1, BaseDelay: 1, MaxDelay: 1, MaxElapsed: time.Second}))
		if err == nil {
			if strings.Contains(s.Name(), "hunter2") {
				t.Errorf("Name() = %q", s.Name())
			}
			_, err = s.ReadAt(ctx, make([]byte, 4), 0)
		}
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: error %v shows the password (or no error)", u, err)
		}
	}
	pool, err := NewPool(WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, err := pool.Open(ctx, strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)+"/f")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadAt(ctx, make([]byte, 4), 0); err != nil {
		t.Fatal(err)
	}
	for _, st := range pool.Stats() {
		if strings.Contains(st.Name, "hunter2") || !strings.Contains(st.Name, "user:xxxxx@") {
			t.Errorf("stats name %q", st.Name)
		}
	}
}
