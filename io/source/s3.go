package source

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// DefaultS3Endpoint is the endpoint template s3:// URLs are read through:
// the bucket's virtual-host endpoint over HTTPS, anonymously.
const DefaultS3Endpoint = "https://{bucket}.s3.{region}.amazonaws.com"

// s3DefaultRegion is asked for a bucket whose region is not known: S3 then
// names the bucket's region in x-amz-bucket-region.
const s3DefaultRegion = "us-east-1"

// WithS3Region sets the AWS region of the buckets s3:// URLs name. Without
// it the region comes from AWS_REGION or AWS_DEFAULT_REGION, or else from
// the bucket itself: one HEAD request per bucket, answered with its region.
func WithS3Region(region string) Option {
	return func(c *config) error {
		if !validRegion(region) {
			return fmt.Errorf("source: WithS3Region(%q): not a region name", region)
		}
		c.s3Region = region
		return nil
	}
}

// WithS3Endpoint sets the template s3:// URLs are read through (default:
// AWS_ENDPOINT_URL_S3 or else AWS_ENDPOINT_URL, path-style, as the AWS CLI
// reads them, when set; else DefaultS3Endpoint): {bucket} and {region} are replaced, and the key is
// appended as the path. It must give an http(s) URL with a host, e.g.
// "http://127.0.0.1:9000/{bucket}" for a local S3-compatible server.
func WithS3Endpoint(template string) Option {
	return func(c *config) error {
		if !strings.Contains(template, "{bucket}") {
			return fmt.Errorf("source: WithS3Endpoint(%q): no {bucket}", template)
		}
		u, err := url.Parse(s3Fill(template, "bucket", "region"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("source: WithS3Endpoint(%q): not an http(s) URL with a host and no query", template)
		}
		c.s3Endpoint = template
		return nil
	}
}

func s3Fill(template, bucket, region string) string {
	return strings.NewReplacer("{bucket}", bucket, "{region}", region).Replace(template)
}

// ParseS3 splits an s3://bucket/key URL. The bucket must be a valid bucket
// name (lower-case letters, digits, '.' and '-'; 3 to 63 of them), so that
// it can stand in a host name.
func ParseS3(name string) (bucket, key string, err error) {
	if s, _ := Scheme(name); s != "s3" || !strings.HasPrefix(name[3:], "//") {
		return "", "", fmt.Errorf("%w: %s: not s3://bucket/key", ErrScheme, Redact(name))
	}
	bucket, key, _ = strings.Cut(name[len("s3://"):], "/")
	if !validBucket(bucket) {
		return "", "", fmt.Errorf("%w: %s: bad bucket name %q", ErrScheme, Redact(name), bucket)
	}
	return bucket, key, nil
}

func validBucket(b string) bool {
	if len(b) < 3 || len(b) > 63 {
		return false
	}
	for _, c := range []byte(b) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return b[0] != '.' && b[0] != '-' && !strings.Contains(b, "..")
}

func validRegion(r string) bool {
	if r == "" || len(r) > 32 {
		return false
	}
	for _, c := range []byte(r) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// newS3 returns an HTTP source reading s3://bucket/key anonymously from the
// bucket's endpoint; it is named by the s3:// URL in errors and Stats.
func newS3(name string, c *config) (*HTTP, error) {
	bucket, key, err := ParseS3(name)
	if err != nil {
		return nil, err
	}
	template, region := c.s3Endpoint, c.s3Region
	if ep := s3EndpointFromEnv(); template == "" && ep != "" {
		// As the AWS CLI does: path-style requests to the endpoint, whose
		// region does not matter.
		template, region = ep+"/{bucket}", cmp.Or(region, s3DefaultRegion)
	}
	if template == "" {
		template = DefaultS3Endpoint
	}
	for _, env := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if v := os.Getenv(env); region == "" && validRegion(v) {
			region = v
		}
	}
	s := &s3Regions{client: c.client, template: template, bucket: bucket, path: (&url.URL{Path: "/" + key}).EscapedPath()}
	s.region.Store(&region)
	first := region
	if first == "" {
		first = s3DefaultRegion
	}
	h, err := newHTTP(s.url(first, s.path), c)
	if err != nil {
		return nil, err
	}
	h.name = Redact(name)
	h.s3 = s
	h.res.resolve = s.resolve
	return h, nil
}

// s3RegionCache remembers the region of each bucket (by endpoint template),
// so that one process asks once.
var s3RegionCache sync.Map

// s3Regions gives an object's URL at its bucket's regional endpoint.
type s3Regions struct {
	client                 *http.Client
	template, bucket, path string
	region                 atomic.Pointer[string] // as configured; "" to ask the bucket
}

// url is the URL of path (escaped, from "/") at the bucket's endpoint in region.
func (s *s3Regions) url(region, path string) string {
	return strings.TrimRight(s3Fill(s.template, s.bucket, region), "/") + path
}

// cacheKey is the bucket's key in s3RegionCache.
func (s *s3Regions) cacheKey() string { return s.template + "\x00" + s.bucket }

// moved is told that the endpoint answered 301, S3's word for a wrong
// region: the configured region is dropped, and the bucket is asked.
func (s *s3Regions) moved() {
	empty := ""
	s.region.Store(&empty)
	s3RegionCache.Delete(s.cacheKey())
}

// resolve gives the object's URL at the configured region's endpoint or,
// with none, asks the bucket (HEAD) for its region the first time.
func (s *s3Regions) resolve(ctx context.Context, u string) (string, error) {
	if r := *s.region.Load(); r != "" {
		return s.url(r, s.path), nil
	}
	key := s.cacheKey()
	region, ok := s3RegionCache.Load(key)
	if !ok {
		r, err := s.ask(ctx)
		if err != nil {
			return "", err
		}
		region, _ = s3RegionCache.LoadOrStore(key, r)
	}
	return s.url(region.(string), s.path), nil
}

// ask sends HEAD to the bucket at the default region's endpoint: S3 names
// the bucket's region in x-amz-bucket-region whatever the status (200, 301,
// 403). Without that header the default region stands.
func (s *s3Regions) ask(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, s.url(s3DefaultRegion, "/"), nil)
	if err != nil {
		return "", fmt.Errorf("source: s3://%s: %w", s.bucket, err)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("source: s3://%s: bucket region: %w", s.bucket, urlCause(err))
	}
	resp.Body.Close()
	if r := resp.Header.Get("X-Amz-Bucket-Region"); validRegion(r) {
		return r, nil
	}
	return s3DefaultRegion, nil
}
