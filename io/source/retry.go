package source

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// Retry is the retry policy of HTTP sources: exponential backoff with full
// jitter (a uniform wait in [0, min(MaxDelay, BaseDelay·2^attempt)]), capped
// in attempts and in total time. A Retry-After header is honoured when it
// fits in the remaining time.
type Retry struct {
	MaxAttempts int           // attempts in all, the first included (≥ 1)
	BaseDelay   time.Duration // backoff before the first retry (> 0)
	MaxDelay    time.Duration // cap of one backoff (≥ BaseDelay)
	MaxElapsed  time.Duration // cap of the time spent on one read, waits included (> 0)
	// Sleep waits for d or until ctx is done. Nil means a real timer; tests
	// inject a fake to avoid real waits.
	Sleep func(ctx context.Context, d time.Duration) error
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
