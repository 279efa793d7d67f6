package netsim

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Config describes the simulated network. The zero value adds nothing.
type Config struct {
	Latency    time.Duration // wait before each response starts
	Bandwidth  int64         // bytes per second of each response body; 0 is unlimited
	Error503   float64       // fraction of requests answered 503
	TooMany    float64       // fraction of requests answered 429 with Retry-After
	RetryAfter time.Duration // Retry-After sent with 429, rounded up to seconds (default 1 s)
	Cut        float64       // fraction of responses whose connection is cut mid-body
	NotFound   []string      // URL paths always answered 404
	Seed       uint64        // seed of the fault generator
}

// Stats counts what a Handler did.
type Stats struct {
	Requests      int64 // all requests
	RangeRequests int64 // requests with a Range header
	Bytes         int64 // body bytes written
	Errors503     int64
	Errors429     int64
	Cuts          int64
	NotFounds     int64
}

// Handler wraps another handler with the simulated network.
type Handler struct {
	next http.Handler
	cfg  Config

	mu  sync.Mutex
	rng *rand.Rand

	requests, ranges, bytes, e503, e429, cuts, notFound atomic.Int64
}

// New returns a Handler serving next through the network cfg describes.
func New(next http.Handler, cfg Config) (*Handler, error) {
	if next == nil {
		return nil, fmt.Errorf("netsim: nil handler")
	}
	for _, f := range []float64{cfg.Error503, cfg.TooMany, cfg.Cut} {
		if f < 0 || f > 1 {
			return nil, fmt.Errorf("netsim: fault fraction %v not in [0, 1]", f)
		}
	}
	if cfg.Error503+cfg.TooMany+cfg.Cut > 1 {
		return nil, fmt.Errorf("netsim: fault fractions add up to more than 1")
	}
	if cfg.Latency < 0 || cfg.Bandwidth < 0 || cfg.RetryAfter < 0 {
		return nil, fmt.Errorf("netsim: negative latency, bandwidth or Retry-After")
	}
	if cfg.RetryAfter == 0 {
		cfg.RetryAfter = time.Second
	}
	cfg.NotFound = slices.Clone(cfg.NotFound)
	return &Handler{next: next, cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))}, nil
}

// Stats reports the counters so far.
func (h *Handler) Stats() Stats {
	return Stats{
		Requests:      h.requests.Load(),
		RangeRequests: h.ranges.Load(),
		Bytes:         h.bytes.Load(),
		Errors503:     h.e503.Load(),
		Errors429:     h.e429.Load(),
		Cuts:          h.cuts.Load(),
		NotFounds:     h.notFound.Load(),
	}
}

type fault int

const (
	none fault = iota
	unavailable
	tooMany
	cut
)

func (h *Handler) draw() fault {
	h.mu.Lock()
	u := h.rng.Float64()
	h.mu.Unlock()
	switch c := h.cfg; {
	case u < c.Error503:
		return unavailable
	case u < c.Error503+c.TooMany:
		return tooMany
	case u < c.Error503+c.TooMany+c.Cut:
		return cut
	}
	return none
}

// ServeHTTP waits the latency, then answers with a fault or passes the
// request on through a bandwidth-limited, possibly cut, response writer.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.requests.Add(1)
	if r.Header.Get("Range") != "" {
		h.ranges.Add(1)
	}
	if !sleep(r.Context(), h.cfg.Latency) {
		return
	}
	if slices.Contains(h.cfg.NotFound, r.URL.Path) {
		h.notFound.Add(1)
		http.NotFound(w, r)
		return
	}
	switch h.draw() {
	case unavailable:
		h.e503.Add(1)
		http.Error(w, "simulated 503", http.StatusServiceUnavailable)
		return
	case tooMany:
		h.e429.Add(1)
		secs := int64((h.cfg.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
		http.Error(w, "simulated 429", http.StatusTooManyRequests)
		return
	case cut:
		h.next.ServeHTTP(&writer{ResponseWriter: w, h: h, ctx: r.Context(), start: time.Now(), cutting: true, cutAt: -1}, r)
		return
	}
	h.next.ServeHTTP(&writer{ResponseWriter: w, h: h, ctx: r.Context(), start: time.Now()}, r)
}

// writer paces the body to the bandwidth and, when cutting, aborts the
// connection half way through it.
type writer struct {
	http.ResponseWriter
	h       *Handler
	ctx     context.Context
	start   time.Time
	written int64
	cutting bool
	cutAt   int64
}

// cutPoint returns how many body bytes go out before the cut: half the
// announced length, none when no length is announced.
func (w *writer) cutPoint() int64 {
	if w.cutAt < 0 {
		w.cutAt = 0
		if n, err := strconv.ParseInt(w.Header().Get("Content-Length"), 10, 64); err == nil && n > 0 {
			w.cutAt = n / 2
		}
	}
	return w.cutAt
}

// piece is the unit of pacing: about 5 ms of transfer, within [4 KiB,
// 256 KiB], so that pacing costs few wake-ups at high bandwidth; unpaced
// writes go out whole.
func (w *writer) piece(n int) int {
	bw := w.h.cfg.Bandwidth
	if bw == 0 {
		return n
	}
	return int(min(max(bw/200, 4<<10), 256<<10))
}

// Write sends p in pieces paced to the bandwidth, cutting the connection
// at the cut point when cutting.
func (w *writer) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), w.piece(len(p)))
		if w.cutting && w.written+int64(k) > w.cutPoint() {
			k = int(w.cutAt - w.written)
			m, _ := w.ResponseWriter.Write(p[:k])
			w.h.bytes.Add(int64(m))
			if f, ok := w.ResponseWriter.(http.Flusher); ok {
				f.Flush()
			}
			w.h.cuts.Add(1)
			panic(http.ErrAbortHandler) // the server closes the connection
		}
		// Each piece goes out when the bandwidth allows it to be complete.
		bw := w.h.cfg.Bandwidth
		if bw > 0 {
			due := w.start.Add(time.Duration(float64(w.written+int64(k)) / float64(bw) * float64(time.Second)))
			if !sleep(w.ctx, time.Until(due)) {
				return n, w.ctx.Err()
			}
		}
		m, err := w.ResponseWriter.Write(p[:k])
		n += m
		w.written += int64(m)
		w.h.bytes.Add(int64(m))
		if err != nil {
			return n, err
		}
		p = p[k:]
		if f, ok := w.ResponseWriter.(http.Flusher); ok && bw > 0 {
			f.Flush()
		}
	}
	return n, nil
}

// Flush passes flushes on.
func (w *writer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Blobs returns a handler serving the files (URL path → content) with Range
// support (http.ServeContent) and 404 for other paths. It aliases the slices.
func Blobs(files map[string][]byte) http.Handler {
	files = maps.Clone(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, r.URL.Path, time.Time{}, bytes.NewReader(b))
	})
}
