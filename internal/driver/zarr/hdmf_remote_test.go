package zarr_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lindigo/lindi/selection"
)

// zarrServer serves the store at dir over HTTP, files only (a directory is
// 404, as on S3), with a .zmetadata made from its metadata documents when
// consolidated is set. It records the paths requested.
type zarrServer struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

// storePath is where serveStore serves a store: a name ending in ".zarr",
// as hdmf-zarr names its stores, so that no driver of single files reads
// its first bytes.
const storePath = "/x.nwb.zarr"

func serveStore(t *testing.T, dir string, consolidated bool) *zarrServer {
	t.Helper()
	var zmeta []byte
	if consolidated {
		meta := map[string]json.RawMessage{}
		err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			switch info.Name() {
			case ".zgroup", ".zarray", ".zattrs":
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(dir, p)
				meta[filepath.ToSlash(rel)] = b
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if zmeta, err = json.Marshal(map[string]any{"zarr_consolidated_format": 1, "metadata": meta}); err != nil {
			t.Fatal(err)
		}
	}
	s := &zarrServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		rel := strings.TrimPrefix(r.URL.Path, storePath)
		if rel == "/.zmetadata" && zmeta != nil {
			http.ServeContent(w, r, ".zmetadata", time.Time{}, strings.NewReader(string(zmeta)))
			return
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() || !strings.HasPrefix(r.URL.Path, storePath+"/") {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, p)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *zarrServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

// TestHDMFZarrRemote: each hdmf-zarr store served over HTTP reads as the
// local directory does, object by object: with consolidated metadata the
// whole tree walked, without it every object looked up by its path (a
// store that cannot be listed). Opening one with consolidated metadata costs
// one round of requests (.zmetadata, and the probes of the other store
// formats, made at once) before the first dataset read, and none for
// metadata after.
func TestHDMFZarrRemote(t *testing.T) {
	for _, name := range hdmfStores {
		t.Run(name, func(t *testing.T) {
			dir := fixture(name + ".nwb.zarr")
			local := describe(t, openH5(t, dir))

			s := serveStore(t, dir, true)
			f := openH5(t, s.URL+storePath)
			// One round of requests: a URL ending in .zarr has no first
			// bytes for the drivers of single files to sniff, and the
			// formats a .zarr store may be in (Zarr v2, v3) are
			// probed at once, each with one request at most (one that comes
			// after .zmetadata answered is cancelled before it is sent);
			// the root's .zgroup and .zattrs are asked for with .zmetadata.
			got := s.requests()
			probes := map[string]int{}
			for _, p := range got {
				probes[p]++
			}
			allowed := 0
			for _, p := range []string{"/zarr.json", "/.zgroup", "/.zattrs"} {
				allowed += probes[storePath+p]
			}
			if probes[storePath+"/.zmetadata"] != 1 || len(got) != len(probes) || allowed+1 != len(got) {
				t.Errorf("opening with .zmetadata requested %v", got)
			}
			before := len(s.requests())
			d, err := f.Dataset(ctx, "acquisition/"+firstSeries(name)+"/data")
			if err != nil {
				t.Fatal(err)
			}
			if got := s.requests()[before:]; len(got) != 0 {
				t.Errorf("finding a dataset after open requested %v", got)
			}
			if _, err := d.Read(ctx, nil); err != nil {
				t.Fatal(err)
			}
			for _, p := range s.requests()[before:] {
				if strings.HasSuffix(p, ".zarray") || strings.HasSuffix(p, ".zattrs") || strings.HasSuffix(p, ".zgroup") {
					t.Errorf("reading a dataset requested metadata %s", p)
				}
			}
			remote := describe(t, f)
			if !reflect.DeepEqual(remote, local) {
				for p := range local {
					if !reflect.DeepEqual(remote[p], local[p]) {
						t.Errorf("%s: consolidated %s, local %s", p, show(remote[p]), show(local[p]))
					}
				}
			}

			lazy := openH5(t, serveStore(t, dir, false).URL+storePath)
			for _, p := range mapsKeys(local) {
				want := local[p]
				if strings.HasPrefix(want.kind, "soft link → ") {
					want = local[strings.TrimPrefix(want.kind, "soft link → ")]
				}
				o, err := lazy.Get(ctx, p)
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				got := describeOne(t, o)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: without .zmetadata %s, local %s", p, show(got), show(want))
				}
			}
		})
	}
}

func firstSeries(store string) string {
	if strings.HasPrefix(store, "ecephys") {
		return "ElectricalSeries"
	}
	return "TwoPhotonSeries"
}

func mapsKeys(m map[string]object) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestRemoteChunksWhole reads an array of a Zarr v2 store over HTTP: each
// chunk, whose size only a request tells, is read whole in one request, a
// batch's at once (engine.Preparer), never sized first.
func TestRemoteChunksWhole(t *testing.T) {
	dir, err := filepath.Abs("../../../testdata/conformance/fixture.zarr")
	if err != nil {
		t.Fatal(err)
	}
	s := serveStore(t, dir, true)
	f := openH5(t, s.URL+storePath)
	d, err := f.Dataset(ctx, "u2_3d")
	if err != nil {
		t.Fatal(err)
	}
	before := len(s.requests())
	if _, err := d.Read(ctx, selection.Selection{selection.Ellipsis()}); err != nil {
		t.Fatal(err)
	}
	got := s.requests()[before:]
	entries, err := os.ReadDir(filepath.Join(dir, "u2_3d"))
	if err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			chunks++
		}
	}
	seen := map[string]bool{}
	for _, p := range got {
		seen[p] = true
	}
	if chunks < 2 || len(got) != chunks || len(seen) != chunks {
		t.Errorf("%d chunks read with %d requests (%d paths): %v", chunks, len(got), len(seen), got)
	}
}
