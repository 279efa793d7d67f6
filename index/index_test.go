package index_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/internal/conformance"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/selection"
)

var ctx = context.Background()

const fixtures = "../testdata/conformance"

// hdf5Fixtures are the HDF5 files the conformance cases read.
var hdf5Fixtures = []string{"fixture.h5", "fixture-latest.h5"}

// indexed indexes a fixture beside a copy of it, with opts, and returns the
// JSON's path.
func indexed(t *testing.T, name string, opts ...index.Option) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, name)
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := index.DefaultOutput(src)
	if err := index.WriteFile(ctx, src, out, opts...); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadBack indexes every HDF5 fixture, with lindi's chunk threshold and
// with every chunk listed, and reads every conformance case of the fixture
// from the JSON.
func TestReadBack(t *testing.T) {
	cases, err := conformance.Load(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range hdf5Fixtures {
		for mode, opts := range map[string][]index.Option{"default": nil, "all chunks": {index.AllChunks()}} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				f, err := h5.Open(ctx, indexed(t, name, opts...))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				n := 0
				for _, c := range cases {
					if !slices.Contains(c.Files, name) {
						continue
					}
					n++
					want, err := c.Expected(fixtures)
					if err != nil {
						t.Fatal(err)
					}
					d, err := f.Dataset(ctx, c.Dataset)
					if err != nil {
						t.Fatalf("%s: %v", c.ID, err)
					}
					sel, err := selection.Parse(c.Selection)
					if err != nil {
						t.Fatal(err)
					}
					got, err := d.Read(ctx, sel)
					if err != nil {
						t.Fatalf("%s: %s[%s]: %v", c.ID, c.Dataset, c.Selection, err)
					}
					if err := conformance.Compare(got, want); err != nil {
						t.Errorf("%s: %s[%s]: %v", c.ID, c.Dataset, c.Selection, err)
					}
				}
				if n == 0 {
					t.Fatal("no conformance case names the fixture")
				}
			})
		}
	}
}

// TestLindiChoices checks the choices the output shares with Python lindi's
// for the fixture lindi wrote fixture.lindi.json from: the same keys for
// every group, dataset and chunk ref, the same chunk refs, the same filters.
func TestLindiChoices(t *testing.T) {
	var ours, theirs struct {
		Refs      map[string]any    `json:"refs"`
		Templates map[string]string `json:"templates"`
	}
	load := func(path string, v any) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	load(indexed(t, "fixture.h5", index.RelativeRefs()), &ours) // lindi's fixture names ./fixture.h5
	load(filepath.Join(fixtures, "fixture.lindi.json"), &theirs)
	for k, v := range theirs.Refs {
		o, ok := ours.Refs[k]
		if !ok {
			t.Errorf("key %s missing", k)
			continue
		}
		if r, isRef := v.([]any); isRef {
			if !slices.Equal(mustJSON(t, r[1:]), mustJSON(t, o.([]any)[1:])) {
				t.Errorf("%s: ref %v, lindi %v", k, o, r)
			}
		}
		if filepath.Base(k) == ".zarray" {
			for _, field := range []string{"shape", "chunks", "dtype", "filters"} {
				lz, oz := v.(map[string]any), o.(map[string]any)
				if field == "filters" && lz["compressor"] != nil {
					continue // an inline chunk: lindi compresses it with blosc, we store it raw
				}
				if a, b := mustJSON(t, lz[field]), mustJSON(t, oz[field]); !slices.Equal(a, b) {
					t.Errorf("%s %s: %s, lindi %s", k, field, b, a)
				}
			}
		}
	}
	for k := range ours.Refs {
		if _, ok := theirs.Refs[k]; !ok {
			t.Errorf("extra key %s", k)
		}
	}
	if ours.Templates["u1"] != "./fixture.h5" {
		t.Errorf("templates %v", ours.Templates)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRefNames checks how the refs name a local source: by its absolute
// path by default (what Python lindi reads), "./NAME" with RelativeRefs when
// the JSON is written beside it, and the pair then reads after a move.
func TestRefNames(t *testing.T) {
	urls := func(t *testing.T, out string) map[string]bool {
		t.Helper()
		var doc struct {
			Refs      map[string]any    `json:"refs"`
			Templates map[string]string `json:"templates"`
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for k, v := range doc.Refs {
			switch v := v.(type) {
			case []any:
				u := v[0].(string)
				if n, ok := strings.CutPrefix(u, "{{"); ok {
					u = doc.Templates[strings.TrimSuffix(n, "}}")]
				}
				seen[u] = true
			case map[string]any:
				if l, ok := v["_EXTERNAL_ARRAY_LINK"].(map[string]any); ok && strings.HasSuffix(k, ".zattrs") {
					seen[l["url"].(string)] = true
				}
			}
		}
		return seen
	}
	abs := func(t *testing.T, p string) string {
		t.Helper()
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	t.Run("default", func(t *testing.T) {
		out := indexed(t, "fixture.h5")
		want := abs(t, filepath.Join(filepath.Dir(out), "fixture.h5"))
		if got := urls(t, out); len(got) != 1 || !got[want] {
			t.Errorf("refs name %v, want only %s", got, want)
		}
	})
	t.Run("relative", func(t *testing.T) {
		out := indexed(t, "fixture.h5", index.RelativeRefs())
		if got := urls(t, out); len(got) != 1 || !got["./fixture.h5"] {
			t.Errorf("refs name %v, want only ./fixture.h5", got)
		}
		moved := t.TempDir()
		for _, name := range []string{"fixture.h5", filepath.Base(out)} {
			if err := os.Rename(filepath.Join(filepath.Dir(out), name), filepath.Join(moved, name)); err != nil {
				t.Fatal(err)
			}
		}
		f, err := h5.Open(ctx, filepath.Join(moved, filepath.Base(out)))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, p := range []string{"acquisition/ElectricalSeries/data", "misc/over_1000_chunks"} {
			d, err := f.Dataset(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Read(ctx, nil); err != nil {
				t.Errorf("%s after the move: %v", p, err)
			}
		}
	})
	t.Run("relative elsewhere", func(t *testing.T) {
		src := filepath.Join(fixtures, "fixture.h5")
		out := filepath.Join(t.TempDir(), "x.lindi.json")
		if err := index.WriteFile(ctx, src, out, index.RelativeRefs()); err != nil {
			t.Fatal(err)
		}
		if got, want := urls(t, out), abs(t, src); len(got) != 1 || !got[want] {
			t.Errorf("refs name %v, want only %s", got, want)
		}
	})
}

// TestRemote indexes a fixture served over HTTP: the refs name its URL.
func TestRemote(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir(fixtures)))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "x.lindi.json")
	if err := index.WriteFile(ctx, srv.URL+"/fixture.h5", out); err != nil {
		t.Fatal(err)
	}
	f, err := h5.Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.Read[int16](ctx, d, nil)
	if err != nil || len(a.Data) != 5946*24 {
		t.Fatalf("read %v, %v", a, err)
	}
}

// TestHostile indexes files that are not HDF5 or are cut short: each fails,
// and no output is left behind.
func TestHostile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixtures, "fixture.h5"))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"empty": nil, "text": []byte("hello"), "cut": data[:4096], "zeroed": zeroed(data, 2048, 100000)} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "x.h5")
			if err := os.WriteFile(src, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "x.lindi.json")
			err := index.WriteFile(ctx, src, out)
			if err == nil {
				t.Fatal("indexing succeeded")
			}
			if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("output left behind after %v", err)
			}
			left, _ := filepath.Glob(filepath.Join(dir, ".*tmp"))
			if len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func zeroed(b []byte, off, n int) []byte {
	c := slices.Clone(b)
	clear(c[off : off+n])
	return c
}

// TestBuildNamesAbsolute: Build without WithURL names a file opened by a
// relative path by its absolute path.
func TestBuildNamesAbsolute(t *testing.T) {
	rel := filepath.Join(fixtures, "fixture.h5")
	s, err := source.Open(ctx, rel)
	if err != nil {
		t.Fatal(err)
	}
	defer s.(interface{ Close() error }).Close()
	f, err := hdf5.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := index.Build(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Templates map[string]string `json:"templates"`
		Meta      map[string]any    `json:"generationMetadata"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Templates["u1"] != abs || doc.Meta["sourceUrl"] != abs {
		t.Errorf("templates %v, sourceUrl %v: want %s", doc.Templates, doc.Meta["sourceUrl"], abs)
	}
}
