package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/internal/netsim"
	"github.com/lindigo/lindi/io/source"
)

// resettingServer serves the conformance fixture from a server that resets
// every second connection and closes each after one answer.
func resettingServer(t *testing.T) (*netsim.Listener, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, "fixture.h5"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := netsim.Listen(16)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: netsim.Blobs(map[string][]byte{"/fixture.h5": data})}
	srv.SetKeepAlivesEnabled(false)
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	l.SetReset(2)
	return l, "http://" + l.Addr().String() + "/fixture.h5"
}

// A host that throttles is named once on stderr with the concurrency it
// backed off to; --stats shows where each host's concurrency settled.
func TestThrottleLineAndStats(t *testing.T) {
	l, url := resettingServer(t)
	host := l.Addr().String()
	code, stdout, stderr := lindi("cat", "--stats", url, "misc/over_1000_chunks", "0:3, 0:4")
	if code != 0 || stdout == "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if l.Resets() == 0 {
		t.Fatal("the server reset no connection")
	}
	line := "lindi: " + host + " is throttling (connection reset): concurrency backed off to "
	if n := strings.Count(stderr, line); n != 1 {
		t.Fatalf("stderr has %d throttle lines for %s, want 1:\n%s", n, host, stderr)
	}
	if !strings.Contains(stderr, host+": concurrency ") || !strings.Contains(stderr, "(auto;") {
		t.Fatalf("--stats does not show where the concurrency of %s settled:\n%s", host, stderr)
	}
	// A fixed concurrency never backs off, and says so.
	l2, url2 := resettingServer(t)
	code, _, stderr = lindi("cat", "--stats", "--concurrency", "2", url2, "misc/over_1000_chunks", "0:3, 0:4")
	if code != 0 || strings.Contains(stderr, "throttling") || !strings.Contains(stderr, l2.Addr().String()+": concurrency 2 (fixed;") {
		t.Fatalf("--concurrency 2: exit %d, stderr:\n%s", code, stderr)
	}
}

// Every command that reads takes --concurrency, checks it, and
// LINDI_CONCURRENCY is checked too.
func TestConcurrencyFlag(t *testing.T) {
	for _, cmd := range []string{"cat", "ls", "info", "nwb", "table", "plot", "serve", "index", "cp", "put"} {
		code, stdout, _ := lindi(cmd, "-h")
		if code != 0 || !strings.Contains(stdout, "-concurrency") {
			t.Errorf("lindi %s -h: exit %d, no --concurrency in:\n%s", cmd, code, stdout)
		}
	}
	h5 := filepath.Join(fixtures, "fixture.h5")
	if code, _, stderr := lindi("ls", "--concurrency", "many", h5); code != 2 || !strings.Contains(stderr, "auto") {
		t.Errorf("--concurrency many: exit %d, stderr %q", code, stderr)
	}
	if code, stdout, _ := lindi("info", "--concurrency", "3", h5, "/misc"); code != 0 || stdout == "" {
		t.Errorf("info --concurrency 3: exit %d", code)
	}
	t.Setenv(source.ConcurrencyEnv, "lots")
	if code, _, stderr := lindi("ls", h5); code != 1 || !strings.Contains(stderr, source.ConcurrencyEnv) {
		t.Errorf("%s=lots: exit %d, stderr %q", source.ConcurrencyEnv, code, stderr)
	}
	if code, _, _ := lindi("ls", "--concurrency", "auto", h5); code != 0 {
		t.Errorf("--concurrency auto over a bad %s: exit %d, want the flag to win", source.ConcurrencyEnv, code)
	}
}
