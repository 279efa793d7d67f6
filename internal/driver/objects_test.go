package driver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lindigo/lindi/io/source"
)

// TestObjects reads a batch of objects whole, one request each and a 404
// as nil; over the budget, it learns their sizes only, one request each,
// and the sources then tell them without another.
func TestObjects(t *testing.T) {
	var mu sync.Mutex
	reqs := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reqs[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "x", time.Time{}, strings.NewReader(strings.Repeat(r.URL.Path, 100)))
	}))
	defer srv.Close()
	ctx := context.Background()
	newEnv := func() *Env {
		p, err := source.NewPool()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return &Env{Pool: p}
	}
	var urls []string
	for i := range 5 {
		urls = append(urls, fmt.Sprintf("%s/o%d", srv.URL, i))
	}
	urls = append(urls, srv.URL+"/gone", urls[0]) // a repeat is read once

	got := Objects(ctx, newEnv(), urls, 300)
	if len(got) != 6 {
		t.Fatalf("%d objects, want 6", len(got))
	}
	for i := range 5 {
		p := fmt.Sprintf("/o%d", i)
		if b := got[srv.URL+p]; !bytes.Equal(b, []byte(strings.Repeat(p, 100))) {
			t.Errorf("%s: %d bytes", p, len(b))
		}
	}
	if b, ok := got[srv.URL+"/gone"]; !ok || b != nil {
		t.Errorf("a 404: %v, %v; want nil in the map", b, ok)
	}
	for p, n := range reqs {
		if n != 1 {
			t.Errorf("%s: %d requests", p, n)
		}
	}

	clear(reqs)
	env := newEnv()
	if got := Objects(ctx, env, urls, ObjectBudget); got != nil {
		t.Errorf("over the budget: %d objects read whole", len(got))
	}
	for i := range 5 {
		src, _ := env.Pool.Open(ctx, urls[i])
		if n, err := src.Size(ctx); err != nil || n != 300 {
			t.Errorf("%s: size %d, %v", urls[i], n, err)
		}
	}
	for p, n := range reqs {
		if n != 1 {
			t.Errorf("sizes: %s: %d requests", p, n)
		}
	}
	if got := Objects(ctx, env, nil, 1); got != nil {
		t.Error("no objects, and something read")
	}
}
