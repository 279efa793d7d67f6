package source

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
)

// versioned serves one object whose content and ETag can change, counting
// the requests.
type versioned struct {
	mu       sync.Mutex
	data     []byte
	etag     string
	requests atomic.Int64
}

func (v *versioned) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.requests.Add(1)
	v.mu.Lock()
	data, etag := v.data, v.etag
	v.mu.Unlock()
	w.Header().Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

func (v *versioned) set(data, etag string) {
	v.mu.Lock()
	v.data, v.etag = []byte(data), etag
	v.mu.Unlock()
}

// readRanges opens url through a new DiskCache on dir (a new process, as
// far as the cache can tell) and reads the ranges.
func readRanges(t *testing.T, dir, url string, ranges [][2]int) []string {
	t.Helper()
	d, err := NewDiskCache(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), url, WithResolver(nil), WithDiskCache(d))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range ranges {
		p := make([]byte, r[1])
		if _, err := src.ReadAt(context.Background(), p, int64(r[0])); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(p))
	}
	return out
}

// TestDiskCache: a second run reads from disk, asking the server only
// whether the object changed; a changed object is read anew; a corrupt
// entry is ignored.
func TestDiskCache(t *testing.T) {
	v := &versioned{}
	v.set(strings.Repeat("abcdefghij", 100), `"v1"`)
	srv := httptest.NewServer(v)
	defer srv.Close()
	dir := t.TempDir()
	ranges := [][2]int{{0, 10}, {100, 20}, {500, 7}}

	first := readRanges(t, dir, srv.URL+"/f", ranges)
	n1 := v.requests.Load()
	second := readRanges(t, dir, srv.URL+"/f", ranges)
	if n2 := v.requests.Load() - n1; n2 != 1 {
		t.Errorf("second run made %d requests, want 1 (the check that the object is unchanged)", n2)
	}
	if strings.Join(first, "|") != strings.Join(second, "|") || first[1] != "abcdefghijabcdefghij" {
		t.Fatalf("second run read %q, first %q", second, first)
	}

	v.set(strings.Repeat("ABCDEFGHIJ", 100), `"v2"`)
	if got := readRanges(t, dir, srv.URL+"/f", ranges); got[0] != "ABCDEFGHIJ" {
		t.Errorf("a changed object was served stale: %q", got[0])
	}

	// Corrupt every entry: reads fall through to the server.
	filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".range") {
			os.WriteFile(path, []byte("garbage"), 0o644)
		}
		return nil
	})
	if got := readRanges(t, dir, srv.URL+"/f", ranges); got[2] != "ABCDEFG" {
		t.Errorf("after corruption: %q", got[2])
	}
}

// TestDiskCacheBounded: the directory stays within its capacity, and
// several caches on one directory (as several processes) read correctly
// at once.
func TestDiskCacheBounded(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 10000)
	srv := serve(t, netsim.Blobs(map[string][]byte{"/f": data}))
	dir := t.TempDir()
	const capacity = 64 << 10
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := NewDiskCache(dir, capacity)
			if err != nil {
				t.Error(err)
				return
			}
			src, err := Open(context.Background(), srv.URL+"/f", WithResolver(nil), WithDiskCache(d))
			if err != nil {
				t.Error(err)
				return
			}
			for i := range 200 {
				off := int64((i*37 + w) % 90000)
				p := make([]byte, 1000)
				if _, err := src.ReadAt(context.Background(), p, off); err != nil {
					t.Error(err)
					return
				}
				if !bytes.Equal(p, data[off:off+1000]) {
					t.Errorf("range at %d read wrong bytes", off)
					return
				}
			}
		}()
	}
	wg.Wait()
	d, _ := NewDiskCache(dir, capacity)
	d.evict()
	if used := d.Used(); used > capacity {
		t.Errorf("cache holds %d bytes, capacity %d", used, capacity)
	}
	if _, err := NewDiskCache("", 0); err == nil {
		t.Error("NewDiskCache with no directory")
	}
	if _, err := NewDiskCache(dir, -1); err == nil {
		t.Error("NewDiskCache with a negative capacity")
	}
}
