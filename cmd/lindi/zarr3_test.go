package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/internal/conformance"
)

const zarr3Fixtures = "../../testdata/zarr3"

// TestZarr3Cat reads every Zarr v3 case through "lindi cat -o x.npy", from
// the directory stores and over HTTP, with no flag saying the format.
func TestZarr3Cat(t *testing.T) {
	cases, err := conformance.Load(zarr3Fixtures)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(zarr3Fixtures)))
	defer srv.Close()
	dir := t.TempDir()
	for _, base := range []string{zarr3Fixtures, srv.URL} {
		for _, c := range cases {
			want, err := c.Expected(zarr3Fixtures)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range c.Files {
				where := "local"
				if base == srv.URL {
					where = "http"
				}
				t.Run(where+"/"+name+"/"+c.ID, func(t *testing.T) {
					out := filepath.Join(dir, c.ID+".npy")
					code, _, stderr := lindi("cat", "-o", out, base+"/"+name, c.Dataset, c.Selection)
					if code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					got, err := conformance.ReadNPY(out)
					if err != nil {
						t.Fatal(err)
					}
					if err := conformance.Compare(got, want); err != nil {
						t.Fatalf("%s[%s]: %v", c.Dataset, c.Selection, err)
					}
				})
			}
		}
	}
}

// TestZarr3LsInfo lists a v3 store and describes a sharded array in it.
func TestZarr3LsInfo(t *testing.T) {
	store := filepath.Join(zarr3Fixtures, "fixture.zarr3")
	code, out, stderr := lindi("ls", "-r", store)
	if code != 0 {
		t.Fatalf("ls: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"/hierarchy/g1/g2/g3/leaf", "/sharding/end_gzip", "/strings/vlen_utf8", "/misc/empty"} {
		if !strings.Contains(out, want+" ") {
			t.Errorf("ls -r lacks %s:\n%s", want, out)
		}
	}
	code, out, stderr = lindi("info", store, "sharding/end_gzip")
	if code != 0 {
		t.Fatalf("info: exit %d: %s", code, stderr)
	}
	var info struct {
		Shape  []int    `json:"shape"`
		DType  string   `json:"dtype"`
		Chunks []int    `json:"chunks"`
		Codecs []string `json:"codecs"`
		Fill   int      `json:"fill_value"`
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatalf("info: %v:\n%s", err, out)
	}
	if info.DType != "<i4" || info.Fill != -1 || len(info.Shape) != 2 || info.Shape[0] != 70 || info.Shape[1] != 45 ||
		len(info.Chunks) != 2 || info.Chunks[0] != 8 || info.Chunks[1] != 10 ||
		strings.Join(info.Codecs, ",") != "sharding_indexed,bytes,gzip" {
		t.Errorf("info: %+v", info)
	}
	code, out, stderr = lindi("cat", store, "strings/vlen_utf8", "0:4")
	if code != 0 || !strings.Contains(out, `"emoji 🧠🔬"`) {
		t.Errorf("cat: exit %d: %s%s", code, out, stderr)
	}
}
