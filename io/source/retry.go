package source

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Retry is the one retry policy of remote requests, HTTP sources' and the
// DANDI client's: exponential backoff with full jitter (a uniform wait in
// [0, min(MaxDelay, BaseDelay·2^attempt)]), capped in attempts and in total
// time. A Retry-After header is honoured when it fits in the remaining
// time. Do runs the loop.
type Retry struct {
	MaxAttempts int           // attempts in all, the first included (≥ 1)
	BaseDelay   time.Duration // backoff before the first retry (> 0)
	MaxDelay    time.Duration // cap of one backoff (≥ BaseDelay)
	MaxElapsed  time.Duration // cap of the time spent on one read, waits included (> 0)
	// Sleep waits for d or until ctx is done. Nil means a real timer; tests
	// inject a fake to avoid real waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Observe, when set, is told the outcome of every attempt (its status,
	// Retry-After and error: a 429, a 503, a refused connection), for a
	// caller that adapts to the server, such as a concurrency limiter.
	Observe func(Outcome)
}

// Outcome is what one attempt of Retry.Do reports.
type Outcome struct {
	// Err is nil when the attempt succeeded; otherwise it is what failed.
	Err error
	// Retry says Err is transient: another attempt may succeed.
	Retry bool
	// Now retries at once, without backoff: the attempt changed what the
	// next one asks (a presigned URL renewed after a 403).
	Now bool
	// After is the server's Retry-After, 0 when it sent none.
	After time.Duration
	// Status is the HTTP status of the answer, 0 when none came.
	Status int
	// Took is how long the attempt took (set by Do).
	Took time.Duration
}

// Do calls try until an attempt succeeds, fails for good (Outcome.Retry
// false), or the policy runs out: MaxAttempts attempts, or MaxElapsed in
// all, waits included. Each attempt's ctx ends when MaxElapsed does, so one
// slow attempt cannot outlast the cap. Between attempts it waits the
// Retry-After given, or else the jittered backoff. The error is the last
// attempt's, saying how many were made when the policy gave up, or ctx's
// when it ended first.
func (r Retry) Do(ctx context.Context, try func(ctx context.Context, attempt int) Outcome) error {
	start := time.Now()
	var waited time.Duration // differs from the time spent when Sleep is faked
	for attempt := 0; ; attempt++ {
		left := r.MaxElapsed - max(time.Since(start), waited)
		actx, cancel := context.WithTimeoutCause(ctx, max(left, 0), fmt.Errorf("%w: the retry policy's %v ran out", ErrTimeout, r.MaxElapsed))
		t0 := time.Now()
		o := try(actx, attempt)
		capped := actx.Err() != nil
		cancel()
		o.Took = time.Since(t0)
		if r.Observe != nil {
			r.Observe(o)
		}
		switch {
		case o.Err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case capped:
			return fmt.Errorf("%w (gave up after %d attempts)", o.Err, attempt+1)
		case !o.Retry:
			return o.Err
		}
		wait := r.Backoff(attempt)
		switch {
		case o.Now:
			wait = 0
		case o.After > 0:
			wait = o.After
		}
		elapsed := max(time.Since(start), waited)
		if attempt+1 >= r.MaxAttempts || elapsed+wait >= r.MaxElapsed {
			return fmt.Errorf("%w (gave up after %d attempts in %v)", o.Err, attempt+1, elapsed.Round(time.Millisecond))
		}
		waited += wait
		if wait > 0 {
			if err := r.Wait(ctx, wait); err != nil {
				return err
			}
		}
	}
}

// DefaultRetry returns the default policy: 8 attempts, backoff from 100 ms to
// 10 s, 2 minutes in all.
func DefaultRetry() Retry {
	return Retry{MaxAttempts: 8, BaseDelay: 100 * time.Millisecond, MaxDelay: 10 * time.Second, MaxElapsed: 2 * time.Minute}
}

// Validate reports a policy that cannot work: fewer than one attempt, a
// non-positive delay or time cap, MaxDelay below BaseDelay.
func (r Retry) Validate() error { return r.validate() }

func (r Retry) validate() error {
	switch {
	case r.MaxAttempts < 1:
		return fmt.Errorf("source: Retry.MaxAttempts %d: must be at least 1", r.MaxAttempts)
	case r.BaseDelay <= 0:
		return fmt.Errorf("source: Retry.BaseDelay %v: must be positive", r.BaseDelay)
	case r.MaxDelay < r.BaseDelay:
		return fmt.Errorf("source: Retry.MaxDelay %v: must be at least BaseDelay %v", r.MaxDelay, r.BaseDelay)
	case r.MaxElapsed <= 0:
		return fmt.Errorf("source: Retry.MaxElapsed %v: must be positive", r.MaxElapsed)
	}
	return nil
}

// Backoff returns the full-jitter wait before retry number attempt (0-based).
func (r Retry) Backoff(attempt int) time.Duration {
	d := r.MaxDelay
	if attempt < 32 {
		if e := r.BaseDelay << attempt; e > 0 && e < d {
			d = e
		}
	}
	return rand.N(d + 1)
}

// Wait waits for d, with Sleep when set, or until ctx is done.
func (r Retry) Wait(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RetryAfter returns the wait a Retry-After header asks for
// (delay-seconds or an HTTP date), 0 when it is absent or unreadable.
func RetryAfter(h string) time.Duration {
	d, _ := retryAfter(h, time.Now())
	return d
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
// It reports false when the header is absent or unreadable.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(h, 10, 64); err == nil {
		if s < 0 || s > 1<<31 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	t, err := http.ParseTime(h)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}
