package source

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// fakeAPI answers every request from memory: status with Location loc for
// the first hops requests, then 200. It fails the test if the key is sent
// anywhere but an https DANDI API URL.
type fakeAPI struct {
	t      *testing.T
	keys   map[string]string
	status int
	loc    string
	hops   int
	n      int
}

func (f *fakeAPI) RoundTrip(r *http.Request) (*http.Response, error) {
	if a := r.Header.Get("Authorization"); a != "" {
		if r.URL.Scheme != "https" || f.keys[r.URL.Host] == "" || a != "token "+f.keys[r.URL.Host] {
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

// FuzzDANDIResolve follows hostile redirect chains from a DANDI API URL:
// the key only ever goes over https to a DANDI host, resolution ends (a URL
// or an error), and the expiry of whatever comes back is read without
// failing.
func FuzzDANDIResolve(f *testing.F) {
	f.Add("https://api.dandiarchive.org/api/assets/x/download/", 302, "http://api.dandiarchive.org/api/x", 3)
	f.Add("http://api.dandiarchive.org/api/assets/x/download/", 301, "https://s3.example/b?X-Amz-Date=20250101T000000Z&X-Amz-Expires=99999999999", 1)
	f.Add("https://api.dandiarchive.org/api/a", 307, "/api/a", 20)
	f.Add("https://api.sandbox.dandiarchive.org/api/a", 302, "//evil.org/x?Expires=-1", 2)
	f.Add("https://api.dandiarchive.org/api/a", 500, "", 1)
	f.Fuzz(func(t *testing.T, raw string, status int, loc string, hops int) {
		keys := map[string]string{DANDIHost: "k1", DANDISandboxHost: "k2", "evil.org": ""}
		api := &fakeAPI{t: t, keys: keys, status: 100 + abs(status)%500, loc: loc, hops: abs(hops) % 16}
		d := &DANDI{Keys: keys, Client: &http.Client{Transport: api}}
		got, err := d.Resolve(context.Background(), raw)
		if err != nil {
			return
		}
		if got != raw {
			if _, err := url.Parse(got); err != nil {
				t.Fatalf("Resolve(%q) = %q, which does not parse: %v", raw, got, err)
			}
		}
		_ = expiry(got)
		if api.n > maxDANDIHops+1 {
			t.Fatalf("%d requests for one resolution", api.n)
		}
	})
}

// FuzzExpiry reads presigned-URL expiries from any query: a time or zero,
// never a panic, and never a time for a URL that carries no expiry.
func FuzzExpiry(f *testing.F) {
	f.Add("https://s3/b?X-Amz-Date=20250101T000000Z&X-Amz-Expires=3600")
	f.Add("https://s3/b?Expires=1700000000")
	f.Add("https://s3/b?X-Amz-Date=2025&X-Amz-Expires=-5&Expires=999999999999999999")
	f.Fuzz(func(t *testing.T, raw string) {
		e := expiry(raw)
		u, err := url.Parse(raw)
		if (err != nil || !u.Query().Has("Expires") && !u.Query().Has("X-Amz-Expires")) && !e.IsZero() {
			t.Fatalf("expiry(%q) = %v without an Expires parameter", raw, e)
		}
		_ = e.Before(time.Now())
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}
