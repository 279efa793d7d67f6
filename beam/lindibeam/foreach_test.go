package lindibeam

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lindigo/lindi/beam/internal/seriesref"
	"github.com/lindigo/lindi/dandi/danditest"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

// channelRow is a row of the test's per-asset function.
type channelRow struct {
	Asset   string  `csv:"asset"`
	Channel int     `csv:"channel"`
	Count   int     `json:"count"`
	Sum     float64 `csv:"sum"`
	Loc     string  `csv:"location"`
	Skipped []int   `csv:"-"`
}

// badRow has a column CSV cannot hold.
type badRow struct {
	A []int
}

func init() {
	beam.RegisterFunction(channelSums)
	beam.RegisterFunction(datasetRows)
	beam.RegisterType(reflect.TypeFor[channelRow]())
}

// channelSums sums each channel of the ElectricalSeries in volts; it fails
// on the behaviour session.
func channelSums(ctx context.Context, a Asset, f *nwb.File) ([]channelRow, error) {
	if strings.Contains(a.Name, "behavior") {
		return nil, errors.New("this function refuses behaviour sessions")
	}
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		return nil, err
	}
	x, err := ts.ReadPhysical(ctx, 0, ts.Len())
	if err != nil {
		return nil, err
	}
	elec, table, err := ts.Electrodes(ctx)
	if err != nil {
		return nil, err
	}
	locs, err := table.Locations(ctx)
	if err != nil {
		return nil, err
	}
	rows := make([]channelRow, x.Shape[1])
	for c := range rows {
		rows[c] = channelRow{Asset: a.Name, Channel: c, Count: x.Shape[0], Loc: locs[elec[c]]}
		for i := c; i < len(x.Data); i += len(rows) {
			rows[c].Sum += x.Data[i]
		}
	}
	return rows, nil
}

// datasetRows is a function of an HDF5 file: a row per dataset of its
// ElectricalSeries group.
func datasetRows(ctx context.Context, a Asset, f *h5.File) ([]channelRow, error) {
	d, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		return nil, err
	}
	return []channelRow{{Asset: a.Name, Count: d.Shape()[0], Channel: d.Shape()[1]}}, nil
}

// runForEach runs fn over addrs and writes its rows as CSV and JSON Lines and
// its failures as JSON Lines to the names in out ("csv", "jsonl", "failed").
func runForEach(t *testing.T, fn any, out map[string]string, addrs ...string) {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	assets, unlisted := Assets(s, addrs...)
	rows, failed := ForEach(s, fn, assets)
	WriteCSV(s, out["csv"], rows)
	WriteJSONL(s, out["jsonl"], rows)
	WriteJSONL(s, out["failed"], beam.Flatten(s, unlisted, failed))
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
}

func readOut(t *testing.T, name string) []byte {
	t.Helper()
	b, err := ReadOutput(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestForEachDandiset runs a function over the stand-in dandiset's sessions:
// the session it fails on is in the side output with its error, the
// others' rows are complete and equal to an independent computation, and
// the files written on memfs and on local disk are the same bytes.
func TestForEachDandiset(t *testing.T) {
	srv := danditest.Standard(t)
	srv.Setenv(t, "")
	set := "dandi://" + danditest.Instance + "/" + danditest.Public
	missing := "dandi://" + danditest.Instance + "/999999"
	dir := t.TempDir()
	local := map[string]string{"csv": filepath.Join(dir, "rows.csv"), "jsonl": filepath.Join(dir, "rows.jsonl"), "failed": filepath.Join(dir, "failed.jsonl")}
	mem := map[string]string{"csv": "memfs://out/rows.csv", "jsonl": "memfs://out/rows.jsonl", "failed": "memfs://out/failed.jsonl"}
	runForEach(t, channelSums, local, set, missing)
	runForEach(t, channelSums, mem, set, missing)
	for k := range local {
		if a, b := readOut(t, local[k]), readOut(t, mem[k]); !bytes.Equal(a, b) {
			t.Errorf("%s: local\n%s\nmemfs\n%s", k, a, b)
		}
	}

	failed := string(readOut(t, local["failed"]))
	if lines := strings.Count(failed, "\n"); lines != 2 || !strings.Contains(failed, "sub-01_behavior.nwb") ||
		!strings.Contains(failed, "refuses behaviour sessions") || !strings.Contains(failed, missing) {
		t.Errorf("failures:\n%s", failed)
	}
	recs, err := csv.NewReader(bytes.NewReader(readOut(t, local["csv"]))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "asset,channel,count,sum,location" {
		t.Errorf("header %s", got)
	}
	ref, err := seriesref.Stats(context.Background(), "../../dandi/danditest/testdata/tables.nwb", "acquisition/ElectricalSeries", math.Inf(-1), math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{danditest.Public + "/draft/" + danditest.Ecephys, danditest.Public + "/draft/" + danditest.Sub02}
	if len(recs) != 1+len(want)*len(ref) {
		t.Fatalf("%d rows, want %d", len(recs)-1, len(want)*len(ref))
	}
	for i, r := range recs[1:] {
		a, c := want[i/len(ref)], i%len(ref)
		sum, _ := strconv.ParseFloat(r[3], 64)
		if r[0] != a || r[1] != strconv.Itoa(c) || r[2] != strconv.Itoa(ref[c].Count) || r[4] != ref[c].Location ||
			math.Abs(sum-ref[c].Mean*float64(ref[c].Count)) > 1e-9*math.Abs(sum) {
			t.Errorf("row %d: %v; want %s channel %d, %d samples, mean %v, %s", i, r, a, c, ref[c].Count, ref[c].Mean, ref[c].Location)
		}
	}
	if !bytes.HasPrefix(readOut(t, local["jsonl"]), []byte(`{"asset":"`+want[0]+`","channel":0,"count":`)) {
		t.Errorf("JSON Lines:\n%.200s", readOut(t, local["jsonl"]))
	}
}

// TestForEachFaults runs a function of an HDF5 file over URLs of a server
// that fails the first request of every range (503 or a body cut short):
// the rows equal those of the local files, the failures are the two bad
// sources, and two URLs of one base name are refused.
func TestForEachFaults(t *testing.T) {
	srv := newFaultyServer(t, readFiles(t))
	dir := t.TempDir()
	out := func(tag string) map[string]string {
		return map[string]string{"csv": filepath.Join(dir, tag+".csv"), "jsonl": filepath.Join(dir, tag+".jsonl"), "failed": filepath.Join(dir, tag+".failed")}
	}
	runForEach(t, datasetRows, out("remote"), srv.URL+"/tables.nwb", srv.URL+"/broken.nwb", srv.URL+"/missing.nwb")
	runForEach(t, datasetRows, out("local"), "../../testdata/nwb/tables.nwb")
	if f := srv.injected(); f["503"] == 0 || f["cut"] == 0 {
		t.Errorf("faults injected: %v; want both kinds", f)
	}
	if a, b := readOut(t, out("remote")["csv"]), readOut(t, out("local")["csv"]); !bytes.Equal(a, b) {
		t.Errorf("rows over faults\n%s\nlocal\n%s", a, b)
	}
	if f := string(readOut(t, out("remote")["failed"])); strings.Count(f, "\n") != 2 || !strings.Contains(f, "broken.nwb") || !strings.Contains(f, "missing.nwb") {
		t.Errorf("failures:\n%s", f)
	}

	// Two sources, one name: both refused, named.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o777)
	b, _ := os.ReadFile("../../testdata/nwb/tables.nwb")
	os.WriteFile(filepath.Join(sub, "tables.nwb"), b, 0o666)
	runForEach(t, datasetRows, out("clash"), srv.URL+"/tables.nwb", filepath.Join(sub, "tables.nwb"))
	if rows := readOut(t, out("clash")["csv"]); bytes.Count(rows, []byte("\n")) != 1 {
		t.Errorf("clashing sources gave rows:\n%s", rows)
	}
	if f := string(readOut(t, out("clash")["failed"])); strings.Count(f, "share the output name") != 2 {
		t.Errorf("clash failures:\n%s", f)
	}
}

// TestForEachTypes refuses functions and rows of the wrong types.
func TestForEachTypes(t *testing.T) {
	_, s := beam.NewPipelineWithRoot()
	assets, _ := Assets(s, "x.nwb")
	for _, fn := range []any{
		nil, 3, func(context.Context, Asset) ([]channelRow, error) { return nil, nil },
		func(context.Context, Asset, *os.File) ([]channelRow, error) { return nil, nil },
		func(context.Context, Asset, *nwb.File) (channelRow, error) { return channelRow{}, nil },
		func(context.Context, Asset, *nwb.File) ([]badRow, error) { return nil, nil },
	} {
		if _, _, err := TryForEach(s, fn, assets); err == nil {
			t.Errorf("%T accepted", fn)
		}
	}
	if err := TryWriteRows(s, "x.csv", CSV, assets); err != nil {
		t.Errorf("rows of Asset refused: %v", err)
	}
	if err := TryWriteRows(s, "x.csv", "parquet", assets); err == nil {
		t.Errorf("format parquet accepted")
	}
}

// TestForEachBlobFaults runs a function over a stand-in dandiset whose
// blobs are served by a server that fails the first request of every range
// (a 503, or a body cut short), given at once, folder by folder and asset
// by asset in reverse order: each run's rows and failures are the same
// bytes as those of a clean run over the standard archive, whatever the
// split (rows are sorted), and the faults were met in every run.
func TestForEachBlobFaults(t *testing.T) {
	dir := t.TempDir()
	out := func(tag string) map[string]string {
		return map[string]string{"csv": filepath.Join(dir, tag+".csv"), "jsonl": "memfs://" + tag + ".jsonl", "failed": filepath.Join(dir, tag+".failed")}
	}
	clean := danditest.Standard(t)
	clean.Setenv(t, "")
	set := "dandi://" + danditest.Instance + "/" + danditest.Public
	runForEach(t, channelSums, out("clean"), set)

	blobs := newFaultyServer(t, map[string][]byte{"a.nwb": danditest.NWB(), "b.nwb": danditest.NWB(), "c.nwb": danditest.NWB()})
	size := int64(len(danditest.NWB()))
	faulty := danditest.New(t, danditest.Dandiset{ID: danditest.Public, Draft: []danditest.Asset{
		{Path: danditest.Ecephys, URL: blobs.URL + "/a.nwb", Size: size},
		{Path: danditest.Behavior, URL: blobs.URL + "/b.nwb", Size: size},
		{Path: danditest.Sub02, URL: blobs.URL + "/c.nwb", Size: size},
		{Path: "README.md", Data: []byte("# 000409\n")},
	}})
	faulty.Setenv(t, "")
	splits := map[string][]string{
		"whole":   {set},
		"folders": {set + "@draft/sub-02/", set + "@draft/sub-01/"},
		"assets":  {set + "@draft/" + danditest.Sub02, set + "@draft/" + danditest.Behavior, set + "@draft/" + danditest.Ecephys},
	}
	for tag, addrs := range splits {
		blobs.reset()
		before := blobs.injected()
		runForEach(t, channelSums, out(tag), addrs...)
		if after := blobs.injected(); after["503"] == before["503"] || after["cut"] == before["cut"] {
			t.Errorf("%s: faults %v before the run, %v after; want more of both kinds", tag, before, after)
		}
		for _, k := range []string{"csv", "jsonl", "failed"} {
			if a, b := readOut(t, out(tag)[k]), readOut(t, out("clean")[k]); !bytes.Equal(a, b) {
				t.Errorf("%s %s over faults\n%s\nclean\n%s", tag, k, a, b)
			}
		}
	}
	// The clean run itself is checked against an independent computation
	// by TestForEachDandiset; here, that it has the two sessions' rows and
	// the one failure.
	if rows := readOut(t, out("clean")["csv"]); bytes.Count(rows, []byte(danditest.Public+"/draft/")) != 2*bytes.Count(rows, []byte(danditest.Ecephys)) ||
		!bytes.Contains(rows, []byte(danditest.Sub02)) || bytes.Contains(rows, []byte(danditest.Behavior)) {
		t.Errorf("clean rows:\n%s", rows)
	}
	if f := readOut(t, out("clean")["failed"]); bytes.Count(f, []byte("\n")) != 1 || !bytes.Contains(f, []byte(danditest.Behavior)) {
		t.Errorf("clean failures:\n%s", f)
	}
}
