//go:build linux

package netsim

import (
	"net"
	"sync"
	"testing"
	"time"
)

// Connection attempts beyond the backlog of a listener that does not
// accept are dropped by the kernel and resent a second later: some take a
// second or more, or do not connect at all.
func TestListenBacklogDrops(t *testing.T) {
	l, err := Listen(5)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var mu sync.Mutex
	slow, fast := 0, 0
	var wg sync.WaitGroup
	for range 24 {
		wg.Go(func() {
			t0 := time.Now()
			c, err := net.DialTimeout("tcp", l.Addr().String(), 1500*time.Millisecond)
			d := time.Since(t0)
			if err == nil {
				defer c.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil || d >= 900*time.Millisecond {
				slow++
			} else {
				fast++
			}
		})
	}
	wg.Wait()
	if slow == 0 || fast == 0 || fast > 12 {
		t.Fatalf("%d connections fast, %d slow or dropped; want the queue (about 6) fast and the rest dropped", fast, slow)
	}
}
