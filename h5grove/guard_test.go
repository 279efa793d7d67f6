package h5grove

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// do sends a GET of path with the headers kv (name, value, …) to base.
func do(t *testing.T, method, base, path string, kv ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "Host" {
			req.Host = kv[i+1]
		} else {
			req.Header.Set(kv[i], kv[i+1])
		}
	}
	c := &http.Client{Timeout: 30 * time.Second} // a hang guard only
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, b}
}

// TestOriginAndHost: a page of another origin, or a request naming another
// host (DNS rebinding), is refused; loopback names, the served address and
// the names and origins allowed are answered.
func TestOriginAndHost(t *testing.T) {
	files := Files{"fixture.h5": filepath.Join(conformance, "fixture.h5")}
	ts := serve(t, files)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))
	const q = "/data?file=fixture.h5&path=/misc/f4_2d_edge"
	for _, c := range []struct {
		kv   []string
		want int
	}{
		{nil, 200},
		{[]string{"Origin", ts.URL}, 200},
		{[]string{"Host", "localhost:" + port}, 200},
		{[]string{"Host", "[::1]:" + port}, 200},
		{[]string{"Origin", "http://evil.example"}, 403},
		{[]string{"Origin", "null"}, 403},
		{[]string{"Host", "evil.example:" + port}, 403},
		{[]string{"Host", "evil.example:" + port, "Origin", "http://evil.example:" + port}, 403},
		{[]string{"Host", "10.1.2.3"}, 403},
	} {
		a := do(t, "GET", ts.URL, q, c.kv...)
		if a.status != c.want || a.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%v: %d %v, want %d and no CORS", c.kv, a.status, a.header, c.want)
		}
		if c.want == 403 && strings.Contains(string(a.body), "[[") {
			t.Errorf("%v: refused with data: %s", c.kv, a.body)
		}
	}
	allowed := serve(t, files, WithAllowHost("viewer.lan"), WithAllowOrigin("http://app.example"))
	if a := do(t, "GET", allowed.URL, q, "Host", "viewer.lan"); a.status != 200 {
		t.Errorf("an allowed host: %d %s", a.status, a.body)
	}
	if a := do(t, "GET", allowed.URL, q, "Origin", "http://app.example"); a.status != 200 || a.header.Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Errorf("an allowed origin: %d %v", a.status, a.header)
	}
	if a := do(t, "GET", allowed.URL, q, "Origin", "http://evil.example"); a.status != 403 {
		t.Errorf("another origin beside an allowed one: %d", a.status)
	}
}

// TestFIFO: a FIFO in the served directory, or named, is refused at once
// instead of pinning the request.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.h5")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ts := range []string{serve(t, Dir(dir)).URL, serve(t, Files{"pipe.h5": fifo}).URL} {
		if a := do(t, "GET", ts, "/meta?file=pipe.h5"); a.status != http.StatusForbidden {
			t.Errorf("a FIFO: %d %s", a.status, a.body)
		}
	}
}

// TestHead: HEAD on /data and /stats answers the headers, the length when
// the format tells it, and reads nothing (the chunk's file is missing, so
// a read would fail).
func TestHead(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "x.lindi.json"), refsDoc("missing.bin"))
	ts := serve(t, Dir(dir))
	if a := do(t, "GET", ts.URL, "/data?file=x.lindi.json&path=/leak&format=bin"); a.status == 200 {
		t.Fatalf("GET of a missing chunk: %d", a.status)
	}
	n := len(secret)
	for q, length := range map[string]string{
		"/data?file=x.lindi.json&path=/leak&format=bin":  fmt.Sprint(n),
		"/data?file=x.lindi.json&path=/leak&format=npy":  fmt.Sprint(128 + n),
		"/data?file=x.lindi.json&path=/leak&format=json": "",
		"/stats?file=x.lindi.json&path=/leak":            "",
	} {
		a := do(t, "HEAD", ts.URL, q)
		if a.status != 200 || len(a.body) != 0 || length != "" && a.header.Get("Content-Length") != length {
			t.Errorf("HEAD %s: %d %v, want 200 and length %q", q, a.status, a.header, length)
		}
	}
	if a := do(t, "HEAD", ts.URL, "/data?file=x.lindi.json&path=/leak&selection=99"); a.status != 422 {
		t.Errorf("HEAD of a bad selection: %d", a.status)
	}
}

// TestErrorWords: with a served directory called "data", messages keep
// every "data" in them and name files as the request did.
func TestErrorWords(t *testing.T) {
	fixture, err := filepath.Abs(filepath.Join(conformance, "fixture.lindi.json"))
	if err != nil {
		t.Fatal(err)
	}
	top := t.TempDir()
	t.Chdir(top)
	if err := os.Mkdir("data", 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, fixture, filepath.Join(top, "data", "x.lindi.json"))
	write(t, filepath.Join("data", "junk.h5"), "not a data file")
	ts := serve(t, Dir("data"))
	msg := do(t, "GET", ts.URL, "/data?file=x.lindi.json&path=/acquisition/ElectricalSeries/data&selection=99999999").message(t)
	if !strings.Contains(msg, "/acquisition/ElectricalSeries/data") || !strings.Contains(msg, "99999999") {
		t.Errorf("a bad selection: %s", msg)
	}
	t.Log(msg)
	msg = do(t, "GET", ts.URL, "/meta?file=junk.h5").message(t)
	t.Log(msg)
	if strings.Contains(msg, top) || !strings.Contains(msg, `junk.h5`) {
		t.Errorf("an unreadable file: %s", msg)
	}
	for _, m := range []string{
		replacePath("h5: open /srv/data/x.h5: cannot read /srv/data/x.h5 data", "/srv/data/", ""),
		replacePath("read /srv/datax/y and /srv/data/z", "/srv/data/", ""),
	} {
		if strings.Contains(m, "/srv/data/") || !strings.Contains(m, "data") {
			t.Errorf("replacePath: %q", m)
		}
	}
	if m := replacePath("a/srv/data/x", "/srv/data/", ""); m != "a/srv/data/x" {
		t.Errorf("replacePath inside a longer path: %q", m)
	}
}

// TestBudget: requests share the budget first come, first served; one that
// cannot get its share in time fails with errBusy.
func TestBudget(t *testing.T) {
	b := newBudget(100)
	ctx := context.Background()
	if err := b.acquire(ctx, 60, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := b.acquire(ctx, 50, time.Millisecond); !errors.Is(err, errBusy) {
		t.Errorf("over the budget: %v, want errBusy", err)
	}
	if err := b.acquire(ctx, 101, time.Hour); !errors.Is(err, errTooLarge) {
		t.Errorf("more than the budget: %v", err)
	}
	got := make(chan error)
	go func() { got <- b.acquire(ctx, 50, time.Hour) }()
	for {
		b.mu.Lock()
		waiting := len(b.waiters)
		b.mu.Unlock()
		if waiting == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	b.release(60)
	if err := <-got; err != nil {
		t.Errorf("after a release: %v", err)
	}
	b.release(50)
	if b.used != 0 || len(b.waiters) != 0 {
		t.Errorf("at rest: used %d, %d waiting", b.used, len(b.waiters))
	}
}

// TestIdleAndConns: Serve closes idle connections and holds at most
// WithMaxConns at once.
func TestIdleAndConns(t *testing.T) {
	s, err := New(Files{"fixture.h5": filepath.Join(conformance, "fixture.h5")}, WithIdleTimeout(50*time.Millisecond), WithMaxConns(2))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	ask := func(c net.Conn) error {
		fmt.Fprintf(c, "GET /meta?file=fixture.h5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a hang guard only
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, res.Body)
		return res.Body.Close()
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	idle := dial()
	if err := ask(idle); err != nil {
		t.Fatal(err)
	}
	idle.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := idle.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("an idle connection: read %d, %v; want it closed by the server", n, err)
	}
}

// fakeListener hands out one end of a pipe for each Accept.
type fakeListener struct{ closed chan struct{} }

func (f *fakeListener) Accept() (net.Conn, error) {
	select {
	case <-f.closed:
		return nil, net.ErrClosed
	default:
	}
	c, _ := net.Pipe()
	return c, nil
}
func (f *fakeListener) Close() error   { close(f.closed); return nil }
func (f *fakeListener) Addr() net.Addr { return &net.TCPAddr{} }

// TestLimitListener: a third Accept waits until one of two connections
// closes, and a Close wakes it.
func TestLimitListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := LimitListener(&fakeListener{closed: make(chan struct{})}, 2)
		a, _ := l.Accept()
		l.Accept()
		got := make(chan net.Conn, 2)
		go func() { c, _ := l.Accept(); got <- c }()
		synctest.Wait()
		if len(got) != 0 {
			t.Fatal("a third connection accepted while two are open")
		}
		a.Close()
		a.Close() // frees one slot, not two
		synctest.Wait()
		if len(got) != 1 {
			t.Fatal("no connection accepted after one closed")
		}
		go func() { c, err := l.Accept(); got <- c; _ = err }()
		synctest.Wait()
		if len(got) != 1 {
			t.Fatal("a double Close freed two slots")
		}
		l.Close()
		synctest.Wait()
		if len(got) != 2 || <-got == nil || <-got != nil {
			t.Error("Close did not wake a waiting Accept with an error")
		}
	})
}
