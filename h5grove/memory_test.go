package h5grove

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rss is the resident set of the process, in bytes.
func rss(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmRSS")
	return 0
}

// TestSlowClients: many clients asking for a large read and not reading the
// answer hold no more memory than the budget allows: the others wait, then
// get 503 with Retry-After. It reports the resident set it measured.
func TestSlowClients(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures memory: not under -race or -short")
	}
	const n, clients = 8 << 20, 24
	dir := t.TempDir()
	big := bytes.Repeat([]byte{7}, n)
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "big.lindi.json"), fmt.Sprintf(`{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
		"big/.zarray": {"chunks": [%d], "compressor": null, "dtype": "|u1", "fill_value": 0, "filters": null, "order": "C", "shape": [%d], "zarr_format": 2},
		"big/0": ["big.bin", 0, %d]}}`, n, n, n))
	ts := serve(t, Dir(dir), WithMaxBytes(n), WithBudget(6*n, 200*time.Millisecond))
	addr := strings.TrimPrefix(ts.URL, "http://")

	runtime.GC()
	debug.FreeOSMemory()
	base := rss(t)
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if r := rss(t); r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var conns []net.Conn
	statuses := make([]int, clients)
	retry := make([]string, clients)
	var wg sync.WaitGroup
	for i := range clients {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns = append(conns, c)
		wg.Go(func() {
			fmt.Fprintf(c, "GET /data?file=big.lindi.json&path=/big&format=json HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
			c.SetReadDeadline(time.Now().Add(time.Minute)) // a hang guard only
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Error(err)
				return
			}
			statuses[i], retry[i] = res.StatusCode, res.Header.Get("Retry-After")
			// The body is left unread: the server's writes stall.
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	var ok, busy int
	for i, st := range statuses {
		switch {
		case st == 200:
			ok++
		case st == 503 && retry[i] != "":
			busy++
		default:
			t.Errorf("client %d: status %d, Retry-After %q", i, st, retry[i])
		}
	}
	grew := peak.Load() - base
	t.Logf("%d clients of %d MiB reads: %d answered, %d told to retry; resident set grew %d MiB (budget %d MiB)", clients, n>>20, ok, busy, grew>>20, 6*n>>20)
	if ok == 0 || busy == 0 {
		t.Errorf("%d answered and %d told to retry: want both", ok, busy)
	}
	if grew > 160<<20 {
		t.Errorf("the resident set grew %d MiB, over 160 MiB", grew>>20)
	}

	// Once the clients are gone, the server gives the memory back.
	for _, c := range conns {
		c.Close()
	}
	var after int64
	for range 200 { // up to 20 s: a hang guard only
		if after = rss(t) - base; after < 32<<20 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("after the clients left, the resident set is %d MiB over the start", after>>20)
	if after >= 32<<20 {
		t.Errorf("after the clients left, the resident set stays %d MiB over the start", after>>20)
	}
}
