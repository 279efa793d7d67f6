package netsim

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Listener is a TCP listener on 127.0.0.1 that stands for a small server:
// its kernel queue of connections not yet accepted holds about Backlog (as
// listen(2)'s backlog sets it), so that connection attempts beyond it are
// dropped and resent by the client's kernel after a second, as they are
// against a one-thread-per-connection server (Python's http.server) under
// load; its accept loop can be slowed (SetAcceptDelay), and it can reset
// some of the connections it accepts (SetReset). Serve HTTP on it with
// http.Server.Serve.
type Listener struct {
	net.Listener
	delay    atomic.Int64 // nanoseconds before each Accept
	reset    atomic.Int64 // reset every k-th connection; 0: none
	accepted atomic.Int64
	resets   atomic.Int64
}

// Listen returns a Listener on a free port of 127.0.0.1 with the given
// listen backlog (on Unix; elsewhere the system's default).
func Listen(backlog int) (*Listener, error) {
	l, err := listenBacklog(backlog)
	if err != nil {
		return nil, err
	}
	return &Listener{Listener: l}, nil
}

// SetAcceptDelay makes each Accept wait d first: a server slow to take the
// connections the kernel queued.
func (l *Listener) SetAcceptDelay(d time.Duration) { l.delay.Store(int64(d)) }

// SetReset makes the listener reset every k-th connection it accepts (a TCP
// RST: the client reads "connection reset by peer"); 0 resets none.
func (l *Listener) SetReset(k int) { l.reset.Store(int64(k)) }

// Resets reports how many connections were reset.
func (l *Listener) Resets() int64 { return l.resets.Load() }

// Accept waits the accept delay, then returns the next connection that is
// not to be reset.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		if d := time.Duration(l.delay.Load()); d > 0 {
			time.Sleep(d)
		}
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		n := l.accepted.Add(1)
		if k := l.reset.Load(); k > 0 && n%k == 0 {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0) // close sends RST
			}
			c.Close()
			l.resets.Add(1)
			continue
		}
		return c, nil
	}
}

// BacklogDrops reports whether this system drops the connection attempts
// beyond a listener's backlog, as Linux does: it fills a listener of
// backlog 1 that never accepts and sees whether a connection attempt then
// waits. Where it does not (some sandboxes' network stacks queue every
// attempt), a Listener's backlog overloads nothing.
func BacklogDrops() (bool, error) {
	l, err := listenBacklog(1)
	if err != nil {
		return false, err
	}
	defer l.Close()
	const attempts = 8
	d := net.Dialer{Timeout: 300 * time.Millisecond}
	var waited atomic.Bool
	var wg sync.WaitGroup
	for range attempts {
		wg.Go(func() {
			c, err := d.Dial("tcp", l.Addr().String())
			if err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					waited.Store(true)
				}
				return
			}
			c.Close()
		})
	}
	wg.Wait()
	return waited.Load(), nil
}
