package dandi

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func seed(f *testing.F, name string) {
	f.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

// FuzzParseAddress checks that no input panics and that what parses prints
// (String) as an address that parses back to the same.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{
		"dandi://DANDI/000409@draft", "dandi://dandi/000409@0.230101.1200/sub-01/x.nwb", "dandi://dandi-sandbox/000409/sub-01/",
		"https://api.dandiarchive.org/api/dandisets/000409/versions/draft/assets/?path=sub-01/x.nwb",
		"https://api.dandiarchive.org/api/assets/0a8c5c2e-3d5b-4a7e-9f0e-1c2d3e4f5a6b/download/",
		"https://api.dandiarchive.org/api/dandisets/000409/versions/draft/assets/0a8c5c2e-3d5b-4a7e-9f0e-1c2d3e4f5a6b/",
		"https://dandiarchive.org/dandiset/000409/draft/files?location=sub-01%2F", "https://dandiarchive.org/#/dandiset/000409",
	} {
		f.Add(s)
	}
	r := registry(Instances())
	f.Fuzz(func(t *testing.T, s string) {
		a, err := r.parse(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error of several lines: %v", s, err)
			}
			return
		}
		b, err := r.parse(a.String())
		if err != nil || b != a {
			t.Fatalf("%q parses as %+v, whose String %q parses as %+v, %v", s, a, a.String(), b, err)
		}
		if a.IsFolder() && a.AssetID != "" {
			t.Fatalf("%q: a folder with an asset ID", s)
		}
	})
}

// FuzzDecodePage checks that a listing page either decodes into assets
// with valid IDs and paths or fails with ErrResponse.
func FuzzDecodePage(f *testing.F) {
	seed(f, "testdata/page.json")
	f.Add([]byte(`{"count": 0, "next": null, "previous": null, "results": []}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodePage(b)
		if err != nil {
			return
		}
		for _, e := range p.Results {
			if checkAssetID(e.AssetID) != nil || checkPath(e.Path) != nil || e.Path == "" || e.Size < 0 {
				t.Fatalf("accepted %+v", e)
			}
		}
	})
}

// FuzzDecodeMeta checks the decoding of an asset's metadata.
func FuzzDecodeMeta(f *testing.F) {
	seed(f, "testdata/asset.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeMeta(b, "0a8c5c2e-3d5b-4a7e-9f0e-1c2d3e4f5a6b")
		if err != nil {
			return
		}
		if m.ContentSize < 0 || checkPath(m.Path) != nil {
			t.Fatalf("accepted %+v", m)
		}
		storeIDs(m)
	})
}

// FuzzCheckRefs checks that a precomputed LINDI file is accepted only when
// its every ref names the allowed URL.
func FuzzCheckRefs(f *testing.F) {
	seed(f, "danditest/testdata/tables.nwb.lindi.json")
	f.Add([]byte(`{"refs": {"a/0": ["https://x/blob", 0, 10], ".zattrs": {"_EXTERNAL_ARRAY_LINK": {"url": "https://x/blob"}}}, "templates": {"u": "https://x/blob"}}`))
	allowed := []string{"./tables.nwb", "https://x/blob"}
	f.Fuzz(func(t *testing.T, b []byte) {
		if checkRefs(b, allowed) != nil {
			return
		}
		// An independent reading: every [url, …] ref, its templates
		// substituted, names an allowed URL.
		var d struct {
			Refs      map[string]any    `json:"refs"`
			Templates map[string]string `json:"templates"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("accepted a document encoding/json refuses: %v", err)
		}
		for k, v := range d.Refs {
			l, ok := v.([]any)
			if !ok || len(l) == 0 {
				continue
			}
			u, ok := l[0].(string)
			if !ok {
				t.Fatalf("accepted ref %q without a URL", k)
			}
			for name, val := range d.Templates {
				u = strings.ReplaceAll(u, "{{"+name+"}}", val)
			}
			if !slices.Contains(allowed, u) {
				t.Fatalf("accepted ref %q to %q", k, u)
			}
		}
	})
}

// FuzzDecodeVersions checks that a page of versions either decodes into
// versions the archive could name, with no negative count or size, or
// fails with ErrResponse.
func FuzzDecodeVersions(f *testing.F) {
	seed(f, "testdata/versions.json")
	f.Add([]byte(`{"count": 0, "next": null, "previous": null, "results": []}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeVersions(b)
		if err != nil {
			if !errors.Is(err, ErrResponse) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one ErrResponse line", err)
			}
			return
		}
		if *p.Count < 0 {
			t.Fatalf("accepted count %d", *p.Count)
		}
		for _, v := range p.Results {
			if !isVersion(v.Version) || v.AssetCount < 0 || v.Size < 0 {
				t.Fatalf("accepted %+v", v)
			}
		}
	})
}

// FuzzPager follows listings a hostile server makes up: each page's
// declared count, number of results and next link come from the input
// (next an index into the pages, or the end). Whatever they are, the
// pager stops within count+1 pages and never follows a link twice.
func FuzzPager(f *testing.F) {
	f.Add([]byte{6, 3, 1, 3, 2, 0, 0})
	f.Add([]byte{6, 3, 0})
	f.Add([]byte{100, 3, 1, 3, 0})
	f.Add([]byte{2, 0, 1, 0, 2, 0, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 1 {
			return
		}
		count := int(b[0])
		const api = "https://api.example.org/api"
		url := func(i int) string { return api + "/x/?page=" + strconv.Itoa(i) }
		p := pager{apiURL: api}
		seen := map[string]bool{}
		cur, steps := url(0), 0
		for i := 1; ; i += 2 {
			if seen[cur] {
				t.Fatalf("followed %s twice", cur)
			}
			seen[cur] = true
			steps++
			n, link := 0, -1
			if i < len(b) {
				n = int(b[i])
			}
			if i+1 < len(b) {
				link = int(b[i+1]) - 1
			}
			var next *string
			if link >= 0 {
				s := url(link)
				next = &s
			}
			u, err := p.follow(cur, count, n, next)
			if err != nil {
				if !errors.Is(err, ErrResponse) {
					t.Fatalf("error %v is not ErrResponse", err)
				}
				return
			}
			if u == "" {
				return
			}
			if steps > count+1 {
				t.Fatalf("%d pages for a count of %d", steps, count)
			}
			cur = u
		}
	})
}
