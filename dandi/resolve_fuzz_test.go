package dandi

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/lindigo/lindi/io/source"
)

// fakeAPI answers every request from memory: status with Location loc for
// the first hops requests, then 200. It fails the test if a key is sent
// anywhere but over https (or http to loopback) to the API host of the
// instance it belongs to.
type fakeAPI struct {
	t      *testing.T
	keys   map[string]string // API host → its instance's key
	status int
	loc    string
	hops   int
	n      int
}

func (f *fakeAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	if a := r.Header.Get("Authorization"); a != "" {
		secure := r.URL.Scheme == "https" || r.URL.Scheme == "http" && source.IsLoopback(r.URL.Hostname())
		if !secure || a != "token "+f.keys[r.URL.Host] {
			f.t.Fatalf("Authorization %q sent to %s", a, r.URL)
		}
	}
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("x")), Request: r}
	if f.n++; f.n <= f.hops {
		resp.StatusCode = f.status
		resp.Header.Set("Location", f.loc)
	}
	return resp, nil
}

// FuzzResolve follows hostile redirect chains from an instance's API URL:
// each key only ever goes to its own instance's API host, securely;
// resolution ends (a URL or an error) within the hop limit; the URL it
// gives parses.
func FuzzResolve(f *testing.F) {
	f.Add("https://api.dandiarchive.org/api/assets/x/download/", 302, "http://api.dandiarchive.org/api/x", 3)
	f.Add("https://api.dandiarchive.org/api/assets/x/download/", 302, "https://api.lincbrain.org/api/assets/x/download/", 3)
	f.Add("http://api.dandiarchive.org/api/assets/x/download/", 301, "https://s3.example/b?X-Amz-Date=20250101T000000Z&X-Amz-Expires=99999999999", 1)
	f.Add("https://api.dandiarchive.org/api/a", 307, "/api/a", 20)
	f.Add("https://api.sandbox.dandiarchive.org/api/a", 302, "//evil.org/x?Expires=-1", 2)
	f.Add("http://localhost:8000/api/assets/x/download/", 302, "https://api-dandi.emberarchive.org/api/y", 2)
	f.Add("https://api.dandiarchive.org/api/a", 500, "", 1)
	keys := map[string]string{}
	var opts []Option
	for _, inst := range Instances() {
		u, _ := url.Parse(inst.API)
		key := "k-" + KeyEnv(inst.Name)
		keys[u.Host] = key
		opts = append(opts, WithKey(inst.Name, key))
	}
	f.Fuzz(func(t *testing.T, raw string, status int, loc string, hops int) {
		api := &fakeAPI{t: t, keys: keys, status: 100 + abs(status)%500, loc: loc, hops: abs(hops) % 16}
		c, err := NewClient(append(opts, WithHTTPClient(&http.Client{Transport: api}))...)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := c.config(nil, nil)
		if err != nil {
			t.Skip(err) // a bad InstancesEnv in the environment
		}
		got, err := cfg.resolver()(context.Background(), raw)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		if got != raw {
			if _, err := url.Parse(got); err != nil {
				t.Fatalf("resolve(%q) = %q, which does not parse: %v", raw, got, err)
			}
		}
		if api.n > maxHops+1 {
			t.Fatalf("%d requests for one resolution", api.n)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}
