package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/dandi/danditest"
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
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), out)
	}
	want := danditest.Ecephys + "\t53096\t" + s.AssetID(danditest.Public, "draft", danditest.Ecephys)
	if lines[2] != want {
		t.Errorf("line 3 %q, want %q", lines[2], want)
	}
	code, out, _ = lindi("ls", dandiInst+danditest.Public+"/sub-01/", "*ecephys*")
	if code != 0 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, danditest.Ecephys+"\t") {
		t.Errorf("folder with a glob: exit %d\n%s", code, out)
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
