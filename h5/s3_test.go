package h5_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/source"
)

// TestS3 opens an HDF5 file by its s3:// URL, and a LINDI document served
// over HTTP whose refs name s3:// URLs, against a fake S3 endpoint; a remote
// document still cannot name a local file.
func TestS3(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "testdata", "conformance")
	h5data, err := os.ReadFile(filepath.Join(dir, "fixture.h5"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(dir, "fixture.lindi.json"))
	if err != nil {
		t.Fatal(err)
	}
	s3doc := bytes.ReplaceAll(doc, []byte(`"./fixture.h5"`), []byte(`"s3://lab-data/nwb/fixture.h5"`))
	localdoc := bytes.ReplaceAll(doc, []byte(`"./fixture.h5"`), []byte(`"file:///etc/passwd"`))
	objects := map[string][]byte{
		"/us-west-2/lab-data/nwb/fixture.h5": h5data,
		"/docs/s3.lindi.json":                s3doc,
		"/docs/local.lindi.json":             localdoc,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := objects[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	defer srv.Close()
	opt := h5.WithSourceOptions(source.WithS3Endpoint(srv.URL+"/{region}/{bucket}"), source.WithS3Region("us-west-2"))

	named, err := h5.Open(ctx, filepath.Join(dir, "fixture.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer named.Close()
	want := readF64(t, named, "misc/f4_2d_edge")

	f, err := h5.Open(ctx, "s3://lab-data/nwb/fixture.h5", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := readF64(t, f, "misc/f4_2d_edge"); !slices.Equal(got, want) {
		t.Errorf("s3:// HDF5 read differs")
	}
	if st := f.Stats(); len(st) != 1 || st[0].Name != "s3://lab-data/nwb/fixture.h5" || st[0].Requests == 0 {
		t.Errorf("Stats = %+v, want the s3 URL's requests", st)
	}

	g, err := h5.Open(ctx, srv.URL+"/docs/s3.lindi.json", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if got := readF64(t, g, "misc/f4_2d_edge"); !slices.Equal(got, want) {
		t.Errorf("LINDI with s3:// refs read differs")
	}

	l, err := h5.Open(ctx, srv.URL+"/docs/local.lindi.json", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d, err := l.Dataset(ctx, "misc/f4_2d_edge")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, nil); err == nil || !strings.Contains(err.Error(), "remote document") {
		t.Errorf("a remote document reached a local file: %v", err)
	}
}
