package source

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
)

// Policy restricts where HTTP sources may connect, for services that open
// documents they do not trust: a document's refs may name any URL, and by
// default (no Policy) every one is fetched, as kerchunk and LINDI expect.
type Policy struct {
	// Hosts, when not empty, lists the host names requests may go to, the
	// first and every redirect: "data.example.org" exactly, or
	// "*.example.org" for its subdomains. A same-origin mode is Hosts
	// holding the document's host alone.
	Hosts []string
	// AllowPrivate lets connections reach loopback, private (10/8,
	// 172.16/12, 192.168/16, 100.64/10, fc00::/7), link-local (169.254/16,
	// where clouds serve instance credentials, and fe80::/10), unspecified
	// and multicast addresses. Without it they are refused after DNS
	// resolution, on every connection, so neither a redirect nor a DNS
	// answer that changes reaches them.
	AllowPrivate bool
}

// WithPolicy makes HTTP sources, and the DANDI resolver they use by
// default, obey p; a refused request fails with an error wrapping
// ErrBlocked, without retries. The client must use an *http.Transport (the
// shared one unless WithClient gave another); a clone of it, without proxy
// (whose address would be checked instead of the server's), is used.
func WithPolicy(p Policy) Option {
	return func(c *config) error {
		for _, h := range p.Hosts {
			if strings.TrimPrefix(h, "*.") == "" || strings.ContainsAny(h, "/:@ ") {
				return fmt.Errorf("source: WithPolicy: bad host %q (want a name such as data.example.org or *.example.org)", h)
			}
		}
		c.policy = &p
		return nil
	}
}

// apply wraps client in the policy.
func (p *Policy) apply(client *http.Client) (*http.Client, error) {
	base := sharedTransport
	if client.Transport != nil {
		t, ok := client.Transport.(*http.Transport)
		if !ok {
			return nil, fmt.Errorf("source: WithPolicy needs a client with an *http.Transport, not %T", client.Transport)
		}
		base = t
	}
	t := base.Clone()
	t.Proxy = nil
	d := newDialer()
	d.Control = p.control
	if base == sharedTransport {
		// Its own warmer: connections opened ahead are checked as any.
		installWarmer(t, hedged(d.DialContext))
	} else {
		t.DialContext = hedged(d.DialContext)
		t.DialTLSContext = nil
	}
	c := *client
	c.Transport = &policyTransport{p: p, t: t}
	return &c, nil
}

// policyTransport checks the host of every request, redirects included.
type policyTransport struct {
	p *Policy
	t *http.Transport
}

func (pt *policyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !pt.p.allowsHost(r.URL.Hostname()) {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, fmt.Errorf("%w: host %q is not in the allowed hosts", ErrBlocked, r.URL.Hostname())
	}
	return pt.t.RoundTrip(r)
}

func (p *Policy) allowsHost(host string) bool {
	if len(p.Hosts) == 0 {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range p.Hosts {
		h = strings.ToLower(h)
		if suffix, ok := strings.CutPrefix(h, "*"); ok && strings.HasSuffix(host, suffix) && len(host) > len(suffix) || host == h {
			return true
		}
	}
	return false
}

// control checks the address a connection is about to be made to, after
// DNS resolution.
func (p *Policy) control(_, address string, _ syscall.RawConn) error {
	if p.AllowPrivate {
		return nil
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: address %q: %v", ErrBlocked, address, err)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: address %q: %v", ErrBlocked, address, err)
	}
	if blockedAddr(ip) {
		return fmt.Errorf("%w: %s is a loopback, private or link-local address", ErrBlocked, ip)
	}
	return nil
}

var sharedAddrSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT
var thisNetwork = netip.MustParsePrefix("0.0.0.0/8")

// blockedAddr reports whether ip is not a public unicast address.
func blockedAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() ||
		sharedAddrSpace.Contains(ip) || thisNetwork.Contains(ip) || !ip.IsValid()
}

// IsLoopback reports whether host (without a port) is a loopback address:
// "localhost" or an IP literal in 127.0.0.0/8 or ::1.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return err == nil && ip.IsLoopback()
}
