package source

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// noSleep is a retry policy of 8 attempts that does not wait.
func noSleep() Retry {
	r := DefaultRetry()
	r.Sleep = func(context.Context, time.Duration) error { return nil }
	return r
}

// TestFailuresNotRetried is the regression test of issue 13 (7): redirect
// loops and oversized headers were retried 8 times. They fail the same way
// every time, so they fail at once.
func TestFailuresNotRetried(t *testing.T) {
	var hits atomic.Int64
	loop := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/headers":
			w.Header().Set("X-Big", strings.Repeat("x", 8<<10))
			w.WriteHeader(http.StatusPartialContent)
		}
	}))
	small := &http.Client{Transport: &http.Transport{MaxResponseHeaderBytes: 4 << 10}}
	for _, tc := range []struct {
		path    string
		client  *http.Client
		maxHits int64
	}{
		{"/loop", &http.Client{}, 11}, // one request and its 10 redirects
		{"/headers", small, 1},
	} {
		t.Run(tc.path, func(t *testing.T) {
			hits.Store(0)
			h, err := NewHTTP(loop.URL+tc.path, WithResolver(nil), WithRetry(noSleep()), WithClient(tc.client))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.ReadAt(context.Background(), make([]byte, 4), 0); err == nil {
				t.Fatal("no error")
			}
			if n := hits.Load(); n > tc.maxHits || h.Stats().Retries != 0 {
				t.Errorf("%d requests and %d retries, want at most %d requests and no retry", n, h.Stats().Retries, tc.maxHits)
			}
		})
	}
}

// TestHTMLAnswerRefused: a 200 text/html answer to a range request is a web
// page (a login or error page), not data; issue 13 (7) saw it reported as
// "source ends after 100 bytes".
func TestHTMLAnswerRefused(t *testing.T) {
	page := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(strings.Repeat("<p>", 33) + "x"))
	}))
	h, err := NewHTTP(page.URL+"/f.h5", WithResolver(nil), WithRetry(noSleep()))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{10, 100, 1000} {
		_, err := h.ReadAt(context.Background(), make([]byte, n), 0)
		if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "200") || !strings.Contains(err.Error(), "text/html") {
			t.Errorf("read of %d bytes: got %v, want ErrProtocol naming the status and the type", n, err)
		}
	}
	if h.Stats().Retries != 0 {
		t.Errorf("%d retries", h.Stats().Retries)
	}
}
