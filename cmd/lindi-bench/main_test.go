package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/selection"
)

// bench runs lindi-bench with args and returns its exit status and output.
func bench(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestHelp: the help lists every command; CMD -h and help CMD print that
// command's flags; an unknown command or flag is a usage error (status 2).
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, out, _ := bench(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		for name := range commands {
			if !strings.Contains(out, "lindi-bench "+name) && !strings.Contains(out, "lindi-bench ["+name+"]") {
				t.Errorf("%v does not list %s:\n%s", args, name, out)
			}
		}
	}
	for name := range commands {
		for _, args := range [][]string{{name, "-h"}, {"help", name}} {
			code, out, stderr := bench(args...)
			if code != 0 || stderr != "" || !strings.HasPrefix(out, "usage: lindi-bench "+name+" [flags]") || !strings.Contains(out, "\n  -") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
			}
		}
	}
	for _, args := range [][]string{{"nope"}, {"help", "nope"}, {"write", "-nope"}, {"write", "extra"}, {"blocks", "onlyfile"}} {
		if code, _, stderr := bench(args...); code != 2 || !strings.HasPrefix(stderr, "lindi-bench: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestBlocks: the per-channel means do not depend on the block size and
// are those of the whole series in physical units.
func TestBlocks(t *testing.T) {
	const file, series = "../../testdata/nwb/tables.nwb", "acquisition/ElectricalSeries"
	var lines []string
	for _, rows := range []string{"7", "1000"} {
		code, out, stderr := bench("blocks", "-rows", rows, "-runs", "1", file, series)
		if code != 0 {
			t.Fatalf("rows %s: exit %d: %s", rows, code, stderr)
		}
		i := strings.LastIndex(strings.TrimSpace(out), "\n")
		line := strings.TrimSpace(out)[i+1:]
		lines = append(lines, line[strings.Index(line, "mean[0]"):])
	}
	if lines[0] != lines[1] {
		t.Errorf("blocks of 7 and of 1000 differ:\n%s\n%s", lines[0], lines[1])
	}
	ctx := context.Background()
	f, err := nwb.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, series)
	if err != nil {
		t.Fatal(err)
	}
	col, err := h5.Read[float64](ctx, ts.Data(), selection.Selection{selection.Slice(0, ts.Len(), 1), selection.Index(0)})
	if err != nil {
		t.Fatal(err)
	}
	scale := ts.Conversion()
	if cc := ts.ChannelConversion(); len(cc) > 0 {
		scale *= cc[0]
	}
	var sum float64
	for _, x := range col.Data {
		sum += x*scale + ts.Offset()
	}
	want := fmt.Sprintf("mean[0] %.6e", sum/float64(len(col.Data)))
	if !strings.HasPrefix(lines[0], want) || math.IsNaN(sum) {
		t.Errorf("got %q, want %q", lines[0], want)
	}
}

// TestWrite runs the write measurement on 1 MB: a row per codec and number
// of workers, and the amendment timed.
func TestWrite(t *testing.T) {
	code, out, stderr := bench("write", "-mb", "1", "-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range writeCodecs {
		if strings.Count(out, c.name) != 2 {
			t.Errorf("not 2 rows of %s:\n%s", c.name, out)
		}
	}
	if !strings.Contains(out, "amending one attribute") {
		t.Errorf("no amendment:\n%s", out)
	}
}

// TestPut runs lindi put (built from this module) on a 1 MB .npy.
func TestPut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/lindi")
	}
	code, out, stderr := bench("put", "-mb", "1", "-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range writeCodecs {
		if strings.Count(out, c.name) != 1 {
			t.Errorf("not 1 row of %s:\n%s", c.name, out)
		}
	}
}

// TestBenchZarr3 runs the sharded benchmark at zero latency: every read
// works and reports its requests.
func TestBenchZarr3(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 16 MiB store")
	}
	code, out, stderr := bench("zarr3", "-latency", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"full read", "strided, one inner chunk a shard", "a small box"} {
		if strings.Count(out, want) != len(z3Layouts) {
			t.Errorf("not %d %q rows:\n%s", len(z3Layouts), want, out)
		}
	}
}

// TestBenchZarrshadow runs the chunk-index benchmark at 1 ms: the store
// opens and both reads check out (every value is checked by the bench).
func TestBenchZarrshadow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 16 MB file and a 2-million-chunk index")
	}
	code, out, stderr := bench("zarrshadow", "-latency", "1ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"local open:", "in one index block", "across 2 index blocks", "the read alone"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q:\n%s", want, out)
		}
	}
}
