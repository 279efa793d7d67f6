package lindibeam

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/dandi/danditest"
	"github.com/lindigo/lindi/index"
)

// TestIndexDandiset indexes a dandiset of the stand-in archive: its NWB
// assets (not its Zarr store, text files or README) each into the asset's
// path plus .lindi.json, with the refs lindi index writes for the asset;
// a dandiset the archive lacks goes to the side output.
func TestIndexDandiset(t *testing.T) {
	srv := danditest.Standard(t)
	srv.Setenv(t, "")
	set := "dandi://" + danditest.Instance + "/" + danditest.Public
	missing := "dandi://" + danditest.Instance + "/999999"
	dir := t.TempDir()
	out, manifest := filepath.Join(dir, "out"), filepath.Join(dir, "manifest.jsonl")
	runIndex(t, []string{set, missing}, out, manifest)

	m, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*string{}
	for _, l := range strings.Split(strings.TrimSpace(string(m)), "\n") {
		var e struct {
			Source, Output string
			Error          *string
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		if e.Source == missing {
			if e.Error == nil {
				t.Errorf("the missing dandiset has no error: %s", l)
			}
			continue
		}
		rel, err := filepath.Rel(out, e.Output)
		if err != nil {
			t.Fatal(err)
		}
		got[filepath.ToSlash(rel)] = e.Error
		if e.Error != nil {
			t.Errorf("%s: %s", e.Source, *e.Error)
			continue
		}
		alone := filepath.Join(dir, "alone.lindi.json")
		if err := index.WriteFile(context.Background(), e.Source, alone, index.WithTool("lindi-go")); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(alone)
		b, err := os.ReadFile(e.Output)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, refsOf(t, a), refsOf(t, b)) {
			t.Errorf("%s: refs differ from lindi index's", e.Source)
		}
	}
	for _, p := range []string{danditest.Ecephys, danditest.Behavior, danditest.Sub02} {
		if _, ok := got[danditest.Public+"/draft/"+p+".lindi.json"]; !ok {
			t.Errorf("no output for %s; outputs: %v", p, got)
		}
	}
	if len(got) != 3 {
		t.Errorf("outputs %v, want the 3 NWB assets", got)
	}
}

// TestIndexDistinctNames indexes two dandisets holding the same asset path,
// and two versions of one: each source gets its own output (dandiset and
// version in its path), and the manifest has a line per source.
func TestIndexDistinctNames(t *testing.T) {
	nwbFile := danditest.NWB()
	srv := danditest.New(t,
		danditest.Dandiset{ID: "000001", Draft: []danditest.Asset{{Path: "sub-01/a.nwb", Data: nwbFile}},
			Published: map[string][]danditest.Asset{"0.230101.1200": {{Path: "sub-01/a.nwb", Data: nwbFile}}}},
		danditest.Dandiset{ID: "000002", Draft: []danditest.Asset{{Path: "sub-01/a.nwb", Data: nwbFile}}},
	)
	srv.Setenv(t, "")
	at := func(set string) string { return "dandi://" + danditest.Instance + "/" + set }
	dir := t.TempDir()
	out, manifest := filepath.Join(dir, "out"), filepath.Join(dir, "manifest.jsonl")
	runIndex(t, []string{at("000001"), at("000001@0.230101.1200"), at("000002")}, out, manifest)
	m, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(m), "\n") != 3 || strings.Contains(string(m), `"error":"`) {
		t.Errorf("manifest:\n%s", m)
	}
	for _, p := range []string{"000001/draft", "000001/0.230101.1200", "000002/draft"} {
		if _, err := os.Stat(filepath.Join(out, p, "sub-01/a.nwb.lindi.json")); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestExpandShard expands a dandiset, an asset of its published version and
// a local file in the shards of 2 and of 3: each shard holds the dandiset's
// NWB assets dandi.WithShard (lindi ls --shard) gives it, the shards of N
// are disjoint and make up the whole, the asset is in one shard of each N,
// and the local file, which is not split, fails in every shard, named.
func TestExpandShard(t *testing.T) {
	srv := danditest.Standard(t)
	srv.Setenv(t, "")
	set := "dandi://" + danditest.Instance + "/" + danditest.Public
	one := set + "@" + danditest.Published + "/" + danditest.Ecephys
	local := "../../testdata/nwb/tables.nwb"
	expand := func(sh Shard) (names []string, failed string) {
		t.Helper()
		out := fmt.Sprintf("memfs://shard/%d-%d", sh.I, sh.N)
		p, s := beam.NewPipelineWithRoot()
		assets, bad := ExpandShard(s, sh, beam.CreateList(s, []string{set, one, local}))
		WriteJSONL(s, out+".assets", assets)
		WriteJSONL(s, out+".failed", bad)
		if err := ptest.Run(p); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(readOut(t, out+".assets"))), "\n") {
			var a Asset
			if l != "" && json.Unmarshal([]byte(l), &a) == nil {
				names = append(names, a.Name)
			}
		}
		return names, string(readOut(t, out+".failed"))
	}
	whole, _ := expand(Shard{})
	slices.Sort(whole)
	if len(whole) != 5 { // the draft's 3 NWB assets, the published one, the local file
		t.Fatalf("whole: %q", whole)
	}
	for _, n := range []int{2, 3} {
		var union []string
		for i := range n {
			names, failed := expand(Shard{I: i, N: n})
			union = append(union, names...)
			if strings.Count(failed, "\n") != 1 || !strings.Contains(failed, local) || !strings.Contains(failed, "only DANDI assets") {
				t.Errorf("shard %d/%d failures:\n%s", i, n, failed)
			}
			var want []string
			for a, err := range dandi.Assets(context.Background(), set, dandi.WithGlob("*.nwb"), dandi.WithShard(i, n)) {
				if err != nil {
					t.Fatal(err)
				}
				if !a.IsZarr() {
					want = append(want, danditest.Public+"/draft/"+a.Path)
				}
			}
			var got []string
			for _, name := range names {
				if strings.HasPrefix(name, danditest.Public+"/draft/") {
					got = append(got, name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("shard %d/%d: %q, lindi ls --shard lists %q", i, n, got, want)
			}
		}
		slices.Sort(union)
		if w := slices.DeleteFunc(slices.Clone(whole), func(s string) bool { return s == "tables.nwb" }); !slices.Equal(union, w) {
			t.Errorf("shards of %d: %q, want %q", n, union, w)
		}
	}
	_, s := beam.NewPipelineWithRoot()
	for _, bad := range []Shard{{I: 2, N: 2}, {I: -1, N: 2}, {I: 1, N: 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("shard %v accepted", bad)
				}
			}()
			ExpandShard(s, bad, beam.CreateList(s, []string{set}))
		}()
	}
}
