package source

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
)

// dandiWorld is an API server that redirects to presigned URLs, as DANDI's
// does, and an S3 server checking their signatures.
type dandiWorld struct {
	api, s3, other *httptest.Server
	plain          *httptest.Server // the API's handler over plain HTTP
	mu             sync.Mutex
	auth           map[string][]string // server name → Authorization headers seen
	resolves       atomic.Int64
	sig            atomic.Int64 // signature handed out by the API
	validSig       atomic.Int64 // signature S3 accepts; 0 accepts any
	expires        string       // X-Amz-Expires handed out
	now            func() time.Time
	data           []byte
}

func newDandiWorld(t *testing.T, data []byte) *dandiWorld {
	w := &dandiWorld{auth: map[string][]string{}, data: data, expires: "3600", now: time.Now}
	blobs := netsim.Blobs(map[string][]byte{"/bucket/blob": data})
	w.s3 = serve(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.saw("s3", r)
		if v := w.validSig.Load(); v != 0 && r.URL.Query().Get("X-Amz-Signature") != fmt.Sprint(v) {
			http.Error(rw, "expired", http.StatusForbidden)
			return
		}
		blobs.ServeHTTP(rw, r)
	}))
	// other redirects to S3: a non-DANDI hop in the chain.
	w.other = serve(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.saw("other", r)
		http.Redirect(rw, r, w.s3URL(), http.StatusFound)
	}))
	api := func(name string) http.HandlerFunc {
		return func(rw http.ResponseWriter, r *http.Request) {
			w.saw(name, r)
			w.serveAPI(rw, r)
		}
	}
	w.api = httptest.NewTLSServer(api("api"))
	t.Cleanup(w.api.Close)
	w.plain = serve(t, api("plain"))
	return w
}

func (w *dandiWorld) serveAPI(rw http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api/assets/abc/download/":
		w.resolves.Add(1)
		http.Redirect(rw, r, w.s3URL(), http.StatusFound)
	case "/api/assets/hop/download/":
		http.Redirect(rw, r, "/api/assets/abc/download/", http.StatusFound)
	case "/api/assets/away/download/":
		http.Redirect(rw, r, w.other.URL+"/x", http.StatusFound)
	case "/api/assets/down/download/":
		http.Redirect(rw, r, w.plain.URL+"/api/assets/abc/download/", http.StatusFound)
	default:
		http.NotFound(rw, r)
	}
}

func (w *dandiWorld) s3URL() string {
	sig := w.sig.Add(1)
	return fmt.Sprintf("%s/bucket/blob?X-Amz-Date=%s&X-Amz-Expires=%s&X-Amz-Signature=%d",
		w.s3.URL, w.now().UTC().Format("20060102T150405Z"), w.expires, sig)
}

func (w *dandiWorld) saw(server string, r *http.Request) {
	w.mu.Lock()
	w.auth[server] = append(w.auth[server], r.Header.Get("Authorization"))
	w.mu.Unlock()
}

// resolver follows the API's redirect one hop, as a Locator's resolver
// does: the URL a GET of raw redirects to, raw when it answers 2xx, else an
// *HTTPError.
func (w *dandiWorld) resolver(client *http.Client) ResolveFunc {
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return func(ctx context.Context, raw string) (string, error) {
		for range 10 {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
			if err != nil {
				return "", err
			}
			resp, err := c.Do(req)
			if err != nil {
				return "", err
			}
			resp.Body.Close()
			switch {
			case resp.StatusCode >= 300 && resp.StatusCode < 400:
				u, err := req.URL.Parse(resp.Header.Get("Location"))
				if err != nil {
					return "", err
				}
				if u.Host != req.URL.Host {
					return u.String(), nil
				}
				raw = u.String()
				continue
			case resp.StatusCode < 300:
				return raw, nil
			}
			return "", &HTTPError{URL: raw, Status: resp.StatusCode}
		}
		return "", errors.New("too many redirects")
	}
}

func TestResolveCached(t *testing.T) {
	data := readFixture(t)[:5000]
	w := newDandiWorld(t, data)
	h, err := NewHTTP(w.api.URL+"/api/assets/abc/download/", WithResolver(w.resolver(w.api.Client())))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			p := make([]byte, 10)
			if _, err := h.ReadAt(context.Background(), p, int64(i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := w.resolves.Load(); n != 1 {
		t.Fatalf("%d resolutions for 20 concurrent reads, want 1", n)
	}
	if h.Stats().Resolves != 1 {
		t.Fatalf("Stats().Resolves = %d", h.Stats().Resolves)
	}
}

func TestResolveRenewAfter403(t *testing.T) {
	data := readFixture(t)[:5000]
	w := newDandiWorld(t, data)
	h, err := NewHTTP(w.api.URL+"/api/assets/abc/download/", WithResolver(w.resolver(w.api.Client())))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := make([]byte, 10)
	if _, err := h.ReadAt(ctx, p, 0); err != nil {
		t.Fatal(err)
	}
	w.validSig.Store(2) // the first presigned URL is revoked
	if _, err := h.ReadAt(ctx, p, 100); err != nil || string(p) != string(data[100:110]) {
		t.Fatalf("read after revocation: %v", err)
	}
	if n := w.resolves.Load(); n != 2 {
		t.Fatalf("%d resolutions, want 2", n)
	}
	w.validSig.Store(1000) // nothing the API hands out works
	_, err = h.ReadAt(ctx, p, 200)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 403 || strings.Contains(err.Error(), "Signature") {
		t.Fatalf("err = %v, want a 403 naming the API URL only", err)
	}
}

func TestResolveRenewOnExpiry(t *testing.T) {
	data := readFixture(t)[:5000]
	now := time.Now()
	var clock atomic.Int64
	clock.Store(now.UnixNano())
	w := newDandiWorld(t, data)
	w.expires = "600"
	w.now = func() time.Time { return time.Unix(0, clock.Load()) }
	fake := func(c *config) error {
		c.now = w.now
		return nil
	}
	h, err := NewHTTP(w.api.URL+"/api/assets/abc/download/", WithResolver(w.resolver(w.api.Client())), fake)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p := make([]byte, 10)
	steps := []struct {
		advance  time.Duration
		resolves int64
	}{
		{0, 1},
		{5 * time.Minute, 1},
		{4*time.Minute + 30*time.Second, 2}, // within a minute of expiry
		{time.Minute, 2},
	}
	for _, s := range steps {
		clock.Add(int64(s.advance))
		if _, err := h.ReadAt(ctx, p, 0); err != nil {
			t.Fatal(err)
		}
		if n := w.resolves.Load(); n != s.resolves {
			t.Fatalf("after %v: %d resolutions, want %d", time.Duration(clock.Load()-now.UnixNano()), n, s.resolves)
		}
	}
}

func TestExpiry(t *testing.T) {
	tests := []struct {
		url  string
		want time.Time
	}{
		{"https://s3/x?X-Amz-Date=20240102T030405Z&X-Amz-Expires=3600", time.Date(2024, 1, 2, 4, 4, 5, 0, time.UTC)},
		{"https://s3/x?Expires=1700000000", time.Unix(1700000000, 0)},
		{"https://s3/x?X-Amz-Date=bad&X-Amz-Expires=3600", time.Time{}},
		{"https://s3/x", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			if got := expiry(tt.url); !got.Equal(tt.want) {
				t.Fatalf("expiry = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestResolveRetriesErrors(t *testing.T) {
	data := readFixture(t)[:5000]
	w := newDandiWorld(t, data)
	var fails atomic.Int64
	flakyAPI := serve(t, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if fails.Add(1) <= 2 {
			rw.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.api.Config.Handler.ServeHTTP(rw, r)
	}))
	var s sleeps
	h, err := NewHTTP(flakyAPI.URL+"/api/assets/abc/download/", WithResolver(w.resolver(flakyAPI.Client())), fastRetry(&s))
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 10)
	if _, err := h.ReadAt(context.Background(), p, 20); err != nil || string(p) != string(data[20:30]) {
		t.Fatalf("read: %v", err)
	}
	if n := len(s.all()); n != 2 {
		t.Fatalf("%d retries, want 2", n)
	}
}
