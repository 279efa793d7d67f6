package zarr3_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// The zarrshadow fixture (testdata/zarrshadow, written by its gen.py with
// h5py and numcodecs): an HDF5 file shadowed as a Zarr v3 reference store,
// as a directory with a chunk index and as one JSON with every chunk listed.
const shadowDir = "../../../testdata/zarrshadow"

type shadowExpected struct {
	IndexBlocks        []int   `json:"index_blocks"`
	IndexBlocksWritten int     `json:"index_blocks_written"`
	ChunksAllocated    int     `json:"chunks_allocated"`
	DataSum            int64   `json:"data_sum"`
	Rows840to860Col3   []int16 `json:"data_rows_840_860_col_3"`
	Row5               []int16 `json:"data_row_5"`
	Col29Step97        []int16 `json:"data_col_29_step_97"`
	TimestampsSum      float64 `json:"timestamps_sum"`
}

func loadShadowExpected(t *testing.T) shadowExpected {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shadowDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e shadowExpected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func readInt16(t *testing.T, f *h5.File, path, sel string) []int16 {
	t.Helper()
	d, err := f.Dataset(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := selection.Parse(sel)
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.Read[int16](ctx, d, s)
	if err != nil {
		t.Fatalf("%s[%s]: %v", path, sel, err)
	}
	return a.Data
}

// checkShadow reads the fixture's datasets from f and compares them with
// what h5py read from the HDF5 file, and with our HDF5 driver reading it.
func checkShadow(t *testing.T, f *h5.File) {
	t.Helper()
	e := loadShadowExpected(t)
	const data = "acquisition/ts/data"
	all := readInt16(t, f, data, ":, :")
	var sum int64
	for _, v := range all {
		sum += int64(v)
	}
	if sum != e.DataSum {
		t.Errorf("sum of %s = %d, h5py %d", data, sum, e.DataSum)
	}
	for _, c := range []struct {
		sel  string
		want []int16
	}{
		{"840:860, 3", e.Rows840to860Col3}, // across the written edge: fill -7 after row 849
		{"5, :", e.Row5},
		{"::97, 29", e.Col29Step97},
	} {
		if got := readInt16(t, f, data, c.sel); !slices.Equal(got, c.want) {
			t.Errorf("%s[%s] = %v, h5py %v", data, c.sel, got, c.want)
		}
	}
	h, err := h5.Open(ctx, filepath.Join(shadowDir, "data.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if want := readInt16(t, h, data, ":, :"); !slices.Equal(all, want) {
		t.Errorf("%s differs from the HDF5 file's", data)
	}
	d, err := f.Dataset(ctx, "acquisition/ts/timestamps")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := h5.Read[float64](ctx, d, selection.Selection{selection.All()})
	if err != nil {
		t.Fatal(err)
	}
	var tsum float64
	for _, v := range ts.Data {
		tsum += v
	}
	if diff := tsum - e.TimestampsSum; diff > 1e-9 || diff < -1e-9 {
		t.Errorf("sum of timestamps = %v, h5py %v", tsum, e.TimestampsSum)
	}
	if u, err := d.Attrs().Get("_DTYPE"); err == nil {
		t.Errorf("_DTYPE shows as an attribute (%v)", u)
	}
	ds, _ := f.Dataset(ctx, data)
	if u, err := ds.Attrs().Get("unit"); err != nil || u != "volts" {
		t.Errorf("unit = %v, %v", u, err)
	}
}

func TestZarrshadowLocal(t *testing.T) {
	for _, name := range []string{"shadow.zindi", "shadow.zindi/refs.json", "shadow.json"} {
		t.Run(name, func(t *testing.T) {
			f, err := h5.Open(ctx, filepath.Join(shadowDir, name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			checkShadow(t, f)
		})
	}
}

// logServer serves dir and logs the paths asked for.
type logServer struct {
	mu    sync.Mutex
	paths []string
	h     http.Handler
}

func (s *logServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	s.h.ServeHTTP(w, r)
}

func (s *logServer) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.paths
	s.paths = nil
	return p
}

// TestZarrshadowRemote reads the directory form over HTTP: opening reads
// refs.json and nothing of the index; a read then asks for the index
// array's zarr.json once, only the index blocks covering it, and the data.
func TestZarrshadowRemote(t *testing.T) {
	s := &logServer{h: http.FileServer(http.Dir(shadowDir))}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	f, err := h5.Open(ctx, srv.URL+"/shadow.zindi")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range s.take() {
		if strings.Contains(p, "/index/") || strings.HasSuffix(p, ".h5") {
			t.Errorf("opening asked for %s", p)
		}
	}
	const index = "/shadow.zindi/index/acquisition/ts/data/"
	// Rows 0:170 are grid rows 0-16, all in index block (0, 0).
	readInt16(t, f, "acquisition/ts/data", "0:170, 0:30")
	count := func(paths []string) (meta, blocks, data int) {
		for _, p := range paths {
			switch {
			case p == index+"zarr.json":
				meta++
			case strings.HasPrefix(p, index+"c/"):
				blocks++
			case p == "/data.h5":
				data++
			default:
				t.Errorf("unexpected request for %s", p)
			}
		}
		return
	}
	if meta, blocks, data := count(s.take()); meta != 1 || blocks != 1 || data == 0 {
		t.Errorf("first read: %d index metadata, %d index blocks, %d data requests; want 1, 1, some", meta, blocks, data)
	}
	// Rows 160:360 touch blocks 0 (kept), 1 and 2.
	readInt16(t, f, "acquisition/ts/data", "160:360, 7")
	if meta, blocks, _ := count(s.take()); meta != 0 || blocks != 2 {
		t.Errorf("second read: %d index metadata, %d index blocks; want 0, 2", meta, blocks)
	}
	checkShadow(t, f)
}

// copyShadow copies the fixture to a temporary directory, data.h5 beside
// shadow.zindi as in testdata.
func copyShadow(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(shadowDir)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// readShadowErr opens the shadow.zindi of dir and reads sel of its indexed
// array: the error of the first step that fails, nil if none does.
func readShadowErr(dir, sel string) error {
	f, err := h5.Open(ctx, filepath.Join(dir, "shadow.zindi"))
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "acquisition/ts/data")
	if err != nil {
		return err
	}
	s, err := selection.Parse(sel)
	if err != nil {
		return err
	}
	_, err = d.Read(ctx, s)
	return err
}

// TestZarrshadowMalformed checks that a broken chunk index fails the read
// that needs it with an error naming what is wrong, never reading as fill.
func TestZarrshadowMalformed(t *testing.T) {
	const meta = "shadow.zindi/index/acquisition/ts/data/zarr.json"
	for _, tc := range []struct {
		name, file, old, new, want string
	}{
		{"index shape", meta, `100,`, `99,`, "shape"},
		{"index dtype", meta, `"uint64"`, `"float64"`, "uint64"},
		{"no index array", meta, `"node_type": "array"`, `"node_type": "group"`, "index/acquisition/ts/data/zarr.json"},
		{"index elsewhere", "shadow.zindi/refs.json", `"index": "index/acquisition/ts/data"`, `"index": "index/nowhere"`, "index/nowhere"},
		{"index in version 1", "shadow.zindi/refs.json", `"version": 2`, `"version": 1`, "version 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyShadow(t)
			p := filepath.Join(dir, tc.file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tc.old) {
				t.Fatalf("%s has no %s", tc.file, tc.old)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := readShadowErr(dir, "0:10, 0"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
	t.Run("index blocks too large", func(t *testing.T) {
		// A grid of 10^7 × 3·10^4 chunks whose index is one block: refused
		// before anything is allocated for it.
		dir := copyShadow(t)
		edit := func(file, old, new string) {
			p := filepath.Join(dir, file)
			b, err := os.ReadFile(p)
			if err != nil || !strings.Contains(string(b), old) {
				t.Fatalf("%s: %v, or no %s", file, err, old)
			}
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		edit("shadow.zindi/refs.json", `\"shape\":[1000,30]`, `\"shape\":[100000000,30000]`)
		var m map[string]any
		b, _ := os.ReadFile(filepath.Join(dir, meta))
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // the fill value, 2^64-1, is no float64
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		m["shape"] = []int{10000000, 30000, 2}
		m["chunk_grid"] = map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": []int{10000000, 30000, 2}}}
		b, _ = json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, meta), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := readShadowErr(dir, "0:10, 0"); err == nil || !strings.Contains(err.Error(), "a block") {
			t.Fatalf("got %v, want an error about the block size", err)
		}
	})
	t.Run("entry past the file", func(t *testing.T) {
		// An index entry pointing past the end of data.h5: the read fails.
		dir := copyShadow(t)
		if err := os.Truncate(filepath.Join(dir, "data.h5"), 4096); err != nil {
			t.Fatal(err)
		}
		if err := readShadowErr(dir, "800:850, 29"); err == nil || !strings.Contains(err.Error(), "data.h5") {
			t.Fatalf("got %v, want an error naming data.h5", err)
		}
	})
}

// FuzzChunkIndex reads the fixture's indexed array with a fuzzed index
// zarr.json and a fuzzed first index block: any outcome but a panic (or a
// hang) is fine.
func FuzzChunkIndex(f *testing.F) {
	const index = "shadow.zindi/index/acquisition/ts/data"
	meta, err := os.ReadFile(filepath.Join(shadowDir, index, "zarr.json"))
	if err != nil {
		f.Fatal(err)
	}
	block, err := os.ReadFile(filepath.Join(shadowDir, index, "c/0/0/0"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(meta, block)
	f.Add(meta, block[:len(block)/2])
	f.Add([]byte(strings.Replace(string(meta), `"blosc"`, `"gzip"`, 1)), block)
	dir := f.TempDir()
	if err := os.CopyFS(dir, os.DirFS(shadowDir)); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, meta, block []byte) {
		if err := os.WriteFile(filepath.Join(dir, index, "zarr.json"), meta, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, index, "c/0/0/0"), block, 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := h5.Open(ctx, filepath.Join(dir, "shadow.zindi"), h5.WithMaxReadBytes(1<<20))
		if err != nil {
			return
		}
		defer file.Close()
		d, err := file.Dataset(ctx, "acquisition/ts/data")
		if err != nil {
			return
		}
		s, _ := selection.Parse("0:170, :")
		d.Read(ctx, s)
	})
}

// TestRemoteChunksWhole reads an unsharded array over HTTP: each chunk,
// whose size only a request tells, is read whole in one request, the
// batch's at once (engine.Preparer), with no probe of its size first.
func TestRemoteChunksWhole(t *testing.T) {
	s := &logServer{h: http.FileServer(http.Dir(fixtures))}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	f, err := h5.Open(ctx, srv.URL+"/fixture.zarr3")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "dtypes/int32")
	if err != nil {
		t.Fatal(err)
	}
	s.take()
	if _, err := d.Read(ctx, selection.Selection{selection.Ellipsis()}); err != nil {
		t.Fatal(err)
	}
	chunks, _ := filepath.Glob(filepath.Join(fixtures, "fixture.zarr3/dtypes/int32/c/*/*/*"))
	got := s.take()
	counts := map[string]int{}
	for _, p := range got {
		counts[p]++
	}
	if len(chunks) < 2 || len(got) != len(chunks) || len(counts) != len(chunks) {
		t.Errorf("%d chunks read with %d requests (%d paths), want one each", len(chunks), len(got), len(counts))
	}
}
