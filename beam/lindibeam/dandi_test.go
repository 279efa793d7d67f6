package lindibeam

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
