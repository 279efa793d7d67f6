package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
)

// DANDI resolves DANDI Archive API URLs (https://api.dandiarchive.org/api/…,
// the sandbox and the former staging server) to the presigned S3 URLs they
// redirect to. It sends "Authorization: token KEY" to the DANDI API hosts
// listed in Keys, over https, and to no other host or scheme: redirects are
// followed one hop at a time and the header is set per hop, only while the
// hop is an https DANDI API URL.
// Its zero value resolves nothing; it is safe for concurrent use.
type DANDI struct {
	// Keys maps the host (with port, if not the default) of each DANDI API
	// server to its API key; an empty key sends no Authorization.
	Keys map[string]string
	// Client sends the requests; nil means the package's shared transport.
	// Its CheckRedirect is ignored: DANDI follows redirects itself.
	Client *http.Client
	// Loopback also sends the keys over plain http to a host of Keys that
	// is a loopback address (127.0.0.0/8, ::1, localhost): a local test
	// instance of the API, which the traffic never leaves the machine for.
	Loopback bool
}

// Hosts of the DANDI API servers known by default.
const (
	DANDIHost        = "api.dandiarchive.org"
	DANDISandboxHost = "api.sandbox.dandiarchive.org"
	DANDIStagingHost = "api-staging.dandiarchive.org" // the sandbox's former name
)

// DANDIKeysFromEnv returns the DANDI API hosts with their keys from the
// environment: DANDI_API_KEY for the archive, DANDI_SANDBOX_API_KEY (or else
// DANDI_STAGING_API_KEY) for the sandbox and staging hosts.
func DANDIKeysFromEnv() map[string]string {
	sandbox := os.Getenv("DANDI_SANDBOX_API_KEY")
	if sandbox == "" {
		sandbox = os.Getenv("DANDI_STAGING_API_KEY")
	}
	return map[string]string{
		DANDIHost:        os.Getenv("DANDI_API_KEY"),
		DANDISandboxHost: sandbox,
		DANDIStagingHost: sandbox,
	}
}

// maxDANDIHops bounds the redirects followed while resolving.
const maxDANDIHops = 10

// Resolve returns the URL that raw finally redirects to, or raw itself when
// it is not a DANDI API URL or is served without a redirect. An error status
// from the API fails with an *HTTPError naming raw.
func (d *DANDI) Resolve(ctx context.Context, raw string) (string, error) {
	cur, err := url.Parse(raw)
	if err != nil || !d.isAPI(cur) {
		return raw, nil
	}
	client := d.noRedirectClient()
	for range maxDANDIHops {
		if !d.isAPI(cur) {
			return cur.String(), nil
		}
		next, err := d.hop(ctx, client, cur, Redact(raw))
		if err != nil || next == nil {
			return cur.String(), err
		}
		cur = next
	}
	return "", fmt.Errorf("source: resolve %s: more than %d redirects", Redact(raw), maxDANDIHops)
}

// hop requests u and returns where it redirects, or nil when it does not.
// Errors name raw, the URL being resolved without its password.
func (d *DANDI) hop(ctx context.Context, client *http.Client, u *url.URL, raw string) (*url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("source: resolve %s: %w", raw, err)
	}
	// The key travels over https only: never in clear, whether the URL
	// asked for http or an https hop redirected to http.
	if key := d.Keys[u.Host]; key != "" && (u.Scheme == "https" || d.Loopback && IsLoopback(u.Hostname())) {
		req.Header.Set("Authorization", "token "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = u.Redacted()
		}
		return nil, fmt.Errorf("source: resolve %s: %w", raw, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		loc := resp.Header.Get("Location")
		if loc == "" {
			return nil, fmt.Errorf("%w: resolve %s: redirect without Location", ErrProtocol, raw)
		}
		next, err := u.Parse(loc)
		if err != nil {
			return nil, fmt.Errorf("source: resolve %s: bad Location: %w", raw, urlCause(err))
		}
		// What is followed must be requestable: an http(s) URL with a host
		// that reads back as itself.
		if next.Scheme != "http" && next.Scheme != "https" || next.Host == "" {
			return nil, fmt.Errorf("%w: resolve %s: redirect to %q, not an http(s) URL", ErrProtocol, raw, next.Redacted())
		}
		if _, err := url.Parse(next.String()); err != nil {
			return nil, fmt.Errorf("%w: resolve %s: bad Location: %v", ErrProtocol, raw, urlCause(err))
		}
		return next, nil
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil, nil
	}
	return nil, &HTTPError{URL: raw, Status: resp.StatusCode}
}

func (d *DANDI) isAPI(u *url.URL) bool {
	if u.Scheme != "https" && u.Scheme != "http" {
		return false
	}
	_, ok := d.Keys[u.Host]
	return ok && strings.HasPrefix(u.Path, "/api/")
}

func (d *DANDI) noRedirectClient() *http.Client {
	c := http.Client{Transport: sharedTransport}
	if d.Client != nil {
		c = *d.Client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
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
