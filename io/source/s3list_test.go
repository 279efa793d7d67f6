package source

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestParseS3Dir(t *testing.T) {
	c, err := newConfig([]Option{WithResolver(nil)})
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]s3Prefix{
		"https://dandiarchive.s3.amazonaws.com/zarr/abc/":        {"https://dandiarchive.s3.amazonaws.com", "zarr/abc/"},
		"https://my-bucket.s3.us-west-2.amazonaws.com/a/b.zarr":  {"https://my-bucket.s3.us-west-2.amazonaws.com", "a/b.zarr/"},
		"https://s3.us-west-2.amazonaws.com/my-bucket/a/b.zarr/": {"https://s3.us-west-2.amazonaws.com/my-bucket", "a/b.zarr/"},
		"https://s3.amazonaws.com/my-bucket/":                    {"https://s3.amazonaws.com/my-bucket", ""},
		"https://my.bucket.s3-eu-west-1.amazonaws.com/x/":        {"https://my.bucket.s3-eu-west-1.amazonaws.com", "x/"},
	} {
		got, err := parseS3Dir(context.Background(), dir, c)
		if err != nil || got != want {
			t.Errorf("parseS3Dir(%q) = %+v, %v; want %+v", dir, got, err, want)
		}
	}
	for _, dir := range []string{"https://example.org/bucket/x/", "https://ec2.amazonaws.com/x/", "ftp://s3.amazonaws.com/b/", "https://s3.amazonaws.com/B@d/x"} {
		if _, err := parseS3Dir(context.Background(), dir, c); !errors.Is(err, ErrNotListable) {
			t.Errorf("parseS3Dir(%q): err %v, want ErrNotListable", dir, err)
		}
	}
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000/")
	got, err := parseS3Dir(context.Background(), "http://127.0.0.1:9000/bkt/store.zarr", c)
	if want := (s3Prefix{"http://127.0.0.1:9000/bkt", "store.zarr/"}); err != nil || got != want {
		t.Errorf("at AWS_ENDPOINT_URL: %+v, %v; want %+v", got, err, want)
	}
	got, err = parseS3Dir(context.Background(), "s3://bkt/store.zarr", c)
	if want := (s3Prefix{"http://127.0.0.1:9000/bkt", "store.zarr/"}); err != nil || got != want {
		t.Errorf("s3:// at AWS_ENDPOINT_URL: %+v, %v; want %+v", got, err, want)
	}
	t.Setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9001")
	if got, err = parseS3Dir(context.Background(), "s3://bkt/store.zarr", c); err != nil || got.bucketURL != "http://127.0.0.1:9001/bkt" {
		t.Errorf("AWS_ENDPOINT_URL_S3 does not win: %+v, %v", got, err)
	}
}

// ListS3 follows continuation tokens, asks with list-type=2, the prefix and
// the delimiter, and refuses what is not a listing.
func TestListS3Pages(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		asked = append(asked, r.URL.RawQuery)
		if r.URL.Path != "/bkt/" || q.Get("list-type") != "2" || q.Get("delimiter") != "/" || q.Get("prefix") != "s.zarr/" {
			http.Error(w, "bad request "+r.URL.String(), 400)
			return
		}
		page := 0
		fmt.Sscan(q.Get("continuation-token"), &page)
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
		for i := range 3 {
			fmt.Fprintf(&b, `<CommonPrefixes><Prefix>s.zarr/g%d_%d/</Prefix></CommonPrefixes>`, page, i)
		}
		fmt.Fprintf(&b, `<Contents><Key>s.zarr/.zgroup%d</Key></Contents>`, page)
		if page < 2 {
			fmt.Fprintf(&b, `<IsTruncated>true</IsTruncated><NextContinuationToken>%d</NextContinuationToken>`, page+1)
		} else {
			b.WriteString(`<IsTruncated>false</IsTruncated>`)
		}
		b.WriteString(`</ListBucketResult>`)
		w.Write([]byte(b.String()))
	}))
	defer srv.Close()
	t.Setenv("AWS_ENDPOINT_URL_S3", srv.URL)
	p, err := NewPool(WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.ListS3(context.Background(), "s3://bkt/s.zarr")
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 3 || len(l.Dirs) != 9 || l.Dirs[8] != "g2_2" || len(l.Objects) != 3 || l.Objects[0] != ".zgroup0" {
		t.Fatalf("asked %q, listing %+v", asked, l)
	}
	if _, err := p.ListS3(context.Background(), srv.URL+"/bkt/other/"); err == nil || !strings.Contains(err.Error(), "400") {
		t.Fatalf("a 400: err %v", err)
	}
}

func TestParseListPage(t *testing.T) {
	for _, doc := range []string{
		`<Error><Code>AccessDenied</Code></Error>`,
		`<html><body>Index of /</body></html>`,
		`not xml`,
		`<ListBucketResult><IsTruncated>maybe</IsTruncated></ListBucketResult>`,
		`<ListBucketResult><Contents><Key></Key></Contents></ListBucketResult>`,
	} {
		if _, err := ParseListPage([]byte(doc)); !errors.Is(err, ErrProtocol) {
			t.Errorf("ParseListPage(%q): err %v, want ErrProtocol", doc, err)
		}
	}
}

func FuzzParseListPage(f *testing.F) {
	f.Add([]byte(`<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>x</NextContinuationToken><Contents><Key>a/b</Key></Contents><CommonPrefixes><Prefix>a/c/</Prefix></CommonPrefixes></ListBucketResult>`))
	f.Add([]byte(`<Error><Code>NoSuchBucket</Code></Error>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseListPage(b)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error %v does not wrap ErrProtocol", err)
			}
			return
		}
		for _, k := range append(p.Keys, p.Prefixes...) {
			if k == "" || len(k) > 1024 || strings.ContainsRune(k, 0) {
				t.Fatalf("name %q passed", k)
			}
		}
	})
}
