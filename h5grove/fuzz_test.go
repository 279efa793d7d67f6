package h5grove

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// FuzzParseSelection feeds h5grove's selection syntax to the parser: it
// never panics, accepts at most ndim members, and what it accepts either
// resolves against the shape or is refused by Resolve with an error; an
// accepted text without ":" selects single elements only.
func FuzzParseSelection(f *testing.F) {
	for _, s := range []string{"5", "1, 2:5", "0:10:5, 2, 3:", ":", "::-1", "-3:", " 1_0 : 20 : +3 ", "1,", "a", "1:2:0", "99999999999999999999"} {
		f.Add(s)
	}
	shape := []int{10, 7, 3}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := parseSelection(s, len(shape))
		if err != nil {
			return
		}
		if len(sel) > len(shape) || len(sel) != strings.Count(s, ",")+1 {
			t.Fatalf("%q: %d members", s, len(sel))
		}
		r, err := sel.Resolve(shape)
		if err != nil {
			return
		}
		if !strings.Contains(s, ":") && len(r.Shape()) != len(shape)-len(sel) {
			t.Fatalf("%q: indexes only, shape %v", s, r.Shape())
		}
		if r.Len() > 10*7*3 {
			t.Fatalf("%q: %d elements of %d", s, r.Len(), 10*7*3)
		}
	})
}

// FuzzHostAllowed feeds Host headers to the check against DNS rebinding:
// it never panics, and what it lets through names a loopback host, the
// address the request came to, or nothing.
func FuzzHostAllowed(f *testing.F) {
	for _, h := range []string{"127.0.0.1:8888", "localhost", "[::1]:1", "evil.example", "127.0.0.1.evil.example", "[::ffff:127.0.0.1]", "LOCALHOST.", "192.0.2.7:80", "", "[", "0x7f.1", "127.1"} {
		f.Add(h)
	}
	s := &Server{}
	local := &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 80}
	f.Fuzz(func(t *testing.T, host string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
		if !s.hostAllowed(r) {
			return
		}
		h := host
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
		ip, err := netip.ParseAddr(h)
		if h != "" && h != "localhost" && (err != nil || !ip.Unmap().IsLoopback() && ip.Unmap() != netip.MustParseAddr("192.0.2.7")) {
			t.Errorf("host %q allowed", host)
		}
	})
}

// FuzzReplacePath rewrites a path in any message: it never panics, changes
// nothing but whole occurrences of the path, each where a path begins, and
// leaves none there.
func FuzzReplacePath(f *testing.F) {
	for _, m := range []string{"h5: open /srv/data/x.h5: data", "read /srv/data//srv/data/y", "a/srv/data/x", "\"/srv/data/\""} {
		f.Add(m)
	}
	const p = "/srv/data/"
	f.Fuzz(func(t *testing.T, msg string) {
		if strings.Contains(msg, "\x00") {
			return
		}
		got := replacePath(msg, p, "\x00")
		if strings.ReplaceAll(got, "\x00", p) != msg {
			t.Fatalf("%q became %q: more than the path changed", msg, got)
		}
		for i := 0; i < len(got); i++ {
			begins := i == 0 || strings.ContainsRune(pathStarts, rune(got[i-1]))
			if got[i] == 0 && !begins {
				t.Errorf("%q: a path replaced inside another: %q", msg, got)
			}
			if begins && strings.HasPrefix(got[i:], p) {
				t.Errorf("%q: a path left where one begins: %q", msg, got)
			}
		}
	})
}
