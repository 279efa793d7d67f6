package source

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// How many requests run at once against one host.
//
// Every HTTP request a source makes (its reads, size probes, the S3 region
// and listing requests, URL resolution through its client) runs under the
// limiter of its host, which the whole process shares: two files on one
// server share one limit. By default the limit adapts, as TCP's congestion
// window does, to what the server takes:
//
//   - It starts at AutoInitialConcurrency and, while requests succeed and
//     the latency of their answers holds, grows: by one per success until the
//     first back-off or the first answer that took twice the fastest (slow
//     start, left as TCP's HyStart leaves it), then by about one per round
//     of requests.
//     It grows only while the requests in flight use at least half of it.
//   - It halves on a sign that the server is overloaded: a connection that
//     took SlowConnect or more to set up (a dropped SYN is resent after
//     1 s) or whose SYN a hedged attempt showed dropped (see hedged), a refused or reset connection, HTTP 429 or 503 (whose request
//     is retried after its Retry-After, by the source's Retry policy). It
//     halves once per round: the failures of requests sent before a cut do
//     not cut again.
//   - It shrinks by a fifth when the latency of the answers (time to the
//     first byte, connection setup excluded) climbs to twice its long-run
//     average, the gradient Netflix's concurrency-limits and Envoy's adaptive
//     concurrency filter watch: a server that queues requests.
//
// It stays between 1 and AutoMaxConcurrency. A fixed concurrency
// (WithConcurrency, or LINDI_CONCURRENCY=N) runs at most N requests at once
// per host and never adapts.

// Concurrency limits.
const (
	// AutoInitialConcurrency is the adaptive limit of a host before any
	// answer from it.
	AutoInitialConcurrency = 16
	// AutoMaxConcurrency bounds the adaptive limit (and is how many reads a
	// default fetch.Fetcher keeps in flight).
	AutoMaxConcurrency = 64
	// SlowConnect is how long connection setup may take before it counts
	// as a dropped connection attempt: the kernel resends a SYN after 1 s.
	SlowConnect = time.Second
)

// ConcurrencyEnv names the environment variable that sets the concurrency
// of every read that is not given one: a positive number of requests in
// flight per host, or "auto" (the default) to adapt.
const ConcurrencyEnv = "LINDI_CONCURRENCY"

// ParseConcurrency parses a concurrency setting: "auto" (or "") gives 0, a
// number from 1 to 65536 gives itself.
func ParseConcurrency(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "auto") {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1<<16 {
		return 0, fmt.Errorf("concurrency %q: want auto or a number from 1 to 65536", s)
	}
	return n, nil
}

// ConcurrencyFromEnv returns the setting of LINDI_CONCURRENCY: 0 for auto
// (unset, empty or "auto"), else the number.
func ConcurrencyFromEnv() (int, error) {
	n, err := ParseConcurrency(os.Getenv(ConcurrencyEnv))
	if err != nil {
		return 0, fmt.Errorf("source: %s: %w", ConcurrencyEnv, err)
	}
	return n, nil
}

// WithConcurrency sets how many requests run at once per host: n ≥ 1 at
// most n, never adapting; 0 adapts (the default, unless LINDI_CONCURRENCY
// says otherwise).
func WithConcurrency(n int) Option {
	return func(c *config) error {
		if n < 0 || n > 1<<16 {
			return fmt.Errorf("source: WithConcurrency(%d): must be in [0, 65536]", n)
		}
		c.concurrency, c.concurrencySet = n, true
		return nil
	}
}

// Throttle tells that a host showed it was overloaded and its adaptive
// limit backed off.
type Throttle struct {
	Host  string // host[:port] of the server
	Limit int    // the concurrency it backed off to
	Why   string // what the server did: "HTTP 503", "connection refused", …
}

// WithThrottleNotice makes fn be called, from the goroutine of the request,
// each time a request of these sources makes its host's adaptive limit back
// off. By default nothing is told: a program that wants its users to know
// (the lindi command prints a line) says so here.
func WithThrottleNotice(fn func(Throttle)) Option {
	return func(c *config) error {
		c.throttled = fn
		return nil
	}
}

// HostConcurrency describes the limiter of one host.
type HostConcurrency struct {
	Host     string // host[:port]
	Limit    int    // the limit now: where an adaptive one settled
	Fixed    bool   // the limit was set, not adapted
	Lowest   int    // the lowest it went
	Highest  int    // the highest it went
	Backoffs int64  // how many times it backed off for a throttling sign
	Requests int64  // requests sent under it
}

// Hosts reports the limiter of every host the process has sent requests to,
// sorted by host.
func Hosts() []HostConcurrency {
	limiters.Lock()
	all := make([]*hostLimiter, 0, len(limiters.m))
	for _, l := range limiters.m {
		all = append(all, l)
	}
	limiters.Unlock()
	out := make([]HostConcurrency, 0, len(all))
	for _, l := range all {
		out = append(out, l.snapshot())
	}
	slices.SortFunc(out, func(a, b HostConcurrency) int {
		if c := strings.Compare(a.Host, b.Host); c != 0 {
			return c
		}
		return a.Limit - b.Limit
	})
	return out
}

// limiterKey names a limiter: the adaptive one of a host (fixed 0), or a
// fixed one.
type limiterKey struct {
	host  string
	fixed int
}

// limiters holds the process's limiters.
var limiters = struct {
	sync.Mutex
	m map[limiterKey]*hostLimiter
}{m: map[limiterKey]*hostLimiter{}}

// limiterFor returns the process's limiter for host with the fixed limit
// (0: adaptive).
func limiterFor(host string, fixed int) *hostLimiter {
	k := limiterKey{strings.ToLower(host), fixed}
	limiters.Lock()
	defer limiters.Unlock()
	l := limiters.m[k]
	if l == nil {
		l = newHostLimiter(k.host, fixed)
		limiters.m[k] = l
	}
	return l
}

// hostLimiter bounds the requests in flight to one host.
type hostLimiter struct {
	host  string
	fixed int

	mu       sync.Mutex
	limit    float64
	ssthresh float64 // slow start below it
	inflight int
	epoch    int64         // counts back-offs: a request's failure cuts only if none came since it started
	wake     chan struct{} // closed when a slot frees or the limit grows; nil with no waiter
	minRTT   float64       // the lowest latency seen, in seconds (once samples > 0)
	rate     float64       // per-connection body throughput, bytes/s (0: none seen; see bodyRate)
	short    float64       // EWMA of recent latencies, in seconds
	long     float64       // EWMA of latencies over a long run
	samples  int
	lowest   int
	highest  int
	backoffs int64
	requests int64
	// seen is set once the host answered a request: a refusal then means
	// overload, not that nothing listens.
	seen atomic.Bool
}

func (l *hostLimiter) answered() bool { return l.seen.Load() }
func (l *hostLimiter) setAnswered()   { l.seen.Store(true) }

func newHostLimiter(host string, fixed int) *hostLimiter {
	l := &hostLimiter{host: host, fixed: fixed}
	l.limit = AutoInitialConcurrency
	if fixed > 0 {
		l.limit = float64(fixed)
	}
	l.ssthresh = AutoMaxConcurrency
	l.lowest, l.highest = int(l.limit), int(l.limit)
	return l
}

// Limit reports the current limit.
func (l *hostLimiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(l.limit)
}

func (l *hostLimiter) snapshot() HostConcurrency {
	l.mu.Lock()
	defer l.mu.Unlock()
	return HostConcurrency{Host: l.host, Limit: int(l.limit), Fixed: l.fixed > 0, Lowest: l.lowest,
		Highest: l.highest, Backoffs: l.backoffs, Requests: l.requests}
}

// permit is one request's slot.
type permit struct {
	l     *hostLimiter
	epoch int64
}

// acquire waits for a slot.
func (l *hostLimiter) acquire(ctx context.Context) (*permit, error) {
	for {
		l.mu.Lock()
		if l.inflight < int(l.limit) {
			l.inflight++
			l.requests++
			p := &permit{l: l, epoch: l.epoch}
			l.mu.Unlock()
			return p, nil
		}
		if l.wake == nil {
			l.wake = make(chan struct{})
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// signal wakes the waiters; it needs l.mu. The channel is made only when
// a request waits, so that a limiter shared by tests in different
// testing/synctest bubbles touches no channel of another bubble.
func (l *hostLimiter) signal() {
	if l.wake != nil {
		close(l.wake)
		l.wake = nil
	}
}

// outcome is what one request showed of its host.
type outcome struct {
	setup   time.Duration // from asking for a connection to having one
	latency time.Duration // from having a connection to the answer's headers; 0 without an answer
	status  int           // 0 without an answer
	err     error         // the round trip's error, if any
}

// answered reports whether o's request was answered, without a sign of
// overload: its latency is the host's.
func (o outcome) answered() bool {
	return o.err == nil && o.status != 0 && o.status < 500 && o.throttleSign() == ""
}

// throttleSign says why o shows an overloaded host, or "".
func (o outcome) throttleSign() string {
	switch {
	case o.setup >= SlowConnect:
		return fmt.Sprintf("connection setup took %.1fs", o.setup.Seconds())
	case o.status == http.StatusTooManyRequests || o.status == http.StatusServiceUnavailable:
		return fmt.Sprintf("HTTP %d", o.status)
	case errors.Is(o.err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(o.err, syscall.ECONNRESET):
		return "connection reset"
	}
	return ""
}

// done releases p with the outcome of its request and adapts the limit.
// When the request made the limit back off for a throttling sign it
// returns what to tell.
func (p *permit) done(o outcome) (Throttle, bool) {
	l := p.l
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight--
	defer l.signal()
	if l.fixed > 0 {
		if o.answered() {
			l.seeRTT(o.latency.Seconds())
		}
		return Throttle{}, false
	}
	if why := o.throttleSign(); why != "" {
		if p.epoch != l.epoch {
			return Throttle{}, false // the limit was cut since this request started
		}
		l.cut(0.5)
		l.backoffs++
		return Throttle{Host: l.host, Limit: int(l.limit), Why: why}, true
	}
	if !o.answered() {
		return Throttle{}, false
	}
	l.sample(o.latency.Seconds(), p.epoch)
	return Throttle{}, false
}

// stall backs the limit off for a connection attempt whose SYN was dropped
// (see hedged), made by a request started in epoch.
func (l *hostLimiter) stall(epoch int64) (Throttle, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fixed > 0 || epoch != l.epoch {
		return Throttle{}, false
	}
	l.cut(0.5)
	l.backoffs++
	l.signal()
	return Throttle{Host: l.host, Limit: int(l.limit), Why: "connection setup stalled"}, true
}

// cut multiplies the limit by f and starts a new round; it needs l.mu.
func (l *hostLimiter) cut(f float64) {
	l.limit = max(1, math.Floor(l.limit*f))
	l.ssthresh = l.limit
	l.epoch++
	l.lowest = min(l.lowest, int(l.limit))
}

// Latency tolerances: the limit grows while recent latency stays within
// growTolerance of the long-run average, and shrinks when it passes
// shrinkTolerance of it. latencyFloor absorbs the jitter of near hosts,
// whose latencies are tens of microseconds.
const (
	growTolerance      = 1.5
	slowStartTolerance = 2.0
	shrinkTolerance    = 2.0
	latencyFloor       = 0.0005 // seconds
	shortWeight        = 1.0 / 8
	longWeight         = 1.0 / 64
	minSamples         = 16 // samples before latency may shrink the limit
)

// sample takes the latency of a request that succeeded; it needs l.mu.
func (l *hostLimiter) sample(rtt float64, epoch int64) {
	l.seeRTT(rtt)
	if l.limit < l.ssthresh && rtt > slowStartTolerance*l.minRTT+latencyFloor {
		// A request queued behind the others: leave slow start, as TCP's
		// HyStart does when the delay rises, before the server drops any.
		l.ssthresh = l.limit
	}
	if l.samples == 1 {
		l.short, l.long = rtt, rtt
	} else {
		l.short += (rtt - l.short) * shortWeight
		l.long += (rtt - l.long) * longWeight
	}
	if l.samples >= minSamples && l.short > shrinkTolerance*l.long+latencyFloor {
		if epoch == l.epoch {
			l.cut(0.8)
			// The queue the server built is the new normal until it drains.
			l.short = l.long
		}
		return
	}
	if l.short > growTolerance*l.long+latencyFloor || 2*(l.inflight+1) < int(l.limit) {
		return // latency climbs, or the limit is not what holds the requests back
	}
	if l.limit < l.ssthresh {
		l.limit++
	} else {
		l.limit += 1 / l.limit
	}
	l.limit = min(l.limit, AutoMaxConcurrency)
	l.highest = max(l.highest, int(l.limit))
}

// seeRTT takes the latency of an answered request into the lowest seen;
// it needs l.mu.
func (l *hostLimiter) seeRTT(rtt float64) {
	l.samples++
	if l.samples == 1 || rtt < l.minRTT {
		l.minRTT = rtt
	}
}

// minRateBody is the smallest body whose throughput is taken: a smaller
// one arrives in a few segments, often with its headers, and its time
// says more of the scheduler than of the connection.
const minRateBody = 64 << 10

// Weights of the throughput estimate: it falls half way to a slower body
// and climbs an eighth of the way to a faster one.
const (
	rateDownWeight = 1.0 / 2
	rateUpWeight   = 1.0 / 8
)

// bodyRate takes the throughput of one body of n bytes that took d from
// its first byte to its end. The estimate is an EWMA biased low: it follows
// a slower body quickly and a faster one slowly, because a reader trusting
// it to read a gap rather than wait a round trip loses when the
// connection is slower than estimated (the gap's bytes delay the read)
// and merely misses a saving when it is faster. Bodies under minRateBody
// and instants (d ≤ 0) say nothing and are ignored.
func (l *hostLimiter) bodyRate(n int64, d time.Duration) {
	if n < minRateBody || d <= 0 {
		return
	}
	r := float64(n) / d.Seconds()
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.rate == 0:
		l.rate = r
	case r < l.rate:
		l.rate += (r - l.rate) * rateDownWeight
	default:
		l.rate += (r - l.rate) * rateUpWeight
	}
}

// costs reports the lowest latency of the host's answers and its
// per-connection body throughput; ok is false until it showed both.
func (l *hostLimiter) costs() (rtt time.Duration, bytesPerSecond float64, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.samples == 0 || l.rate == 0 {
		return 0, 0, false
	}
	return time.Duration(l.minRTT * float64(time.Second)), l.rate, true
}
