package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/lindigo/lindi/beam/lindibeam"
	"github.com/lindigo/lindi/io/source"
)

func TestParseWindow(t *testing.T) {
	for _, c := range []struct {
		in       string
		from, to float64
	}{
		{"0:10s", 0, 10}, {"500ms:1.5s", 0.5, 1.5}, {":1min", math.Inf(-1), 60}, {"2:", 2, math.Inf(1)}, {"0:1h", 0, 3600},
	} {
		from, to, err := parseWindow(c.in)
		if err != nil || from != c.from || to != c.to {
			t.Errorf("%q: %v %v %v", c.in, from, to, err)
		}
	}
	for _, bad := range []string{"10", "10:5", "a:b", "0:NaNs", "1:1", "0:10 s", "0:infs"} {
		if _, _, err := parseWindow(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestUsage: -h shows lindi-beam's commands and flags before Beam's.
func TestUsage(t *testing.T) {
	var buf bytes.Buffer
	flag.CommandLine.SetOutput(&buf)
	defer flag.CommandLine.SetOutput(nil)
	printUsage()
	u := buf.String()
	own, beamHead, runner := strings.Index(u, "  -series"), strings.Index(u, "Apache Beam's flags"), strings.Index(u, "  -runner")
	if !strings.HasPrefix(u, "usage:") || own < 0 || beamHead < own || runner < beamHead {
		t.Errorf("usage:\n%s", u)
	}
	if strings.Count(u, "  -series") != 1 {
		t.Errorf("-series shown twice")
	}
}

func TestParseShard(t *testing.T) {
	set := "dandi://dandi/000409"
	if sh, err := parseShard("3/16", []string{set, set + "@draft/sub-01/"}); err != nil || sh != (lindibeam.Shard{I: 3, N: 16}) {
		t.Errorf("3/16: %v %v", sh, err)
	}
	if sh, err := parseShard("", []string{"local.nwb"}); err != nil || sh != (lindibeam.Shard{}) {
		t.Errorf("no shard: %v %v", sh, err)
	}
	for _, bad := range []string{"3", "16/16", "-1/2", "a/b", "1/0"} {
		if _, err := parseShard(bad, []string{set}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := parseShard("0/2", []string{set, "local.nwb"}); err == nil || !strings.Contains(err.Error(), "local.nwb") {
		t.Errorf("a local source in a shard: %v", err)
	}
}

// FuzzParseShard: any --shard either fails or is a shard, 0 ≤ I < N.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"3/16", "0/1", "16/16", "-1/2", "a/b", "1/0", "", "/", "1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := parseShard(s, []string{"dandi://dandi/000409"})
		if err == nil && s != "" && (sh.N < 1 || sh.I < 0 || sh.I >= sh.N) {
			t.Errorf("%q: shard %v", s, sh)
		}
	})
}

// TestJobDefaults: without --in-flight and --group-bytes a job run in this
// process reads as lindi cat does, its selection as one group; one on a
// cluster's workers has lindibeam's defaults; given flags hold everywhere.
func TestJobDefaults(t *testing.T) {
	r, e, n, g := *runners.Runner, *jobopts.Endpoint, *inFlight, *groupBytes
	defer func() { *runners.Runner, *jobopts.Endpoint, *inFlight, *groupBytes = r, e, n, g }()
	const whole = math.MaxInt64
	for _, c := range []struct {
		runner, endpoint    string
		flag, want          int
		groupFlag, wantSize int64
	}{
		{"", "", 0, source.AutoMaxConcurrency, 0, whole},
		{"prism", "", 0, source.AutoMaxConcurrency, 0, whole},
		{"direct", "", 0, source.AutoMaxConcurrency, 0, whole},
		{"prism", "localhost:8073", 0, lindibeam.DefaultInFlight, 0, lindibeam.DefaultGroupBytes},
		{"dataflow", "", 0, lindibeam.DefaultInFlight, 0, lindibeam.DefaultGroupBytes},
		{"flink", "localhost:8099", 0, lindibeam.DefaultInFlight, 0, lindibeam.DefaultGroupBytes},
		{"", "", 3, 3, 1 << 20, 1 << 20},
		{"dataflow", "", 100, 100, 5, 5},
	} {
		*runners.Runner, *jobopts.Endpoint, *inFlight, *groupBytes = c.runner, c.endpoint, c.flag, c.groupFlag
		if got := jobInFlight(); got != c.want {
			t.Errorf("runner %q endpoint %q --in-flight %d: %d, want %d", c.runner, c.endpoint, c.flag, got, c.want)
		}
		if got := jobGroupBytes(); got != c.wantSize {
			t.Errorf("runner %q endpoint %q --group-bytes %d: %d, want %d", c.runner, c.endpoint, c.groupFlag, got, c.wantSize)
		}
	}
}

// TestRunLeavesNoTemp runs a stats job in this process on prism: the
// output is written, and the temporary directory holds nothing more than
// before (Beam's runner leaves a beamloopbackworker-* file at each such run
// when left to itself).
func TestRunLeavesNoTemp(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	beam.Init()
	out := filepath.Join(t.TempDir(), "stats.json")
	if err := flag.CommandLine.Set("out", out); err != nil {
		t.Fatal(err)
	}
	defer flag.CommandLine.Set("out", "")
	if err := run(context.Background(), "stats", []string{"../../../testdata/nwb/tables.nwb", "acquisition/ElectricalSeries/data", "0:10"}); err != nil {
		t.Fatal(err)
	}
	var st lindibeam.Summary
	if b, err := os.ReadFile(out); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &st); err != nil || len(st.Count) == 0 || st.Count[0] != 10 {
		t.Fatalf("output %s: %v", b, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the run left %d entries in TMPDIR, the first %s", len(left), left[0].Name())
	}
	if got := os.Getenv("TMPDIR"); got != tmp {
		t.Errorf("TMPDIR is %q after the run, want %q back", got, tmp)
	}
}
