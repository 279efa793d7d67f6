package h5grove

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"

	"github.com/lindigo/lindi/io/source"
)

// hostAllowed reports whether the request's Host header names this server:
// a loopback name or address, the address the request came to, or a name
// WithAllowHost gave. A browser sends the name it resolved, so a page on a
// domain rebound to this machine's address is refused.
func (s *Server) hostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" || host == "localhost" || slices.Contains(s.hosts, "*") || slices.Contains(s.hosts, host) {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	if ip.Unmap().IsLoopback() {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	ap, err := netip.ParseAddrPort(local.String())
	return err == nil && ap.Addr().Unmap() == ip.Unmap()
}

// originAllowed reports whether a browser request may be answered: one
// without an Origin header (not a cross-origin fetch) or from this server's
// own origin, or from an origin WithAllowOrigin named, which then gets the
// CORS headers.
func (s *Server) originAllowed(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	w.Header().Add("Vary", "Origin")
	if origin == "" || origin == "http://"+r.Host || origin == "https://"+r.Host {
		return true
	}
	switch {
	case slices.Contains(s.origins, "*"):
		w.Header().Set("Access-Control-Allow-Origin", "*")
	case slices.Contains(s.origins, origin):
		w.Header().Set("Access-Control-Allow-Origin", origin)
	default:
		return false
	}
	return true
}

// checkKind refuses a local file that is neither a regular file nor a
// directory (a FIFO, whose open would wait for a writer; a device).
func checkKind(loc, name string) error {
	if _, ok := source.Scheme(loc); ok {
		return nil
	}
	st, err := os.Stat(loc)
	if err != nil || st.Mode().IsRegular() || st.IsDir() {
		return nil // a missing file is for the open to report
	}
	return fmt.Errorf("%w: %q is not a regular file or directory", ErrForbidden, name)
}
