package dandi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/io/source"
)

// TestAPIRetries: a 503 and a 429 are retried as byte reads are; a 400 is
// not.
func TestAPIRetries(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 2:
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.Write([]byte(`{"count": 0, "next": null, "previous": null, "results": []}`))
		}
	}))
	defer srv.Close()
	r := source.DefaultRetry()
	r.Sleep = func(context.Context, time.Duration) error { return nil }
	for _, err := range dandi.Assets(context.Background(), "dandi://flaky/000001", dandi.WithInstance("flaky", srv.URL+"/api"), dandi.WithRetry(r)) {
		t.Fatalf("yielded %v, want an empty listing", err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusBadRequest)
	}))
	defer bad.Close()
	calls.Store(0)
	for _, err := range dandi.Assets(context.Background(), "dandi://bad/000001", dandi.WithInstance("bad", bad.URL+"/api"), dandi.WithRetry(r)) {
		if err == nil {
			t.Fatal("no error for HTTP 400")
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("HTTP 400 asked %d times, want once", n)
	}
}
