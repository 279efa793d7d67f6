package source

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// ErrNotListable reports a URL that names no S3 prefix, so that it cannot
// be listed: plain HTTP has no directory listing.
var ErrNotListable = errors.New("source: not an S3 URL: cannot list")

// s3Prefix is where an S3 "directory" is: the URL of its bucket (path-style
// or virtual-hosted) and the prefix of its keys, ending in "/".
type s3Prefix struct {
	bucketURL string // no trailing slash
	prefix    string
}

// s3EndpointFromEnv returns the endpoint the AWS CLI would send S3 requests
// to: AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL; "" for AWS itself.
func s3EndpointFromEnv() string {
	for _, env := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		if v := strings.TrimSpace(os.Getenv(env)); v != "" {
			return strings.TrimRight(v, "/")
		}
	}
	return ""
}

// parseS3Dir tells where the S3 prefix dir names: an s3://bucket/prefix URL
// (read through the endpoint of the environment or of c), a virtual-hosted
// URL (https://BUCKET.s3[.REGION].amazonaws.com/PREFIX), a path-style one
// (https://s3[.REGION].amazonaws.com/BUCKET/PREFIX), or a path-style URL at
// the endpoint AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL names.
func parseS3Dir(ctx context.Context, dir string, c *config) (s3Prefix, error) {
	if s, _ := Scheme(dir); s == "s3" {
		_, key, err := ParseS3(dir)
		if err != nil {
			return s3Prefix{}, err
		}
		h, err := newS3(dir, c)
		if err != nil {
			return s3Prefix{}, err
		}
		// The object URL at the bucket's endpoint (its region asked, once,
		// when not known), less the key: the bucket's URL.
		target, err := h.res.get(ctx)
		if err != nil {
			return s3Prefix{}, err
		}
		return s3Prefix{bucketURL: strings.TrimSuffix(target, h.s3.path), prefix: dirKey(key)}, nil
	}
	u, err := url.Parse(dir)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		return s3Prefix{}, fmt.Errorf("%w: %s", ErrNotListable, Redact(dir))
	}
	host := strings.ToLower(u.Hostname())
	path := strings.TrimPrefix(u.Path, "/")
	origin := u.Scheme + "://" + u.Host
	if ep := s3EndpointFromEnv(); ep != "" {
		if e, err := url.Parse(ep); err == nil && strings.EqualFold(e.Host, u.Host) && e.Scheme == u.Scheme {
			return pathStyle(origin, path, dir)
		}
	}
	if !strings.HasSuffix(host, ".amazonaws.com") {
		return s3Prefix{}, fmt.Errorf("%w: %s", ErrNotListable, Redact(dir))
	}
	labels := strings.Split(strings.TrimSuffix(host, ".amazonaws.com"), ".")
	for i, l := range labels {
		if l == "s3" || strings.HasPrefix(l, "s3-") {
			if i == 0 {
				return pathStyle(origin, path, dir)
			}
			return s3Prefix{bucketURL: origin, prefix: dirKey(path)}, nil
		}
	}
	return s3Prefix{}, fmt.Errorf("%w: %s", ErrNotListable, Redact(dir))
}

// pathStyle splits the path of a path-style URL into bucket and prefix.
func pathStyle(origin, path, dir string) (s3Prefix, error) {
	bucket, key, _ := strings.Cut(path, "/")
	if !validBucket(bucket) {
		return s3Prefix{}, fmt.Errorf("%w: %s: no bucket name in the path", ErrNotListable, Redact(dir))
	}
	return s3Prefix{bucketURL: origin + "/" + bucket, prefix: dirKey(key)}, nil
}

// dirKey is key as a prefix of a directory: "" or ending in "/".
func dirKey(key string) string {
	if key = strings.TrimLeft(key, "/"); key != "" && !strings.HasSuffix(key, "/") {
		key += "/"
	}
	return key
}

// Listing is the content of one S3 "directory".
type Listing struct {
	Objects []string // names of the objects directly in it
	Dirs    []string // names of the prefixes directly under it, without "/"
}

// maxListPages bounds the pages of one listing (1,000 keys each).
const maxListPages = 10_000

// ListS3 lists the S3 "directory" dir (see IsS3Dir) with ListObjectsV2, a
// page of up to 1,000 names at a time, anonymously, through the pool's
// client: under the host's concurrency limit, retried as reads are. A URL
// that is not on S3 fails with ErrNotListable.
func (p *Pool) ListS3(ctx context.Context, dir string) (Listing, error) {
	loc, err := parseS3Dir(ctx, dir, p.cfg)
	if err != nil {
		return Listing{}, err
	}
	var out Listing
	token := ""
	for page := 0; ; page++ {
		if page == maxListPages {
			return Listing{}, fmt.Errorf("source: list %s: more than %d pages", Redact(dir), maxListPages)
		}
		res, err := p.listPage(ctx, loc, token, dir)
		if err != nil {
			return Listing{}, err
		}
		for _, k := range res.Keys {
			if name, ok := strings.CutPrefix(k, loc.prefix); ok && name != "" && !strings.Contains(name, "/") {
				out.Objects = append(out.Objects, name)
			}
		}
		for _, cp := range res.Prefixes {
			if name, ok := strings.CutPrefix(cp, loc.prefix); ok {
				if name = strings.TrimSuffix(name, "/"); name != "" && !strings.Contains(name, "/") {
					out.Dirs = append(out.Dirs, name)
				}
			}
		}
		if !res.Truncated {
			return out, nil
		}
		if res.Next == "" || res.Next == token {
			return Listing{}, fmt.Errorf("%w: list %s: a truncated page with no new continuation token", ErrProtocol, Redact(dir))
		}
		token = res.Next
	}
}

// IsS3Dir reports whether dir is a URL ListS3 can list.
func (p *Pool) IsS3Dir(dir string) bool {
	if s, _ := Scheme(dir); s == "s3" {
		_, _, err := ParseS3(dir)
		return err == nil
	}
	_, err := parseS3Dir(context.Background(), dir, p.cfg)
	return err == nil
}

// maxListBody bounds one ListObjectsV2 answer: 1,000 keys of up to 1,024
// bytes each, with their XML.
const maxListBody = 4 << 20

// listPage asks for one page, retrying under the pool's Retry policy.
func (p *Pool) listPage(ctx context.Context, loc s3Prefix, token, dir string) (ListPage, error) {
	q := url.Values{"list-type": {"2"}, "prefix": {loc.prefix}, "delimiter": {"/"}}
	if token != "" {
		q.Set("continuation-token", token)
	}
	target := loc.bucketURL + "/?" + q.Encode()
	r := p.cfg.retry
	start := time.Now()
	for attempt := 0; ; attempt++ {
		page, status, err := p.listOnce(ctx, target, dir)
		if err == nil {
			return page, nil
		}
		retry := status == 0 && retryableTransport(err) || status != 0 && retryableStatus(status)
		if !retry || ctx.Err() != nil || attempt+1 >= r.MaxAttempts || time.Since(start) > r.MaxElapsed {
			return ListPage{}, err
		}
		if err := r.Wait(ctx, r.Backoff(attempt)); err != nil {
			return ListPage{}, err
		}
	}
}

func (p *Pool) listOnce(ctx context.Context, target, dir string) (ListPage, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return ListPage{}, 0, fmt.Errorf("source: list %s: %w", Redact(dir), err)
	}
	resp, err := p.cfg.client.Do(req)
	if err != nil {
		return ListPage{}, 0, fmt.Errorf("source: list %s: %w", Redact(dir), urlCause(err))
	}
	defer closeBody(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return ListPage{}, resp.StatusCode, fmt.Errorf("source: list %s: %w", Redact(dir), &HTTPError{URL: Redact(dir), Status: resp.StatusCode})
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxListBody+1))
	if err != nil {
		return ListPage{}, 0, fmt.Errorf("source: list %s: %w", Redact(dir), err)
	}
	if len(b) > maxListBody {
		return ListPage{}, 200, fmt.Errorf("%w: list %s: answer over %d bytes", ErrProtocol, Redact(dir), maxListBody)
	}
	page, err := ParseListPage(b)
	if err != nil {
		return ListPage{}, 200, fmt.Errorf("source: list %s: %w", Redact(dir), err)
	}
	return page, 200, nil
}

// ListPage is one page of a ListObjectsV2 answer.
type ListPage struct {
	Keys      []string // Contents/Key
	Prefixes  []string // CommonPrefixes/Prefix
	Truncated bool     // IsTruncated
	Next      string   // NextContinuationToken
}

// ParseListPage parses a ListObjectsV2 answer (a ListBucketResult
// document). It fails with ErrProtocol on anything else: an error
// document, HTML, a key that is not valid UTF-8 or holds a NUL.
func ParseListPage(b []byte) (ListPage, error) {
	var doc struct {
		XMLName   xml.Name
		Truncated string `xml:"IsTruncated"`
		Next      string `xml:"NextContinuationToken"`
		Contents  []struct {
			Key string `xml:"Key"`
		} `xml:"Contents"`
		Prefixes []struct {
			Prefix string `xml:"Prefix"`
		} `xml:"CommonPrefixes"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return ListPage{}, fmt.Errorf("%w: not a ListObjectsV2 answer: %v", ErrProtocol, err)
	}
	if doc.XMLName.Local != "ListBucketResult" {
		return ListPage{}, fmt.Errorf("%w: a <%s> document, not a ListObjectsV2 answer", ErrProtocol, doc.XMLName.Local)
	}
	var p ListPage
	switch strings.TrimSpace(doc.Truncated) {
	case "true":
		p.Truncated = true
	case "false", "":
	default:
		return ListPage{}, fmt.Errorf("%w: IsTruncated %q", ErrProtocol, doc.Truncated)
	}
	p.Next = doc.Next
	for _, c := range doc.Contents {
		if err := checkListName(c.Key); err != nil {
			return ListPage{}, err
		}
		p.Keys = append(p.Keys, c.Key)
	}
	for _, c := range doc.Prefixes {
		if err := checkListName(c.Prefix); err != nil {
			return ListPage{}, err
		}
		p.Prefixes = append(p.Prefixes, c.Prefix)
	}
	return p, nil
}

func checkListName(s string) error {
	if s == "" || len(s) > 1024 || strings.ContainsRune(s, 0) {
		return fmt.Errorf("%w: listed name %q: empty, over 1,024 bytes or holding NUL", ErrProtocol, s)
	}
	return nil
}
