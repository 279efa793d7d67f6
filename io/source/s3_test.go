package source

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeS3 serves objects path-style at /REGION/BUCKET/KEY for a bucket in
// region, and answers HEAD of the bucket at any region with its region, as
// S3 does (301 from the wrong one).
func fakeS3(t *testing.T, region, bucket string, objects map[string]string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var heads atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 3)
		if len(parts) < 2 || parts[1] != bucket {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodHead {
			heads.Add(1)
			w.Header().Set("X-Amz-Bucket-Region", region)
			if parts[0] != region {
				w.WriteHeader(http.StatusMovedPermanently)
			}
			return
		}
		if parts[0] != region {
			w.WriteHeader(http.StatusMovedPermanently)
			return
		}
		body, ok := objects[parts[len(parts)-1]]
		if !ok || len(parts) != 3 {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &heads
}

// TestS3 reads s3:// URLs through an injected endpoint, with the region
// from an option, the environment or the bucket's answer.
func TestS3(t *testing.T) {
	ctx := context.Background()
	srv, heads := fakeS3(t, "eu-west-2", "my-bucket", map[string]string{"a b.txt": "hello, s3"})
	endpoint := WithS3Endpoint(srv.URL + "/{region}/{bucket}")
	read := func(t *testing.T, name string, opts ...Option) (string, error) {
		t.Helper()
		s, err := Open(ctx, name, append([]Option{endpoint, WithRetry(noSleep())}, opts...)...)
		if err != nil {
			return "", err
		}
		p := make([]byte, 2)
		n, err := s.ReadAt(ctx, p, 7)
		return string(p[:n]), err
	}
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	if got, err := read(t, "s3://my-bucket/a b.txt", WithS3Region("eu-west-2")); err != nil || got != "s3" {
		t.Fatalf("with the region given: %q, %v", got, err)
	}
	if heads.Load() != 0 {
		t.Errorf("asked the bucket its region although it was given")
	}
	t.Setenv("AWS_DEFAULT_REGION", "eu-west-2")
	if got, err := read(t, "s3://my-bucket/a b.txt"); got != "s3" {
		t.Errorf("with AWS_DEFAULT_REGION: %q, %v", got, err)
	}
	t.Setenv("AWS_DEFAULT_REGION", "")
	for range 2 {
		if got, err := read(t, "s3://my-bucket/a b.txt"); got != "s3" {
			t.Errorf("with the bucket's region: %q, %v", got, err)
		}
	}
	if heads.Load() != 1 {
		t.Errorf("asked the bucket its region %d times, want once", heads.Load())
	}
	// A wrong region (AWS_REGION set for another account, say): S3 answers
	// 301 and the bucket is asked once.
	before := heads.Load()
	if got, err := read(t, "s3://my-bucket/a b.txt", WithS3Region("us-west-1")); got != "s3" || err != nil {
		t.Errorf("with a wrong region: %q, %v", got, err)
	}
	if heads.Load() != before+1 {
		t.Errorf("a wrong region led to %d questions to the bucket, want 1", heads.Load()-before)
	}
	_, err := read(t, "s3://my-bucket/missing", WithS3Region("eu-west-2"))
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 404 || !strings.Contains(err.Error(), "s3://my-bucket/missing") {
		t.Errorf("missing key: %v, want a 404 naming the s3 URL", err)
	}
	for _, bad := range []string{"s3://", "s3://UPPER/x", "s3://a/x", "s3://evil.com#/x", "s3:/bucket/x"} {
		if _, err := Open(ctx, bad, endpoint); !errors.Is(err, ErrScheme) {
			t.Errorf("%s: err = %v, want ErrScheme", bad, err)
		}
	}
	for _, bad := range []Option{WithS3Endpoint("https://s3.example.com"), WithS3Endpoint("ftp://{bucket}.x"), WithS3Region("EU WEST"), WithS3Region("")} {
		if _, err := NewPool(bad); err == nil {
			t.Errorf("a bad S3 option was accepted")
		}
	}
	if s, err := Open(ctx, "s3://dandiarchive/blobs/x"); err != nil || s.(*HTTP).url != "https://dandiarchive.s3.us-east-1.amazonaws.com/blobs/x" {
		t.Errorf("default endpoint: %v", err)
	}
}
