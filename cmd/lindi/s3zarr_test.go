package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/lindigo/lindi/dandi/danditest"
)

// writeZarrStore writes a Zarr store of the given version (2 or 3), with no
// consolidated metadata, into dir: 55 arrays at the root, a group "sub" of
// 52 arrays and a group "inner" holding array x, and a prefix that is no
// node.
func writeZarrStore(t *testing.T, dir string, version int) {
	t.Helper()
	put := func(key string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	group := func(key string) {
		if version == 2 {
			put(key+".zgroup", []byte(`{"zarr_format": 2}`))
			put(key+".zattrs", []byte(`{"where": "`+key+`"}`))
		} else {
			put(key+"zarr.json", []byte(`{"zarr_format": 3, "node_type": "group", "attributes": {"where": "`+key+`"}}`))
		}
	}
	array := func(key string, v int32) {
		chunk := make([]byte, 16)
		for i := range 4 {
			binary.LittleEndian.PutUint32(chunk[4*i:], uint32(v+int32(i)))
		}
		if version == 2 {
			put(key+"/.zarray", []byte(`{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<i4", "compressor": null, "filters": null, "fill_value": 0, "order": "C"}`))
			put(key+"/0", chunk)
		} else {
			put(key+"/zarr.json", []byte(`{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int32",
				"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
				"chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
				"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], "fill_value": 0}`))
			put(key+"/c/0", chunk)
		}
	}
	group("")
	for i := range 55 {
		array(fmt.Sprintf("a%02d", i), int32(i))
	}
	group("sub/")
	for i := range 52 {
		array(fmt.Sprintf("sub/b%02d", i), int32(100+i))
	}
	group("sub/inner/")
	array("sub/inner/x", 7)
	put("notanode/readme.txt", []byte("not Zarr"))
}

// s3With serves a gofakes3 bucket "zarrs" holding the stores of dirs (name
// → local directory) on 127.0.0.1 and returns its endpoint.
func s3With(t *testing.T, dirs map[string]string) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("zarrs"); err != nil {
		t.Fatal(err)
	}
	for name, dir := range dirs {
		err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			_, err = backend.PutObject("zarrs", name+"/"+filepath.ToSlash(rel), map[string]string{}, bytes.NewReader(b), int64(len(b)), nil)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return srv.URL
}

// Zarr v2 and v3 stores with no consolidated metadata on S3 are listed:
// ls -r, info and cat of s3:// URLs (AWS_ENDPOINT_URL_S3 naming a local S3
// server) and of path-style URLs at that endpoint equal the local store's;
// so do DANDI Zarr assets whose contentUrl is such a store; over a plain
// HTTP server that cannot list, ls fails with one line naming
// the store and what it lacks.
func TestZarrOnS3Listed(t *testing.T) {
	root := t.TempDir()
	local := map[string]string{"v2.zarr": filepath.Join(root, "v2.zarr"), "v3.zarr": filepath.Join(root, "v3.zarr")}
	writeZarrStore(t, local["v2.zarr"], 2)
	writeZarrStore(t, local["v3.zarr"], 3)
	endpoint := s3With(t, local)
	t.Setenv("AWS_ENDPOINT_URL_S3", endpoint)
	plain := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer plain.Close()
	// DANDI Zarr assets whose contentUrl is the store on the S3 server.
	archive := danditest.New(t, danditest.Dandiset{ID: "000999", Draft: []danditest.Asset{
		{Path: "sub-99/sub-99.v2.nwb.zarr", Zarr: map[string][]byte{}, URL: endpoint + "/zarrs/v2.zarr/"},
		{Path: "sub-99/sub-99.v3.nwb.zarr", Zarr: map[string][]byte{}, URL: endpoint + "/zarrs/v3.zarr/"},
	}})
	archive.Setenv(t, "")
	asset := map[string]string{"v2.zarr": dandiInst + "000999/sub-99/sub-99.v2.nwb.zarr", "v3.zarr": dandiInst + "000999/sub-99/sub-99.v3.nwb.zarr"}
	for _, name := range []string{"v2.zarr", "v3.zarr"} {
		for _, remote := range []string{"s3://zarrs/" + name, endpoint + "/zarrs/" + name, asset[name]} {
			for _, args := range [][]string{{"ls", "-r"}, {"info"}, {"info", "", "/sub"}, {"cat", "", "/sub/inner/x"}, {"cat", "", "/a54"}} {
				run := func(file string) (int, string, string) {
					a := append([]string{}, args...)
					if len(a) > 1 && a[1] == "" {
						a[1] = file
					} else {
						a = append(a, file)
					}
					return lindi(a...)
				}
				wantCode, want, _ := run(local[name])
				code, got, stderr := run(remote)
				if wantCode != 0 || code != 0 || got != want {
					t.Errorf("%s %v: exit %d, stderr %q; output equal to the local store's %v", remote, args, code, stderr, got == want)
				}
				if args[0] == "ls" && strings.Count(got, "\n") < 110 {
					t.Errorf("%s: ls -r lists %d lines", remote, strings.Count(got, "\n"))
				}
			}
		}
		url := plain.URL + "/" + name
		code, stdout, stderr := lindi("ls", "-r", url)
		lack := ".zmetadata"
		if name == "v3.zarr" {
			lack = "zarr.json"
		}
		if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, url) || !strings.Contains(stderr, lack) {
			t.Errorf("plain HTTP %s: exit %d, stdout %q, stderr %q; want exit 1 and one line naming the store and %s", url, code, stdout, stderr, lack)
		}
	}
}
