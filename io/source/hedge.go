package source

import (
	"context"
	"math/rand/v2"
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
// others closed; an attempt still waiting is raced again (see hedges). When
// a hedge connects first and the first has not connected by hedgeJudge,
// the first attempt's SYN was lost (a far host would have answered the
// first attempt first, a loaded machine within the judging time): the host's limiter is told, through the
// request's context, that connection setup stalled.
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

// hedgeJudge is how long after its start a first attempt beaten by the
// hedge may still connect and count as slow, not dropped: the kernel resends
// a dropped SYN after a second.
const hedgeJudge = 900 * time.Millisecond

// dialResult is the outcome of one connection attempt.
type dialResult struct {
	c      net.Conn
	err    error
	second bool
}

// hedges bounds the extra attempts of one connection: the hedges of many
// connections that started together arrive together at a queue that took
// some of them, so each attempt still waiting is raced again after twice
// the last delay, each delay spread by up to half of it.
const hedges = 4

// nextHedge is the delay before the hedge after one that waited d.
func nextHedge(d time.Duration) time.Duration {
	return min(2*d, hedgeMax) + rand.N(d/2+1)
}

// hedged returns dial with hedged attempts. When a hedge wins, the first
// attempt is given until hedgeJudge to connect; if it does not, its SYN was
// dropped, and the stall function the request's context carries (stallKey)
// is called.
func hedged(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		// The attempts end with ctx, or when no longer wanted.
		actx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		stop := context.AfterFunc(ctx, cancel)
		end := func() { stop(); cancel() }
		ch := make(chan dialResult, 1+hedges)
		attempt := func(second bool) {
			c, err := dial(actx, network, addr)
			ch <- dialResult{c, err, second}
		}
		t0 := time.Now()
		go attempt(false)
		delay := hedgeDelay(addr)
		delay += rand.N(delay/2 + 1)
		timer := time.NewTimer(delay)
		defer timer.Stop()
		pending, started, firstPending := 1, 0, true
		var firstErr error
		for {
			select {
			case <-timer.C:
				pending++
				started++
				go attempt(true)
				if started < hedges {
					delay = nextHedge(delay)
					timer.Reset(delay)
				}
			case r := <-ch:
				pending--
				if !r.second {
					firstPending = false
				}
				if r.err == nil {
					if !r.second {
						noteConnect(addr, time.Since(t0))
					}
					if pending == 0 {
						end()
					} else {
						go judge(ctx, ch, pending, firstPending, t0, end)
					}
					return r.c, nil
				}
				if firstErr == nil {
					firstErr = r.err
				}
				if pending == 0 {
					end()
					return nil, firstErr
				}
			}
		}
	}
}

// judge collects the pending attempts still under way after one connected,
// closing what they connect. When the first attempt is among them (a hedge
// won) and does not connect within hedgeJudge of t0, it calls the stall
// function of ctx. end stops the attempts.
func judge(ctx context.Context, ch <-chan dialResult, pending int, firstPending bool, t0 time.Time, end func()) {
	defer end()
	drain := func() {
		end()
		for ; pending > 0; pending-- {
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}
	}
	if !firstPending {
		drain() // the first attempt won: the hedges are not wanted
		return
	}
	t := time.NewTimer(max(hedgeJudge-time.Since(t0), 0))
	defer t.Stop()
	dropped := true
	for firstPending {
		select {
		case r := <-ch:
			pending--
			if r.c != nil {
				r.c.Close()
			}
			if !r.second {
				firstPending = false
				dropped = r.c == nil || time.Since(t0) >= hedgeJudge
			}
		case <-t.C:
			firstPending = false
		}
	}
	drain()
	if f, ok := ctx.Value(stallKey{}).(func()); ok && dropped {
		f()
	}
}
