package dandi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/io/source"
)

// keyWorld answers, from memory, every instance's API (a one-asset listing,
// a download that redirects) and a bucket, and records which host saw which
// Authorization header. No request leaves the process.
type keyWorld struct {
	mu   sync.Mutex
	seen map[string][]string // host → Authorization headers ("" for none)
	// redirect maps an API host to the download URL its downloads redirect
	// to (another instance's, to test that keys do not follow redirects);
	// unset, they redirect to the bucket.
	redirect map[string]string
}

const keyAsset = "0a8c5c2e-3d5b-4a7e-9f0e-1c2d3e4f5a6b"

func (w *keyWorld) RoundTrip(r *http.Request) (*http.Response, error) {
	w.mu.Lock()
	w.seen[r.URL.Host] = append(w.seen[r.URL.Host], r.Header.Get("Authorization"))
	w.mu.Unlock()
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Request: r, Body: io.NopCloser(strings.NewReader(""))}
	p := r.URL.Path
	switch {
	case r.URL.Host == "bucket.example.org":
		resp.StatusCode = 206
		resp.Header.Set("Content-Range", "bytes 0-3/4")
		resp.ContentLength = 4
		resp.Body = io.NopCloser(strings.NewReader("data"))
	case strings.HasSuffix(p, "/assets/"):
		body := fmt.Sprintf(`{"count": 1, "next": null, "previous": null, "results": [{"asset_id": %q, "blob": "b", "zarr": null, "path": "x.nwb", "size": 4, "created": "2023-01-01T00:00:00Z", "modified": "2023-01-01T00:00:00Z"}]}`, keyAsset)
		resp.Body = io.NopCloser(strings.NewReader(body))
	case strings.HasSuffix(p, "/download/"):
		resp.StatusCode = 302
		to := "https://bucket.example.org/blobs/b?X-Amz-Signature=s"
		if u, ok := w.redirect[r.URL.Host]; ok {
			to = u
		}
		resp.Header.Set("Location", to)
	default:
		resp.StatusCode = 404
	}
	return resp, nil
}

// TestKeysGoToTheirOwnHost opens an asset of every instance of the one
// table, each with its own key in the environment (LINC_API_KEY and
// EMBER_API_KEY among them), and checks that each key reached its
// instance's API host and no other host: not another instance's, even when
// one's download redirects to another's, and never the bucket.
func TestKeysGoToTheirOwnHost(t *testing.T) {
	t.Setenv(dandi.InstancesEnv, "")
	insts := dandi.Instances()
	keyOf := map[string]string{} // API host → the key it may see
	hosts := map[string]bool{}
	for _, inst := range insts {
		t.Setenv(dandi.KeyEnv(inst.Name), "key-of-"+dandi.KeyEnv(inst.Name))
	}
	if dandi.KeyEnv("linc") != "LINC_API_KEY" || dandi.KeyEnv("ember") != "EMBER_API_KEY" {
		t.Fatalf("KeyEnv: %s, %s", dandi.KeyEnv("linc"), dandi.KeyEnv("ember"))
	}
	w := &keyWorld{seen: map[string][]string{}, redirect: map[string]string{}}
	for i, inst := range insts {
		u, _ := url.Parse(inst.API)
		keyOf[u.Host] = "token key-of-" + dandi.KeyEnv(inst.Name)
		hosts[u.Host] = true
		// Each instance's downloads redirect to the next instance's API.
		next := insts[(i+1)%len(insts)]
		w.redirect[u.Host] = next.API + "/assets/" + keyAsset + "/download/"
	}
	client := &http.Client{Transport: w}
	ctx := context.Background()
	for i, inst := range insts {
		name := "dandi://" + inst.Name + "/000001/x.nwb"
		// A chain of two API hosts, then the bucket.
		nu, _ := url.Parse(insts[(i+1)%len(insts)].API)
		delete(w.redirect, nu.Host)
		loc, ok, err := dandi.Default().Locate(ctx, name, source.LocateConfig{Client: client, Retry: source.DefaultRetry()})
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", name, ok, err)
		}
		s, err := source.Open(ctx, loc.URL, append(loc.Options, source.WithClient(client))...)
		if err != nil {
			t.Fatal(err)
		}
		p := make([]byte, 4)
		if _, err := s.ReadAt(ctx, p, 0); err != nil || string(p) != "data" {
			t.Fatalf("%s: read %q, %v", name, p, err)
		}
		w.redirect[nu.Host] = insts[(i+2)%len(insts)].API + "/assets/" + keyAsset + "/download/"
	}
	for host, auths := range w.seen {
		for _, a := range auths {
			if a != "" && a != keyOf[host] {
				t.Errorf("%s saw %q", host, a)
			}
		}
	}
	for host := range hosts {
		if !slices.Contains(w.seen[host], keyOf[host]) {
			t.Errorf("%s never saw its key %q (saw %q)", host, keyOf[host], w.seen[host])
		}
	}
	if len(w.seen["bucket.example.org"]) == 0 {
		t.Error("the bucket was never read")
	}
}
