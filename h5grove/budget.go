package h5grove

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"time"
)

// Defaults of the memory a Server's requests may hold (WithBudget).
const (
	// DefaultBudget is the default of the bytes the reads of all requests
	// may hold at once (1 GiB), raised to twice WithMaxBytes when that is
	// more.
	DefaultBudget = 1 << 30
	// DefaultBudgetWait is how long a request waits for its share of the
	// budget before it is answered 503 with Retry-After.
	DefaultBudgetWait = 10 * time.Second
	// retryAfter is the Retry-After of a 503 answer, in seconds.
	retryAfter = 5
	// idleFree is how long the server must have held nothing before it
	// gives its memory back to the operating system.
	idleFree = 2 * time.Second
	// minRate is the slowest client the write deadline of an answer
	// allows for, in bytes a second (after a minute of grace).
	minRate = 256 << 10
)

// WithBudget bounds the memory the reads of all requests hold at once at n
// bytes (what /data and /stats read, and the answers they buffer): a
// request whose share does not fit waits up to wait for others to finish,
// then is answered 503 with a Retry-After header; one whose share is more
// than n is refused with 413. n must be positive (at least twice
// WithMaxBytes lets every request the limit allows through); wait must not
// be negative.
func WithBudget(n int64, wait time.Duration) Option {
	return func(s *Server) error {
		if n <= 0 || wait < 0 {
			return fmt.Errorf("h5grove: budget of %d bytes, wait %v: must be positive", n, wait)
		}
		s.budget, s.wait = newBudget(n), wait
		return nil
	}
}

// budget is a count of bytes shared by requests: acquire waits, first come
// first served, until the bytes asked for are free. When it has held nothing
// for a while it returns the process's free memory to the operating system,
// so that a server at rest after a burst of large reads is small again.
type budget struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters []*waiter
	timer   *time.Timer
}

type waiter struct {
	n     int64
	ready chan struct{}
}

func newBudget(n int64) *budget { return &budget{size: n} }

// acquire takes n bytes, waiting up to wait for them; it fails with errBusy
// after that, or with the context's error.
func (b *budget) acquire(ctx context.Context, n int64, wait time.Duration) error {
	if n <= 0 {
		return nil
	}
	b.mu.Lock()
	if n > b.size {
		b.mu.Unlock()
		return fmt.Errorf("%w: %d bytes is more than the server's budget of %d", errTooLarge, n, b.size)
	}
	if len(b.waiters) == 0 && b.used+n <= b.size {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	var err error
	select {
	case <-w.ready:
		return nil
	case <-t.C:
		err = fmt.Errorf("%w (%d bytes wanted, more than are free)", errBusy, n)
	case <-ctx.Done():
		err = ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // granted meanwhile: give it back
		b.used -= n
		b.grant()
	default:
		for i, x := range b.waiters {
			if x == w {
				b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
				break
			}
		}
		b.grant()
	}
	return err
}

// release gives back n bytes.
func (b *budget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	b.grant()
	if b.used == 0 {
		if b.timer == nil {
			b.timer = time.AfterFunc(idleFree, b.free)
		} else {
			b.timer.Reset(idleFree)
		}
	}
}

// grant wakes the waiters, in order, whose bytes are now free; the caller
// holds mu.
func (b *budget) grant() {
	for len(b.waiters) > 0 && b.used+b.waiters[0].n <= b.size {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.used += w.n
		close(w.ready)
	}
}

// free returns memory to the operating system if nothing is held.
func (b *budget) free() {
	b.mu.Lock()
	idle := b.used == 0
	b.mu.Unlock()
	if idle {
		debug.FreeOSMemory()
	}
}

// setWriteDeadline bounds the time the answer of a request holding n bytes
// may take to write: a minute, plus n at minRate. A client that reads
// slower loses its connection, and its share of the budget.
func setWriteDeadline(w http.ResponseWriter, n int64) {
	d := time.Minute + time.Duration(n/minRate)*time.Second
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
}
