package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/dandi/danditest"
	"github.com/lindigo/lindi/io/source"
)

const dandiInst = "dandi://" + danditest.Instance + "/"

func TestLsDandiset(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	code, out, errOut := lindi("ls", dandiInst+danditest.Public+"@draft")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines, want 8:\n%s", len(lines), out)
	}
	versions := []string{
		"# version draft, modified 2023-01-01 12:00 UTC, 6 assets, listed",
		"# version " + danditest.Published + ", published 2023-01-01 12:00 UTC, 1 asset",
	}
	if !slices.Equal(lines[:2], versions) {
		t.Errorf("versions %q, want %q", lines[:2], versions)
	}
	want := danditest.Ecephys + "\t53096\t" + s.AssetID(danditest.Public, "draft", danditest.Ecephys)
	if lines[4] != want {
		t.Errorf("line 5 %q, want %q", lines[4], want)
	}
	_, out, _ = lindi("ls", dandiInst+danditest.Public+"@"+danditest.Published)
	if !strings.HasSuffix(strings.Split(out, "\n")[1], "1 asset, listed") {
		t.Errorf("the published version is not marked listed:\n%s", out)
	}
	code, out, _ = lindi("ls", dandiInst+danditest.Public+"/sub-01/", "*ecephys*")
	if code != 0 || strings.Count(out, "\n") != 3 || !strings.Contains(out, "\n"+danditest.Ecephys+"\t") {
		t.Errorf("folder with a glob: exit %d\n%s", code, out)
	}
}

// TestLsShard lists a dandiset in three shares, as three jobs would: they
// are disjoint and make up the whole listing.
func TestLsShard(t *testing.T) {
	danditest.Standard(t).Setenv(t, "")
	assets := func(args ...string) []string {
		code, out, errOut := lindi(append([]string{"ls"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	all := assets(dandiInst + danditest.Public)
	var union []string
	for i := range 3 {
		union = append(union, assets("--shard", strconv.Itoa(i)+"/3", dandiInst+danditest.Public)...)
	}
	slices.Sort(union)
	if !slices.Equal(union, all) {
		t.Errorf("shards %q, want %q", union, all)
	}
	for _, args := range [][]string{{"--shard", "3/3", dandiInst + danditest.Public}, {"--shard", "0/2", "x.h5"}} {
		if code, _, _ := lindi(append([]string{"ls"}, args...)...); code != 2 {
			t.Errorf("%q: exit %d, want a usage error", args, code)
		}
	}
}

// TestDandiTimeouts: with LINDI_TIMEOUT set, an API that never answers and
// a bucket that drips its blob fail the command with one line after the
// timeout and its retries.
func TestDandiTimeouts(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	t.Setenv(source.TimeoutEnv, "50ms")
	asset := dandiInst + danditest.Public + "/" + danditest.Sub02
	s.SetFault(danditest.Silent, 0)
	dandi.ClearCache()
	code, _, errOut := lindi("ls", dandiInst+danditest.Public)
	if code != 1 || !strings.Contains(errOut, "timed out") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("silent API: exit %d, %q", code, errOut)
	}
	// The asset is found, then the API's and the bucket's answers drip a
	// byte every 10 ms.
	s.SetFault(danditest.NoFault, 0)
	dandi.ClearCache()
	if _, err := dandi.Lookup(context.Background(), asset); err != nil {
		t.Fatal(err)
	}
	s.SetFault(danditest.Drip, 10*time.Millisecond)
	code, _, errOut = lindi("info", asset)
	if code != 1 || !strings.Contains(errOut, "timed out") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("dripping blob: exit %d, %q", code, errOut)
	}
}

func TestDandiErrorsOneLine(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ls", dandiInst + "000999"}, "no dandiset 000999"},
		{[]string{"ls", dandiInst + danditest.Public + "@0.999999.9999"}, "no version 0.999999.9999"},
		{[]string{"ls", dandiInst + danditest.Public + "/sub-01/nope.nwb"}, "has no asset sub-01/nope.nwb"},
		{[]string{"nwb", dandiInst + danditest.Public + "/sub-01/nope.nwb"}, "has no asset sub-01/nope.nwb"},
		{[]string{"info", dandiInst + danditest.Embargoed + "/" + danditest.Secret}, dandi.KeyEnv(danditest.Instance)},
	} {
		code, _, errOut := lindi(tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, "unsupported") {
			t.Errorf("%q: exit %d, stderr %q; want one line saying %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestDandiCommands runs the commands that read a file on a DANDI asset's
// address and compares them with the same file read locally.
func TestDandiCommands(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	local := filepath.Join(t.TempDir(), "tables.nwb")
	if err := os.WriteFile(local, danditest.NWB(), 0o644); err != nil {
		t.Fatal(err)
	}
	asset := dandiInst + danditest.Public + "/" + danditest.Sub02
	for _, args := range [][]string{
		{"ls", "-r", "FILE"},
		{"info", "FILE", "acquisition/ElectricalSeries"},
		{"cat", "-f", "csv", "FILE", "acquisition/ElectricalSeries/data", "0:5"},
		{"nwb", "FILE"},
	} {
		run := func(name string) string {
			a := append([]string(nil), args...)
			for i := range a {
				if a[i] == "FILE" {
					a[i] = name
				}
			}
			code, out, errOut := lindi(a...)
			if code != 0 {
				t.Fatalf("%q: exit %d: %s", a, code, errOut)
			}
			return out
		}
		// Columns are aligned on the name: compare words.
		if got, want := run(asset), run(local); !slices.Equal(strings.Fields(got), strings.Fields(strings.ReplaceAll(want, local, asset))) {
			t.Errorf("%q: the asset's output differs from the local file's:\n%s\nwant\n%s", args, got, want)
		}
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "x.lindi.json")
	if code, _, errOut := lindi("index", "-o", out, asset); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), s.URL()+"/assets/") {
		t.Fatalf("the index does not name the asset's download URL: %v", err)
	}
	if code, _, errOut := lindi("cp", asset, filepath.Join(dir, "y.lindi.tar")); code != 0 {
		t.Fatalf("cp: %s", errOut)
	}
}

func TestDandiPrecomputedWarning(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	t.Setenv(dandi.PrecomputedEnv, s.PrecomputedURL())
	code, _, errOut := lindi("info", dandiInst+danditest.Public+"/"+danditest.Behavior)
	if code != 0 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "lindi: warning: ") || !strings.Contains(errOut, "elsewhere.example.org") {
		t.Errorf("tampered precomputed file: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = lindi("info", dandiInst+danditest.Public+"/"+danditest.Ecephys)
	if code != 0 || errOut != "" {
		t.Errorf("good precomputed file: exit %d, stderr %q", code, errOut)
	}
}
