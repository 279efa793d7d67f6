package source

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Hedged connection attempts.
//
// A server whose queue of connections not yet accepted is full (a listen
// backlog of 5 under load) drops a SYN, and the client's kernel sends it
// again only after a second: one such connection holds back the read that
// waits for it. So a connection attempt that has not completed within a
// few times the fastest one seen to that address (hedgeMin at least,
// hedgeMax at most, below the second) is raced by a second attempt, whose
// SYN the server may take by then; the first to connect is used and the
// other closed. A second attempt that connects first tells the host's
// limiter (through the request's context) that connection setup stalled:
// the first attempt's SYN was lost, where a far host would have answered
// the first attempt first.
const (
	hedgeMin = 50 * time.Millisecond
	hedgeMax = 800 * time.Millisecond
)

// fastestConnect holds, per address, the fastest connection seen, in
// nanoseconds.
var fastestConnect sync.Map // string → *atomic.Int64

func hedgeDelay(addr string) time.Duration {
	d := hedgeMin
	if v, ok := fastestConnect.Load(addr); ok {
		d = max(d, 4*time.Duration(v.(*atomic.Int64).Load()))
	}
	return min(d, hedgeMax)
}

func noteConnect(addr string, d time.Duration) {
	v, _ := fastestConnect.LoadOrStore(addr, new(atomic.Int64))
	a := v.(*atomic.Int64)
	for {
		old := a.Load()
		if old != 0 && old <= int64(d) || a.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}

// stallKey keys the flag a request's context carries for its dials to set
// when connection setup stalled.
type stallKey struct{}

// hedged returns dial with hedged attempts.
func hedged(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		type result struct {
			c      net.Conn
			err    error
			second bool
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := make(chan result, 2)
		attempt := func(second bool) {
			c, err := dial(ctx, network, addr)
			ch <- result{c, err, second}
		}
		t0 := time.Now()
		go attempt(false)
		timer := time.NewTimer(hedgeDelay(addr))
		defer timer.Stop()
		pending, hedgedOnce := 1, false
		var firstErr error
		for {
			select {
			case <-timer.C:
				hedgedOnce = true
				pending++
				go attempt(true)
			case r := <-ch:
				pending--
				if r.err == nil {
					if !hedgedOnce || !r.second {
						noteConnect(addr, time.Since(t0))
					}
					if flag, ok := ctx.Value(stallKey{}).(*atomic.Bool); ok && r.second {
						flag.Store(true)
					}
					if pending > 0 {
						go func() {
							if o := <-ch; o.c != nil {
								o.c.Close()
							}
						}()
					}
					return r.c, nil
				}
				if firstErr == nil {
					firstErr = r.err
				}
				if pending == 0 {
					return nil, firstErr
				}
			}
		}
	}
}
