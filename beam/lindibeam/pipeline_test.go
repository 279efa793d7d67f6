package lindibeam

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lindigo/lindi/beam/internal/ptestmain"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/selection"
)

func TestMain(m *testing.M) { ptestmain.Main(m) }

// The NWB test files of the repository, served by the test server.
var nwbFiles = map[string]string{
	"tables.nwb":         "../../testdata/nwb/tables.nwb",
	"ecephys.nwb":        "../../testdata/nwbzarr/ecephys.nwb",
	"ophys_behavior.nwb": "../../testdata/nwbzarr/ophys_behavior.nwb",
	"fixture.h5":         "../../testdata/conformance/fixture.h5",
}

// faultyServer serves files on 127.0.0.1 and fails the first request for
// each range, by turns with a 503 (SlowDown) and by cutting the body
// halfway, so that every read the pipeline makes is retried once (reset
// forgets the ranges seen). It counts the faults.
type faultyServer struct {
	*httptest.Server
	mu       sync.Mutex
	files    map[string][]byte
	seen     map[string]bool
	faults   map[string]int
	inFlight int
	maxIn    int
	n        int // faults so far
}

func newFaultyServer(t *testing.T, files map[string][]byte) *faultyServer {
	t.Helper()
	fs := &faultyServer{files: files, seen: map[string]bool{}, faults: map[string]int{}}
	fs.Server = httptest.NewServer(http.HandlerFunc(fs.serve))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *faultyServer) serve(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	fs.mu.Lock()
	data, ok := fs.files[name]
	key := r.Method + " " + name + " " + r.Header.Get("Range")
	first := !fs.seen[key]
	fs.seen[key] = true
	fs.inFlight++
	fs.maxIn = max(fs.maxIn, fs.inFlight)
	fs.mu.Unlock()
	defer func() {
		fs.mu.Lock()
		fs.inFlight--
		fs.mu.Unlock()
	}()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if first && r.Method == http.MethodGet {
		fs.mu.Lock()
		fs.n++
		odd := fs.n%2 == 1
		fs.mu.Unlock()
		if odd {
			fs.count("503")
			w.Header().Set("Retry-After", "0")
			http.Error(w, "SlowDown", http.StatusServiceUnavailable)
			return
		}
		fs.count("cut")
		w = &cutWriter{ResponseWriter: w}
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

func (fs *faultyServer) reset() {
	fs.mu.Lock()
	clear(fs.seen)
	fs.mu.Unlock()
}

func (fs *faultyServer) count(kind string) {
	fs.mu.Lock()
	fs.faults[kind]++
	fs.mu.Unlock()
}

// cutWriter sends the headers and half the body, then drops the connection.
type cutWriter struct {
	http.ResponseWriter
	length int
}

func (c *cutWriter) WriteHeader(code int) {
	fmt.Sscan(c.Header().Get("Content-Length"), &c.length)
	c.ResponseWriter.WriteHeader(code)
}

func (c *cutWriter) Write(p []byte) (int, error) {
	half := c.length / 2
	if len(p) > half {
		c.ResponseWriter.Write(p[:half])
		if f, ok := c.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	c.length -= len(p)
	return c.ResponseWriter.Write(p)
}

func readFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{"broken.nwb": []byte("this is not an HDF5 file, though it is named like one\n")}
	for name, p := range nwbFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	return files
}

// refsOf returns the refs of a LINDI JSON document.
func refsOf(t *testing.T, doc []byte) map[string]any {
	t.Helper()
	var d struct {
		Refs      map[string]any    `json:"refs"`
		Templates map[string]string `json:"templates"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	return d.Refs
}

// buildRefs is index.Build's document of the file at url.
func buildRefs(t *testing.T, url string) map[string]any {
	t.Helper()
	ctx := context.Background()
	s, err := source.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	f, err := hdf5.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := index.Build(ctx, f, index.WithURL(url))
	if err != nil {
		t.Fatal(err)
	}
	return refsOf(t, doc)
}

func runIndex(t *testing.T, srcs []string, out, manifest string) {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	written, failed := Index(s, IndexOptions{OutDir: out, InFlight: 3}, beam.CreateList(s, srcs))
	WriteManifest(s, manifest, written, failed)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
}

// TestIndexPipeline indexes the NWB test files over a loopback server that
// fails the first request of every range, with a broken and a missing
// source: the outputs' refs are index.Build's, the two bad sources are in
// the manifest with their errors, and a rerun leaves identical files.
func TestIndexPipeline(t *testing.T) {
	srv := newFaultyServer(t, readFiles(t))
	var srcs []string
	for name := range nwbFiles {
		srcs = append(srcs, srv.URL+"/"+name)
	}
	srcs = append(srcs, srv.URL+"/broken.nwb", srv.URL+"/missing.nwb")
	dir := t.TempDir()
	out, manifest := filepath.Join(dir, "out"), filepath.Join(dir, "manifest.jsonl")
	runIndex(t, srcs, out, manifest)

	if f := srv.injected(); f["503"] == 0 || f["cut"] == 0 {
		t.Errorf("faults injected: %v; want both kinds", f)
	}
	if srv.maxIn > 3 {
		t.Errorf("%d requests in flight, bound 3", srv.maxIn)
	}
	m, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(m)), "\n")
	if len(lines) != len(srcs) {
		t.Fatalf("manifest has %d lines for %d sources:\n%s", len(lines), len(srcs), m)
	}
	for _, l := range lines {
		var e struct {
			Source, Output string
			Error          *string
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(e.Source, srv.URL+"/")
		if e.Output != filepath.Join(out, name+".lindi.json") {
			t.Errorf("%s: output %s", name, e.Output)
		}
		if name == "broken.nwb" || name == "missing.nwb" {
			if e.Error == nil || *e.Error == "" {
				t.Errorf("%s: no error in %s", name, l)
			}
			if _, err := os.Stat(e.Output); err == nil {
				t.Errorf("%s failed but wrote %s", name, e.Output)
			}
			continue
		}
		if e.Error != nil {
			t.Errorf("%s: %s", name, *e.Error)
			continue
		}
		doc, err := os.ReadFile(e.Output)
		if err != nil {
			t.Fatal(err)
		}
		want := buildRefs(t, e.Source)
		if got := refsOf(t, doc); !jsonEqual(t, got, want) {
			t.Errorf("%s: the pipeline's refs differ from index.Build's", name)
		}
	}

	// A rerun leaves every file as it was, modification time included.
	before := snapshot(t, out)
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for name := range before {
		os.Chtimes(filepath.Join(out, name), old, old)
	}
	runIndex(t, srcs, out, manifest)
	after := snapshot(t, out)
	if len(after) != len(before) {
		t.Errorf("the rerun left %d files, the run %d", len(after), len(before))
	}
	for name, b := range before {
		st, err := os.Stat(filepath.Join(out, name))
		if err != nil || !bytes.Equal(after[name], b) || !st.ModTime().Equal(old) {
			t.Errorf("%s: rewritten by the rerun", name)
		}
	}
	m2, _ := os.ReadFile(manifest)
	if !bytes.Equal(m, m2) {
		t.Errorf("the rerun's manifest differs")
	}
}

func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// singleProcess computes the statistics of sel of a dataset in one read, the
// plain exact way.
func singleProcess(t *testing.T, src, dataset, sel string) (counts []int64, means, stds, mins, maxs []float64) {
	t.Helper()
	ctx := context.Background()
	f, err := h5.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, dataset)
	if err != nil {
		t.Fatal(err)
	}
	var s selection.Selection
	if sel != "" {
		if s, err = selection.Parse(sel); err != nil {
			t.Fatal(err)
		}
	}
	a, err := h5.Read[float64](ctx, d, s)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := s.Resolve(d.Shape())
	shape := d.Shape()
	cols := []int{0}
	if len(shape) > 1 {
		cols, _ = r.Positions(1)
	}
	counts0, _ := r.Positions(0)
	inner := len(a.Data) / max(1, len(counts0)*len(cols))
	for c := range cols {
		var vals []float64
		for o := range counts0 {
			for i := range inner {
				vals = append(vals, a.Data[(o*len(cols)+c)*inner+i])
			}
		}
		m, sd := reference(vals)
		counts = append(counts, int64(len(vals)))
		means, stds = append(means, m), append(stds, sd)
		mins, maxs = append(mins, slices.Min(vals)), append(maxs, slices.Max(vals))
	}
	return
}

func runStats(t *testing.T, job DatasetJob) []byte {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	DatasetStats(s, job)
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(job.Out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStatsPipeline reduces datasets over the faulty server in groups of
// several sizes: the output is the same for every size and equals the
// single-process computation.
func TestStatsPipeline(t *testing.T) {
	srv := newFaultyServer(t, readFiles(t))
	dir := t.TempDir()
	for _, c := range []struct {
		file, dataset, sel string
		sizes              []int64
	}{
		{"tables.nwb", "acquisition/ElectricalSeries/data", "", []int64{1, 2000, 4000, 1 << 30}},
		{"tables.nwb", "acquisition/ElectricalSeries/data", "100:901:3, ::-1", []int64{1, 5000}},
		{"tables.nwb", "units/waveform_mean", "1:7, [4, 0, 9], :", []int64{1, 1 << 30}},
		{"tables.nwb", "units/spike_times", "", []int64{1}},
	} {
		src := srv.URL + "/" + c.file
		var first []byte
		for i, size := range c.sizes {
			srv.reset()
			out := filepath.Join(dir, fmt.Sprintf("stats%d.json", i))
			got := runStats(t, DatasetJob{Source: src, Dataset: c.dataset, Selection: c.sel, GroupBytes: size, Out: out, InFlight: 2})
			if first == nil {
				first = got
			} else if !bytes.Equal(got, first) {
				t.Errorf("%s[%s]: groups of %d bytes give\n%s\nthe first size\n%s", c.dataset, c.sel, size, got, first)
			}
		}
		var st Summary
		if err := json.Unmarshal(first, &st); err != nil {
			t.Fatal(err)
		}
		counts, means, stds, mins, maxs := singleProcess(t, "../../testdata/nwb/"+c.file, c.dataset, c.sel)
		for k := range counts {
			if st.Count[k] != counts[k] || st.Mean[k].F != means[k] || st.Std[k].F != stds[k] || st.Min[k].Float() != mins[k] || st.Max[k].Float() != maxs[k] {
				t.Errorf("%s[%s] column %d: %d %v %v %v %v, single process %d %v %v %v %v", c.dataset, c.sel, k,
					st.Count[k], st.Mean[k], st.Std[k], st.Min[k], st.Max[k], counts[k], means[k], stds[k], mins[k], maxs[k])
			}
		}
		if len(st.Count) != len(counts) {
			t.Errorf("%s[%s]: %d columns, want %d", c.dataset, c.sel, len(st.Count), len(counts))
		}
	}
	if f := srv.injected(); f["503"] == 0 || f["cut"] == 0 {
		t.Errorf("faults injected: %v; want both kinds", f)
	}
}

// TestStatsEmptySelection reduces an empty selection: the plan has no
// chunk group to give, and the output still names the dataset, its shape
// and every selected column, each with a count of zero.
func TestStatsEmptySelection(t *testing.T) {
	srv := newFaultyServer(t, readFiles(t))
	out := filepath.Join(t.TempDir(), "stats.json")
	got := runStats(t, DatasetJob{Source: srv.URL + "/tables.nwb", Dataset: "acquisition/ElectricalSeries/data", Selection: "5:5, 1:4", Out: out})
	var st Summary
	if err := json.Unmarshal(got, &st); err != nil {
		t.Fatal(err)
	}
	if st.Dataset != "/acquisition/ElectricalSeries/data" || len(st.Shape) != 2 || st.Shape[1] != 4 {
		t.Errorf("dataset %q of shape %v", st.Dataset, st.Shape)
	}
	if !slices.Equal(st.Count, []int64{0, 0, 0}) {
		t.Errorf("counts %v, want three zeros", st.Count)
	}
}

// TestStatsAmend writes the statistics into an amendment of the NWB file,
// locally and on memfs://, and reads them back with package nwb; the
// statistics written on memfs are those written locally.
func TestStatsAmend(t *testing.T) {
	dir := t.TempDir()
	amend := filepath.Join(dir, "tables.stats.lindi.tar")
	out := filepath.Join(dir, "stats.json")
	src := "../../testdata/nwb/tables.nwb"
	for range 2 { // the second run replaces the first amendment
		runStats(t, DatasetJob{Source: src, Dataset: "acquisition/ElectricalSeries/data", GroupBytes: 2000, Out: out, Amend: amend})
	}
	memOut, memAmend := "memfs://stats/stats.json", "memfs://stats/tables.stats.lindi.tar"
	p, s := beam.NewPipelineWithRoot()
	DatasetStats(s, DatasetJob{Source: src, Dataset: "acquisition/ElectricalSeries/data", GroupBytes: 2000, Out: memOut, Amend: memAmend})
	if err := ptest.Run(p); err != nil {
		t.Fatal(err)
	}
	if a, b := readOut(t, out), readOut(t, memOut); !bytes.Equal(a, b) {
		t.Errorf("statistics on memfs\n%s\nlocally\n%s", b, a)
	}
	fromMem := filepath.Join(dir, "from-memfs.lindi.tar")
	if err := os.WriteFile(fromMem, readOut(t, memAmend), 0o666); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{amend, fromMem} {
		checkAmendment(t, src, name)
	}
}

// checkAmendment checks the statistics table of the amendment name of src
// against a single-process computation.
func checkAmendment(t *testing.T, src, name string) {
	t.Helper()
	ctx := context.Background()
	f, err := nwb.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := f.Table(ctx, "processing/"+StatsModule+"/"+StatsTable)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 4 || !slices.Equal(tab.Columns(), []string{"count", "mean", "std", "min", "max"}) {
		t.Fatalf("%s: table of %d rows, columns %v", name, tab.Len(), tab.Columns())
	}
	counts, means, stds, mins, maxs := singleProcess(t, src, "acquisition/ElectricalSeries/data", "")
	want := map[string][]float64{"mean": means, "std": stds, "min": mins, "max": maxs}
	want["count"] = nil
	for _, n := range counts {
		want["count"] = append(want["count"], float64(n))
	}
	for col, w := range want {
		c, err := tab.Column(col)
		if err != nil {
			t.Fatal(err)
		}
		got, err := h5.Read[float64](ctx, c.Data(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Data, w) {
			t.Errorf("%s: column %s: %v, want %v", name, col, got, w)
		}
	}
}

// injected returns a copy of the counts of faults so far.
func (fs *faultyServer) injected() map[string]int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return maps.Clone(fs.faults)
}
