package h5grove

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults of Serve's connections.
const (
	// DefaultMaxConns is the default of WithMaxConns.
	DefaultMaxConns = 256
	// DefaultIdleTimeout is the default of WithIdleTimeout.
	DefaultIdleTimeout = 60 * time.Second
	// headerTimeout bounds the time a client takes to send a request's
	// headers; writeTimeout the time an answer that holds no share of the
	// budget takes to write (an answer that holds one gets more: see
	// setWriteDeadline).
	headerTimeout = 10 * time.Second
	writeTimeout  = time.Minute
)

// WithMaxConns bounds the connections Serve holds open at once at n: more
// wait in the listen queue until one closes. n must be positive.
func WithMaxConns(n int) Option {
	return func(s *Server) error {
		if n <= 0 {
			return fmt.Errorf("h5grove: max connections %d: must be positive", n)
		}
		s.conns = n
		return nil
	}
}

// WithIdleTimeout sets how long Serve keeps a connection open with no
// request under way (keep-alive). d must be positive.
func WithIdleTimeout(d time.Duration) Option {
	return func(s *Server) error {
		if d <= 0 {
			return fmt.Errorf("h5grove: idle timeout %v: must be positive", d)
		}
		s.idle = d
		return nil
	}
}

// Serve answers the connections of ln until ctx ends, then shuts down
// (requests under way get five seconds to finish) and returns nil. It holds
// at most WithMaxConns connections, closes those idle longer than
// WithIdleTimeout and bounds the time a request's headers and answer may
// take, so that slow or idle clients cannot exhaust the process's
// descriptors. It closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: headerTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       s.idle,
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(LimitListener(ln, s.conns)) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// LimitListener returns a Listener that accepts at most n connections at
// once from l: Accept waits until one of those it returned is closed. It is
// golang.org/x/net/netutil's LimitListener, written here.
func LimitListener(l net.Listener, n int) net.Listener {
	return &limitListener{Listener: l, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	closeOnce sync.Once
	done      chan struct{}
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

// Close closes the listener and wakes an Accept waiting for a slot.
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and frees its slot, once.
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
