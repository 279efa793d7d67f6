package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
)

// ranges serves one object at /f, recording the Range header of every
// request. The first cut requests have their body cut half way; with
// ignore the server sends the whole object (200) whatever Range asks.
type ranges struct {
	data   []byte
	etag   string
	ignore bool
	cut    int

	mu   sync.Mutex
	seen []string
}

func (s *ranges) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, r.Header.Get("Range"))
	n := len(s.seen)
	s.mu.Unlock()
	if r.URL.Path != "/f" {
		http.NotFound(w, r)
		return
	}
	if s.etag != "" {
		w.Header().Set("ETag", s.etag)
	}
	if s.ignore {
		r.Header.Del("Range")
	}
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(s.data))
	})
	if n <= s.cut {
		c, err := netsim.New(h, netsim.Config{Cut: 1})
		if err != nil {
			panic(err)
		}
		h = c
	}
	h.ServeHTTP(w, r)
}

// requests returns the Range headers seen since the last call.
func (s *ranges) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = nil
	return out
}

// pattern returns data of n bytes that differ from their neighbours.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func checkTail(t *testing.T, s Source, n int, data []byte) {
	t.Helper()
	p := make([]byte, n)
	got, size, err := ReadTail(context.Background(), s, p)
	want := data[max(0, len(data)-n):]
	if err != nil || size != int64(len(data)) || got != len(want) || !bytes.Equal(p[:got], want) {
		t.Fatalf("ReadTail(%d) = %d, %d, %v; want %d, %d (bytes equal %v)", n, got, size, err, len(want), len(data), bytes.Equal(p[:got], want))
	}
}

// TestReadTailHTTP: one request, a suffix range, whatever the length asked
// and the object's size; once the size is known, an ordinary range.
func TestReadTailHTTP(t *testing.T) {
	for _, size := range []int{0, 1, 100, 5000} {
		data := pattern(size)
		for _, n := range []int{1, 16, 100, 4999, 5000, 7000} {
			t.Run(fmt.Sprintf("%d of %d", n, size), func(t *testing.T) {
				s := &ranges{data: data}
				srv := serve(t, s)
				h, err := NewHTTP(srv.URL+"/f", WithResolver(nil))
				if err != nil {
					t.Fatal(err)
				}
				checkTail(t, h, n, data)
				if got := s.requests(); len(got) != 1 || got[0] != fmt.Sprintf("bytes=-%d", n) {
					t.Fatalf("requests %q, want one suffix range", got)
				}
				if size, err := h.Size(context.Background()); err != nil || size != int64(len(data)) {
					t.Fatalf("Size after ReadTail = %d, %v", size, err)
				}
				if s.requests() != nil {
					t.Fatal("Size made a request after ReadTail told it")
				}
				checkTail(t, h, n, data)
				got := s.requests()
				if size == 0 && len(got) != 0 || size > 0 && (len(got) != 1 || strings.HasPrefix(got[0], "bytes=-")) {
					t.Fatalf("second ReadTail made requests %q, want one ordinary range (none for an empty object)", got)
				}
			})
		}
	}
}

// TestReadTailEmpty: an empty object, whichever way the server says so.
func TestReadTailEmpty(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		header map[string]string
	}{
		{"416", 416, map[string]string{"Content-Range": "bytes */0"}},
		{"206 net/http", 206, map[string]string{"Content-Range": "bytes 0--1/0", "Content-Length": "0"}},
		{"200", 200, map[string]string{"Content-Length": "0"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := rawServer(t, tt.status, tt.header, "")
			h, err := NewHTTP(srv.URL+"/e", WithResolver(nil))
			if err != nil {
				t.Fatal(err)
			}
			n, size, err := h.ReadTail(context.Background(), make([]byte, 8))
			if n != 0 || size != 0 || err != nil {
				t.Fatalf("ReadTail = %d, %d, %v; want 0, 0, nil", n, size, err)
			}
			if st := h.Stats(); st.Requests != 1 {
				t.Fatalf("%d requests, want 1", st.Requests)
			}
		})
	}
}

// TestReadTailIgnoredRange: a server sending the whole object is taken as
// ReadAt takes it: kept when small (later reads make no request), refused
// when over the WithMaxWhole limit.
func TestReadTailIgnoredRange(t *testing.T) {
	data := pattern(3000)
	s := &ranges{data: data, ignore: true}
	srv := serve(t, s)
	for _, n := range []int{10, 3000, 4000} {
		h, err := NewHTTP(srv.URL+"/f", WithResolver(nil))
		if err != nil {
			t.Fatal(err)
		}
		checkTail(t, h, n, data)
		checkTail(t, h, 7, data)
		if got := s.requests(); len(got) != 1 {
			t.Fatalf("ReadTail(%d): requests %q, want 1 (the whole object kept)", n, got)
		}
	}
	h, err := NewHTTP(srv.URL+"/f", WithResolver(nil), WithMaxWhole(1000))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = h.ReadTail(context.Background(), make([]byte, 10))
	if !errors.Is(err, ErrWhole) || !strings.Contains(err.Error(), srv.URL+"/f") {
		t.Fatalf("err = %v, want ErrWhole naming the URL", err)
	}
	// Asking for all of it is fine whatever its size.
	checkTail(t, h, 5000, data)
}

// TestReadTailStrict: an answer that is not the tail asked for is an
// error naming the URL, never wrong bytes.
func TestReadTailStrict(t *testing.T) {
	body := strings.Repeat("x", 10)
	for _, tt := range []struct {
		name   string
		header map[string]string
	}{
		{"wrong first byte", map[string]string{"Content-Range": "bytes 0-9/100"}},
		{"not the end", map[string]string{"Content-Range": "bytes 89-98/100"}},
		{"no size", map[string]string{"Content-Range": "bytes 90-99/*"}},
		{"bad header", map[string]string{"Content-Range": "bytes=90-99/100"}},
		{"no header", nil},
		{"wrong length", map[string]string{"Content-Range": "bytes 90-99/100", "Content-Length": "9"}},
		{"short object, wrong start", map[string]string{"Content-Range": "bytes 1-4/5"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := body
			if cl := tt.header["Content-Length"]; cl == "9" {
				b = b[:9]
			}
			srv := rawServer(t, 206, tt.header, b)
			url := srv.URL + "/f"
			h, err := NewHTTP(url, WithResolver(nil))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = h.ReadTail(context.Background(), make([]byte, 10))
			if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), url) {
				t.Fatalf("err = %v, want ErrProtocol naming %s", err, url)
			}
			if _, ok := h.knownSize(); ok {
				t.Fatal("a bad answer set the size")
			}
		})
	}
	srv := rawServer(t, 200, map[string]string{"Content-Type": "text/html"}, "<html>login</html>")
	h, err := NewHTTP(srv.URL+"/f", WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.ReadTail(context.Background(), make([]byte, 10)); !errors.Is(err, ErrProtocol) {
		t.Fatalf("a web page: err = %v, want ErrProtocol", err)
	}
}

// TestReadTailStatus: 404 and other failures are ReadAt's errors.
func TestReadTailStatus(t *testing.T) {
	s := &ranges{data: pattern(100)}
	srv := serve(t, s)
	url := srv.URL + "/missing"
	h, err := NewHTTP(url, WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	n, size, err := h.ReadTail(context.Background(), make([]byte, 10))
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 404 || he.URL != url || n != 0 || size != -1 {
		t.Fatalf("ReadTail = %d, %d, %v; want a 404 naming %s", n, size, err, url)
	}
	var sl sleeps
	h0, count := flaky(2, pattern(100), func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	srv = serve(t, h0)
	h, err = NewHTTP(srv.URL+"/f", WithResolver(nil), fastRetry(&sl))
	if err != nil {
		t.Fatal(err)
	}
	checkTail(t, h, 10, pattern(100))
	if count.Load() != 3 || h.Stats().Retries != 2 {
		t.Fatalf("%d requests, %d retries; want 3, 2", count.Load(), h.Stats().Retries)
	}
}

// TestReadTailCut: a body cut part way is resumed with an ordinary range
// for the rest, the size being known from the cut answer.
func TestReadTailCut(t *testing.T) {
	data := pattern(100_000)
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprint("ignore Range ", ignore), func(t *testing.T) {
			s := &ranges{data: data, cut: 2, ignore: ignore}
			srv := serve(t, s)
			var sl sleeps
			h, err := NewHTTP(srv.URL+"/f", WithResolver(nil), fastRetry(&sl))
			if err != nil {
				t.Fatal(err)
			}
			n := 60_000
			if ignore {
				n = 100_000 // all of it: the whole object is the answer asked for
			}
			checkTail(t, h, n, data)
			got := s.requests()
			if len(got) != 3 || got[0] != fmt.Sprintf("bytes=-%d", n) {
				t.Fatalf("requests %q, want the suffix and two resumptions", got)
			}
			for _, r := range got[1:] {
				if strings.HasPrefix(r, "bytes=-") {
					t.Fatalf("resumed with %q, want an ordinary range", r)
				}
			}
			if h.Stats().Retries != 2 {
				t.Fatalf("%d retries, want 2", h.Stats().Retries)
			}
		})
	}
}

// TestReadTailNoSuffix: a 416 to a suffix of a non-empty object (a server
// without suffix ranges) falls back to the size and an ordinary range.
func TestReadTailNoSuffix(t *testing.T) {
	data := pattern(500)
	s := &ranges{data: data}
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Header.Get("Range"), "bytes=-") {
			s.requests()
			w.Header().Set("Content-Range", "bytes */500")
			w.WriteHeader(416)
			return
		}
		s.ServeHTTP(w, r)
	}))
	h, err := NewHTTP(srv.URL+"/f", WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	checkTail(t, h, 20, data)
	if got := s.requests(); len(got) != 1 || got[0] != "bytes=480-499" {
		t.Fatalf("requests after the 416: %q, want one ordinary range", got)
	}
}

// TestReadTailRenewal: a 403 to a resolved URL resolves it again, as for
// ReadAt.
func TestReadTailRenewal(t *testing.T) {
	data := pattern(5000)
	w := newDandiWorld(t, data)
	w.validSig.Store(2) // the first presigned URL is already revoked
	h, err := NewHTTP(w.api.URL+"/api/assets/abc/download/", WithResolver(w.resolver(w.api.Client())))
	if err != nil {
		t.Fatal(err)
	}
	checkTail(t, h, 10, data)
	if n := w.resolves.Load(); n != 2 {
		t.Fatalf("%d resolutions, want 2", n)
	}
}

// opaque hides every method but Source's.
type opaque struct{ Source }

// TestReadTailGeneric: sources that are not TailReaders are asked their
// size, then read.
func TestReadTailGeneric(t *testing.T) {
	data := pattern(300)
	b := NewBytes("b", data)
	sec, err := NewSection(b, 50, 200, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 200, 300, 400} {
		checkTail(t, b, n, data)
		checkTail(t, opaque{b}, n, data)
		checkTail(t, sec, n, data[50:250])
	}
	// A source shorter than its size is an error, not short data.
	liar, err := NewReader("liar", bytes.NewReader(data[:100]), 300)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadTail(context.Background(), liar, make([]byte, 250)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
	e := errors.New("no size")
	if _, size, err := ReadTail(context.Background(), sizeless{e}, make([]byte, 5)); !errors.Is(err, e) || size != -1 {
		t.Fatalf("ReadTail = %d, %v; want -1, the Size error", size, err)
	}
}

// sizeless is a source whose Size fails.
type sizeless struct{ err error }

func (s sizeless) ReadAt(context.Context, []byte, int64) (int, error) { return 0, s.err }
func (s sizeless) Size(context.Context) (int64, error)                { return 0, s.err }
func (s sizeless) Name() string                                       { return "sizeless" }

// TestReadTailCache: through an LRU and a disk cache (Open's stack), one
// request; a second ReadTail hits the cache; a new process with the same
// disk cache makes the one request a tail costs, nothing more.
func TestReadTailCache(t *testing.T) {
	data := pattern(20_000)
	s := &ranges{data: data, etag: `"v1"`}
	srv := serve(t, s)
	dir := t.TempDir()
	for run := range 2 {
		lru, err := NewLRU(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewDiskCache(dir, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		src, err := Open(context.Background(), srv.URL+"/f", WithResolver(nil), WithCache(lru), WithDiskCache(d))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := src.(TailReader); !ok {
			t.Fatalf("Open gives a %T, not a TailReader", src)
		}
		checkTail(t, src, 1000, data)
		if got := s.requests(); len(got) != 1 || got[0] != "bytes=-1000" {
			t.Fatalf("run %d: requests %q, want one suffix range", run, got)
		}
		checkTail(t, src, 1000, data)
		if got := s.requests(); len(got) != 0 {
			t.Fatalf("run %d: second ReadTail made requests %q", run, got)
		}
		// The LRU was bypassed: the disk serves the tail.
		dc := src.(*Cache).Unwrap()
		checkTail(t, dc, 1000, data)
		if got := s.requests(); len(got) != 0 {
			t.Fatalf("run %d: ReadTail of the disk cache made requests %q", run, got)
		}
		if st := dc.(Reporter).Stats(); st.CacheHits != 1 {
			t.Fatalf("run %d: disk cache stats %+v, want 1 hit", run, st)
		}
	}
}

// TestReadTailConcurrent: concurrent tails through a Cache share one
// request.
func TestReadTailConcurrent(t *testing.T) {
	data := pattern(50_000)
	s := &ranges{data: data}
	srv := serve(t, s)
	lru, err := NewLRU(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	src, err := Open(context.Background(), srv.URL+"/f", WithResolver(nil), WithCache(lru))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			p := make([]byte, 4096)
			n, size, err := ReadTail(context.Background(), src, p)
			if err == nil && (n != 4096 || size != 50_000 || !bytes.Equal(p, data[50_000-4096:])) {
				err = fmt.Errorf("got %d, %d", n, size)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := s.requests(); len(got) != 1 {
		t.Fatalf("requests %q, want 1", got)
	}
}
