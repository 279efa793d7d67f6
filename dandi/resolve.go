package dandi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/lindigo/lindi/io/source"
)

// maxHops bounds the redirects followed while resolving.
const maxHops = 10

// resolver returns the source.ResolveFunc of the assets the client opens:
// it maps an instance's API URL (an asset's download URL) to the URL it
// finally redirects to (a presigned S3 URL), following redirects one hop
// at a time. Each hop to an instance's API host carries that instance's
// key, over https or over http to a loopback host; no other hop carries
// any, so a redirect from one instance to another, to S3 or anywhere else
// takes no key along.
func (c *config) resolver() source.ResolveFunc {
	return func(ctx context.Context, raw string) (string, error) {
		cur, err := url.Parse(raw)
		if err != nil {
			return raw, nil
		}
		if _, ok := c.apiOf(cur); !ok {
			return raw, nil
		}
		for range maxHops {
			inst, ok := c.apiOf(cur)
			if !ok {
				return cur.String(), nil
			}
			next, err := c.hop(ctx, inst, cur, source.Redact(raw))
			if err != nil || next == nil {
				return cur.String(), err
			}
			cur = next
		}
		return "", fmt.Errorf("dandi: resolve %s: more than %d redirects", source.Redact(raw), maxHops)
	}
}

// apiOf returns the instance whose API host u is on (scheme and host), for
// a URL under its API path.
func (c *config) apiOf(u *url.URL) (Instance, bool) {
	if u.Scheme != "https" && u.Scheme != "http" {
		return Instance{}, false
	}
	inst, _, ok := c.reg.byAPI(u)
	return inst, ok
}

// hop requests u and returns where it redirects, or nil when it does not.
// Errors name raw, the URL being resolved without its password.
func (c *config) hop(ctx context.Context, inst Instance, u *url.URL, raw string) (*url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("dandi: resolve %s: %w", raw, err)
	}
	if key := c.authKey(inst, u.String()); key != "" {
		req.Header.Set("Authorization", "token "+key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // it names the URL again, unredacted
		}
		return nil, fmt.Errorf("dandi: resolve %s: %w", raw, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		loc := resp.Header.Get("Location")
		if loc == "" {
			return nil, fmt.Errorf("%w: resolve %s: redirect without Location", source.ErrProtocol, raw)
		}
		next, err := u.Parse(loc)
		// What is followed must be requestable: an http(s) URL with a host
		// that reads back as itself.
		if err != nil || next.Scheme != "http" && next.Scheme != "https" || next.Host == "" {
			return nil, fmt.Errorf("%w: resolve %s: redirect to %q, not an http(s) URL", source.ErrProtocol, raw, source.Redact(loc))
		}
		if _, err := url.Parse(next.String()); err != nil {
			return nil, fmt.Errorf("%w: resolve %s: bad Location", source.ErrProtocol, raw)
		}
		return next, nil
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil, nil
	}
	return nil, &source.HTTPError{URL: raw, Status: resp.StatusCode}
}
