package source

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/lindigo/lindi/internal/netsim"
)

func TestBlockedAddr(t *testing.T) {
	for addr, blocked := range map[string]bool{
		"127.0.0.1": true, "169.254.169.254": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true,
		"100.64.0.1": true, "0.0.0.0": true, "::1": true, "fe80::1": true, "fd00::1": true, "::ffff:127.0.0.1": true,
		"::ffff:169.254.169.254": true, "224.0.0.1": true, "::": true,
		"8.8.8.8": false, "52.216.1.1": false, "2001:4860:4860::8888": false, "::ffff:8.8.8.8": false,
	} {
		if got := blockedAddr(netip.MustParseAddr(addr)); got != blocked {
			t.Errorf("blockedAddr(%s) = %v, want %v", addr, got, blocked)
		}
	}
}

func TestPolicyHosts(t *testing.T) {
	p := &Policy{Hosts: []string{"data.example.org", "*.dandiarchive.org"}}
	for host, ok := range map[string]bool{
		"data.example.org": true, "DATA.example.org.": true, "api.dandiarchive.org": true, "a.b.dandiarchive.org": true,
		"dandiarchive.org": false, "evil.org": false, "dandiarchive.org.evil.org": false, "xdata.example.org": false,
	} {
		if got := p.allowsHost(host); got != ok {
			t.Errorf("allowsHost(%q) = %v, want %v", host, got, ok)
		}
	}
	for _, bad := range []string{"", "*.", "a/b", "h:80", "u@h"} {
		if _, err := NewHTTP("http://x/", WithPolicy(Policy{Hosts: []string{bad}})); err == nil {
			t.Errorf("host %q accepted", bad)
		}
	}
	type rt struct{ http.RoundTripper }
	if _, err := NewHTTP("http://x/", WithPolicy(Policy{}), WithClient(&http.Client{Transport: rt{}})); err == nil {
		t.Error("a policy over a transport it cannot check was accepted")
	}
}

// TestPolicyBlocks checks the policy where it is enforced: after DNS (a
// name that resolves to loopback), on the first request and on redirects,
// without retries.
func TestPolicyBlocks(t *testing.T) {
	var other string
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other+"/f", http.StatusFound)
		default:
			netsim.Blobs(map[string][]byte{"/f": []byte("0123456789")}).ServeHTTP(w, r)
		}
	}))
	u, _ := url.Parse(srv.URL)
	other = "http://localhost:" + u.Port() // the same server under a name that is not allowed
	read := func(name string, p Policy) error {
		h, err := NewHTTP(name, WithResolver(nil), WithRetry(noSleep()), WithPolicy(p))
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.ReadAt(context.Background(), make([]byte, 4), 0)
		if err != nil && h.Stats().Retries != 0 {
			t.Errorf("%s: %d retries of a blocked request", name, h.Stats().Retries)
		}
		return err
	}
	for _, tc := range []struct {
		name    string
		url     string
		p       Policy
		blocked string
	}{
		{"loopback refused", srv.URL + "/f", Policy{}, "loopback"},
		{"refused after DNS", other + "/f", Policy{Hosts: []string{"localhost"}}, "loopback"},
		{"private allowed", srv.URL + "/f", Policy{AllowPrivate: true}, ""},
		{"allowed host", srv.URL + "/f", Policy{AllowPrivate: true, Hosts: []string{"127.0.0.1"}}, ""},
		{"host not allowed", other + "/f", Policy{AllowPrivate: true, Hosts: []string{"127.0.0.1"}}, `"localhost"`},
		{"redirect to a host not allowed", srv.URL + "/away", Policy{AllowPrivate: true, Hosts: []string{"127.0.0.1"}}, `"localhost"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := read(tc.url, tc.p)
			if tc.blocked == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), tc.blocked) {
				t.Fatalf("got %v, want ErrBlocked naming %s", err, tc.blocked)
			}
		})
	}
}
