package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lindigo/lindi/beam/internal/ptestmain"
	"github.com/lindigo/lindi/beam/internal/seriesref"
	"github.com/lindigo/lindi/dandi/danditest"
)

func TestMain(m *testing.M) { ptestmain.Main(m) }

// TestExample runs the example on the stand-in archive's dandiset (its
// three NWB sessions hold the same file) and checks every line against the
// plain float64 computation of package seriesref, which reads the file
// with package h5 alone.
func TestExample(t *testing.T) {
	srv := danditest.Standard(t)
	srv.Setenv(t, "")
	out := filepath.Join(t.TempDir(), "rms.csv")
	p, s := beam.NewPipelineWithRoot()
	pipeline(s, out, "dandi://"+danditest.Instance+"/"+danditest.Public)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := seriesref.Stats(context.Background(), "../../../dandi/danditest/testdata/tables.nwb", "acquisition/ElectricalSeries", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	sessions := []string{danditest.Behavior, danditest.Ecephys, danditest.Sub02}
	if len(recs) != 1+len(sessions)*len(ref) || len(ref) == 0 {
		t.Fatalf("%d lines for %d sessions of %d channels:\n%s", len(recs), len(sessions), len(ref), b)
	}
	for i, r := range recs[1:] {
		want, c := ref[i%len(ref)], i%len(ref)
		rms, _ := strconv.ParseFloat(r[3], 64)
		if r[0] != danditest.Public+"/draft/"+sessions[i/len(ref)] || r[1] != strconv.Itoa(c) || r[2] != want.Location ||
			math.Abs(rms-1e6*want.RMS) > 1e-12*rms {
			t.Errorf("line %d: %v; want channel %d at %s, %v µV", i+1, r, c, want.Location, 1e6*want.RMS)
		}
	}
	if f, err := os.ReadFile(out + ".failed.jsonl"); err != nil || len(f) != 0 {
		t.Errorf("failures: %s %v", f, err)
	}
}
