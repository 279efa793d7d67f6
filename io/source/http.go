package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// HTTP is a Source reading a URL with HTTP range requests. It checks every
// answer strictly (206 with a Content-Range matching the request and a body
// of exactly that length; a 200 only for a whole object no larger than the
// WithMaxWhole limit), retries what is retryable (connection errors,
// truncated bodies, stalls, timeouts, 408, 429, 5xx) under its Retry policy,
// and resolves its URL through the configured resolver (DANDI by default).
type HTTP struct {
	url   string // as given: requests go there
	host  string // url's
	name  string // url without its password: errors and Name say this
	cfg   *config
	stats Counters

	size  atomic.Int64 // -1 until known
	etag  atomic.Pointer[string]
	whole atomic.Pointer[[]byte]
	res   resolution
	s3    *s3Regions // set for an s3:// URL
}

// NewHTTP returns a source for the http or https URL rawURL. It makes no
// request.
func NewHTTP(rawURL string, opts ...Option) (*HTTP, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return newHTTP(rawURL, c)
}

func newHTTP(rawURL string, c *config) (*HTTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("source: %s: %w", Redact(rawURL), urlCause(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: %s %q", ErrScheme, u.Redacted(), u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("source: %s: URL has no host", u.Redacted())
	}
	h := &HTTP{url: rawURL, host: u.Host, name: u.Redacted(), cfg: c}
	h.size.Store(-1)
	h.res.init(rawURL, c)
	return h, nil
}

// Name reports the URL as given, with any password redacted (never the
// resolved one, which may carry a signature).
func (h *HTTP) Name() string { return h.name }

// Stats reports the requests made so far.
func (h *HTTP) Stats() Stats {
	s := h.stats.Snapshot()
	s.Resolves = h.res.count.Load()
	return s
}

// ETag reports the entity tag of the last answer with data, "" before one
// or when the server sends none.
func (h *HTTP) ETag() string {
	if e := h.etag.Load(); e != nil {
		return *e
	}
	return ""
}

// Close does nothing: connections belong to the shared transport. It lets
// HTTP stand where an io.Closer is expected.
func (h *HTTP) Close() error { return nil }

// Size reports the length of the object, learnt from the first answer that
// told it or from a one-byte range probe.
func (h *HTTP) Size(ctx context.Context) (int64, error) {
	if n := h.size.Load(); n >= 0 {
		return n, nil
	}
	var b [1]byte
	_, err := h.ReadAt(ctx, b[:], 0)
	// The probe may fail and still have learnt the size, e.g. from a server
	// answering 200 with a large object.
	if n := h.size.Load(); n >= 0 {
		return n, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	return 0, fmt.Errorf("%w: %s: server does not report the size", ErrProtocol, h.name)
}

// ReadAt reads len(p) bytes at off with range requests, resuming after
// truncated bodies. It returns io.EOF when the object ends before off+len(p).
func (h *HTTP) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%w: %s: offset %d", ErrRange, h.name, off)
	}
	if len(p) == 0 {
		return 0, ctx.Err()
	}
	if w := h.whole.Load(); w != nil {
		return readWhole(*w, p, off)
	}
	got := 0
	err := h.retrying(ctx, len(p), func(ctx context.Context, target string) answer {
		q, at := p[got:], off+int64(got)
		a := h.attempt(ctx, len(q), func(actx context.Context, progress func()) (int, answer) {
			return h.exchange(actx, target, q, at, progress)
		})
		got += a.n
		return a
	})
	return got, err
}

// retrying calls try, one attempt against the resolved URL per call, under
// the Retry policy's loop (Retry.Do), until an attempt succeeds or ends the
// read (io.EOF, an error not retried, the policy exhausted, ctx done). It
// resolves the URL before each attempt, resolves it anew once on a 403 to a
// resolved URL (a presigned URL expired early or revoked) and once on S3's
// 301 (another region). try keeps what the attempts got: a retry resumes
// where the last one stopped. want is the size of the read: the policy's
// time cap grows by a second per MiB, as one request's does.
func (h *HTTP) retrying(ctx context.Context, want int, try func(ctx context.Context, target string) answer) error {
	r := h.cfg.retry
	r.MaxElapsed += perMiB(want)
	// Connections opened ahead live as long as the read, not the attempt.
	ctx = withWarm(ctx, h.cfg.warm)
	renewed, again := false, false
	var eof error
	err := r.Do(ctx, func(ctx context.Context, attempt int) Outcome {
		if attempt > 0 && !again {
			h.stats.retries.Add(1)
		}
		again = false
		target, err := h.resolve(ctx)
		var a answer
		if err == nil {
			a = try(ctx, target)
		} else {
			a = classify(err, ctx)
		}
		o := Outcome{Err: a.err, Retry: a.retry, After: a.after, Status: a.status}
		switch {
		case a.err == nil:
		case a.eof:
			eof, o.Err, o.Retry = a.err, nil, false
		case a.status == http.StatusForbidden && !renewed && target != "" && target != h.url:
			// A presigned URL expired early or was revoked: resolve again, once.
			renewed = true
			h.res.invalidate(target)
			o.Retry, o.Now, again = true, true, true
		case a.status == http.StatusMovedPermanently && h.s3 != nil && !renewed:
			// S3 says the bucket is in another region: ask it which, once.
			renewed = true
			h.s3.moved()
			h.res.invalidate(target)
			o.Retry, o.Now, again = true, true, true
		}
		return o
	})
	if err == nil {
		return eof
	}
	return err
}

// resolve returns the URL to request, resolving it under the timeouts
// (a resolver's requests wait on servers too: a DANDI API, an S3 bucket's
// region).
func (h *HTTP) resolve(ctx context.Context) (string, error) {
	if !h.res.active() {
		return h.url, nil
	}
	w := startWatch(ctx, h.cfg.timeout, RequestTimeout(h.cfg.timeout))
	defer w.stop()
	target, err := h.res.get(w.ctx)
	if c := w.cause(ctx); err != nil && c != nil {
		err = fmt.Errorf("source: %s: resolve: %w", h.name, c)
	}
	return target, err
}

// perMiB is one second per MiB of n: the time large reads get beyond the
// timeouts, a floor of 1 MiB/s.
func perMiB(n int) time.Duration { return time.Duration(n>>20) * time.Second }

// answer is the outcome of one attempt.
type answer struct {
	n      int
	err    error
	retry  bool
	status int
	after  time.Duration // Retry-After, when given
	eof    bool          // err is io.EOF: the object ends before the range
	body   int           // bytes received beyond n (a whole object sent for a range)
}

func classify(err error, ctx context.Context) answer {
	if ctx.Err() != nil {
		return answer{err: ctx.Err()}
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return answer{err: err, status: he.Status, retry: retryableStatus(he.Status)}
	}
	return answer{err: err, retry: retryableTransport(err)}
}

// retryableTransport reports whether a failed round trip is worth another
// try: the network failed (reset, cut, timed out, DNS for now), not the
// exchange itself (a redirect loop, headers over the limit, a bad
// certificate, a malformed answer, an address the policy blocks), which
// fails the same way every time. A refused connection is not retried: no
// server listens there, and backing off for seconds only delays the error
// (a closed port took 8-17 s to fail); unless the host answered before
// (errOverloaded), when it is overloaded, not absent.
func retryableTransport(err error) bool {
	var dns *net.DNSError
	var op *net.OpError
	var ne net.Error
	var over *errOverloaded
	switch {
	case errors.As(err, &over):
		return true
	case errors.Is(err, ErrBlocked), errors.Is(err, syscall.ECONNREFUSED):
		return false
	case errors.Is(err, ErrTimeout), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	case errors.As(err, &dns):
		return dns.IsTimeout || dns.IsTemporary
	case errors.As(err, &op):
		return true
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // url.Error is a net.Error whatever it wraps
	}
	return errors.As(err, &ne) && ne.Timeout()
}

// Transient reports whether a failed round trip (the error of
// http.Client.Do or of reading a body) is worth another try under the
// Retry policy, as HTTP sources judge it: a cut or reset connection, a
// timeout, a DNS failure for now; not a refused connection, a bad
// certificate or an address a Policy blocks.
func Transient(err error) bool { return retryableTransport(err) }

// TransientStatus reports whether an HTTP status is worth another try:
// 408, 429 and 5xx.
func TransientStatus(code int) bool { return retryableStatus(code) }

func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// attempt makes one request with ex, for want bytes, under the timeouts
// (ex calls progress on each piece of data).
func (h *HTTP) attempt(ctx context.Context, want int, ex func(ctx context.Context, progress func()) (int, answer)) answer {
	w := startWatch(ctx, h.cfg.timeout, RequestTimeout(h.cfg.timeout)+perMiB(want))
	defer w.stop()
	t0 := time.Now()
	n, a := ex(w.ctx, w.progress)
	h.stats.add(1, int64(n+a.body), time.Since(t0))
	a.n = n
	if a.err != nil && ctx.Err() != nil {
		return answer{n: n, err: fmt.Errorf("source: %s: %w", h.name, context.Cause(ctx))}
	}
	if c := w.cause(ctx); a.err != nil && c != nil {
		return answer{n: n, retry: true, err: fmt.Errorf("source: %s: %w", h.name, c)}
	}
	return a
}

// send makes a GET request for the byte range rng ("bytes=..."), noting the
// ETag of an answer with data. With a nil response the answer says what
// failed.
func (h *HTTP) send(ctx context.Context, target, rng string, progress func()) (*http.Response, answer) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, answer{err: fmt.Errorf("source: %s: %w", h.name, err)}
	}
	req.Header.Set("Range", rng)
	resp, err := h.cfg.client.Do(req)
	if err != nil {
		// The url.Error would name the URL again, resolved and maybe
		// signed: keep only its cause.
		return nil, answer{err: fmt.Errorf("source: %s: %w", h.name, urlCause(err)), retry: retryableTransport(err)}
	}
	progress()
	if e := resp.Header.Get("ETag"); e != "" && (resp.StatusCode == http.StatusPartialContent || resp.StatusCode == http.StatusOK) {
		h.etag.Store(&e)
	}
	return resp, answer{}
}

// failed is the answer of a status that carries no data.
func (h *HTTP) failed(resp *http.Response) answer {
	a := answer{status: resp.StatusCode, retry: retryableStatus(resp.StatusCode)}
	a.err = &HTTPError{URL: h.name, Status: resp.StatusCode}
	if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		a.after = d
	}
	return a
}

// exchange sends the request for p at off and reads the answer into p.
func (h *HTTP) exchange(ctx context.Context, target string, p []byte, off int64, progress func()) (int, answer) {
	end := off + int64(len(p)) - 1
	resp, a := h.send(ctx, target, fmt.Sprintf("bytes=%d-%d", off, end), progress)
	if resp == nil {
		return 0, a
	}
	defer closeBody(resp.Body)
	switch resp.StatusCode {
	case http.StatusPartialContent:
		return h.partial(resp, p, off, progress)
	case http.StatusOK:
		return h.full(resp, p, off, progress)
	case http.StatusRequestedRangeNotSatisfiable:
		if total, ok := unsatisfiedTotal(resp.Header.Get("Content-Range")); ok {
			h.size.Store(total)
			if off >= total {
				return 0, answer{err: io.EOF, eof: true}
			}
		}
		return 0, answer{err: fmt.Errorf("%w: %s: 416 for bytes %d-%d", ErrProtocol, h.name, off, end)}
	}
	return 0, h.failed(resp)
}

// partial reads a 206 answer.
func (h *HTTP) partial(resp *http.Response, p []byte, off int64, progress func()) (int, answer) {
	first, last, total, err := parseContentRange(resp.Header.Get("Content-Range"))
	if err != nil {
		return 0, answer{err: fmt.Errorf("source: %s: %w", h.name, err)}
	}
	if total >= 0 {
		h.size.Store(total)
	}
	end := off + int64(len(p)) - 1
	if first != off || last > end {
		return 0, answer{err: fmt.Errorf("%w: %s: asked bytes %d-%d, got %d-%d", ErrProtocol, h.name, off, end, first, last)}
	}
	want := int(last - first + 1)
	if resp.ContentLength >= 0 && resp.ContentLength != int64(want) {
		return 0, answer{err: fmt.Errorf("%w: %s: Content-Length %d for range %d-%d", ErrProtocol, h.name, resp.ContentLength, first, last)}
	}
	n, err := readBody(resp.Body, p[:want], progress)
	if err != nil {
		return n, answer{err: fmt.Errorf("source: %s: body cut after %d of %d bytes: %w", h.name, n, want, err), retry: true}
	}
	if last < end {
		if total >= 0 && last == total-1 {
			return n, answer{err: io.EOF, eof: true}
		}
		// A server may answer with less than asked; the caller asks for the rest.
		return n, answer{err: fmt.Errorf("source: %s: short range %d-%d for %d-%d", h.name, first, last, off, end), retry: true}
	}
	return n, answer{}
}

// full reads a 200 answer to a range request: the server ignored Range.
// It is taken when the request asked for the whole object anyway, or when
// the object is small enough to keep (later reads are then served from it).
func (h *HTTP) full(resp *http.Response, p []byte, off int64, progress func()) (int, answer) {
	if ct := resp.Header.Get("Content-Type"); isHTML(ct) {
		// A login page, an error page, a directory listing: not the object.
		return 0, answer{err: fmt.Errorf("%w: %s: HTTP %d with Content-Type %q to a range request is a web page, not data", ErrProtocol, h.name, resp.StatusCode, ct)}
	}
	size := resp.ContentLength
	if size >= 0 {
		h.size.Store(size)
	}
	if size >= 0 && off == 0 && int64(len(p)) >= size {
		n, err := readBody(resp.Body, p[:size], progress)
		if err != nil {
			return n, answer{err: fmt.Errorf("source: %s: body cut after %d of %d bytes: %w", h.name, n, size, err), retry: true}
		}
		if size <= h.cfg.maxWhole {
			// Later reads are served from it: the server would send it all again.
			body := append([]byte(nil), p[:n]...)
			h.whole.Store(&body)
		}
		if n < len(p) {
			return n, answer{err: io.EOF, eof: true}
		}
		return n, answer{}
	}
	if size < 0 || size > h.cfg.maxWhole {
		return 0, answer{err: fmt.Errorf("%w: %s: Content-Length %d, limit %d", ErrWhole, h.name, size, h.cfg.maxWhole)}
	}
	body := make([]byte, size)
	n, err := readBody(resp.Body, body, progress)
	if err != nil {
		return 0, answer{err: fmt.Errorf("source: %s: body cut after %d of %d bytes: %w", h.name, n, size, err), retry: true}
	}
	h.size.Store(size)
	h.whole.Store(&body)
	n, err = readWhole(body, p, off)
	return n, answer{err: err, eof: err != nil, body: len(body) - n}
}

// drainLimit is the most of an unread answer (a 404 page, a retryable 503)
// read before closing it, so that its connection can serve the next request
// instead of a new one costing a TCP and a TLS round trip.
const drainLimit = 4 << 10

// closeBody reads what is left of a short body and closes it.
func closeBody(body io.ReadCloser) {
	io.CopyN(io.Discard, body, drainLimit)
	body.Close()
}

// isHTML reports whether a Content-Type is a web page's.
func isHTML(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// readBody fills p from r, calling progress after each read that made some,
// and fails with io.ErrUnexpectedEOF if r ends early.
func readBody(r io.Reader, p []byte, progress func()) (int, error) {
	n := 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if m > 0 {
			progress()
		}
		if err != nil {
			if n == len(p) {
				return n, nil
			}
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
	}
	return n, nil
}

func readWhole(b, p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// parseContentRange parses "bytes first-last/total" (total -1 for "*").
func parseContentRange(s string) (first, last, total int64, err error) {
	bad := fmt.Errorf("%w: Content-Range %q", ErrProtocol, s)
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, 0, 0, bad
	}
	span, size, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, 0, bad
	}
	a, b, ok := strings.Cut(span, "-")
	if !ok {
		return 0, 0, 0, bad
	}
	if first, ok = parseNonNeg(a); !ok {
		return 0, 0, 0, bad
	}
	if last, ok = parseNonNeg(b); !ok || last < first {
		return 0, 0, 0, bad
	}
	total = -1
	if size != "*" {
		if total, ok = parseNonNeg(size); !ok || last >= total {
			return 0, 0, 0, bad
		}
	}
	return first, last, total, nil
}

// unsatisfiedTotal parses the "bytes */total" of a 416 answer.
func unsatisfiedTotal(s string) (int64, bool) {
	rest, ok := strings.CutPrefix(s, "bytes */")
	if !ok {
		return 0, false
	}
	return parseNonNeg(rest)
}

func parseNonNeg(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// resolution caches the resolved URL of one HTTP source.
type resolution struct {
	url     string
	resolve ResolveFunc
	now     func() time.Time
	count   atomic.Int64

	mu      sync.Mutex
	target  string
	expires time.Time // zero: no expiry known
	pending chan struct{}
	err     error
}

func (r *resolution) init(u string, c *config) {
	r.url, r.resolve, r.now = u, c.resolve, c.now
}

// active reports whether the URL is resolved before requests (presigned,
// located); otherwise it is requested as given.
func (r *resolution) active() bool { return r.resolve != nil }

// Concurrency reports how many requests may run at once now against the
// host s's requests go to (the resolved URL's, once resolved): its adaptive
// limit, or the fixed one.
func (s *HTTP) Concurrency() int { return s.limiter().Limit() }

// Costs reports what the host s's requests go to showed of the cost of a
// request: the lowest latency of its answers (time to the first byte,
// connection setup excluded) and the throughput of one connection's body
// (see the package function Costs). ok is false until it showed both.
func (s *HTTP) Costs() (rtt time.Duration, bytesPerSecond float64, ok bool) {
	return s.limiter().costs()
}

// limiter returns the limiter of the host s's requests go to (the
// resolved URL's, once resolved).
func (s *HTTP) limiter() *hostLimiter {
	host := s.host
	if s.res.active() {
		s.res.mu.Lock()
		target := s.res.target
		s.res.mu.Unlock()
		if u, err := url.Parse(target); err == nil && target != "" {
			host = u.Host
		}
	}
	return limiterFor(host, s.cfg.concurrency)
}

// renewMargin is how long before a presigned URL expires it is renewed.
const renewMargin = time.Minute

// get returns the URL to request, resolving it when none is cached or the
// cached one is about to expire. Concurrent callers share one resolution.
func (r *resolution) get(ctx context.Context) (string, error) {
	if r.resolve == nil {
		return r.url, nil
	}
	for {
		r.mu.Lock()
		if r.target != "" && (r.expires.IsZero() || r.now().Before(r.expires.Add(-renewMargin))) {
			t := r.target
			r.mu.Unlock()
			return t, nil
		}
		if ch := r.pending; ch != nil {
			r.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return "", ctx.Err()
			}
			if err := ctx.Err(); err != nil {
				return "", err
			}
			r.mu.Lock()
			err := r.err
			r.mu.Unlock()
			// A leader that gave up because its own context ended says
			// nothing about the URL: resolve again.
			if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				return "", err
			}
			continue
		}
		ch := make(chan struct{})
		r.pending = ch
		r.mu.Unlock()

		r.count.Add(1)
		t, err := r.resolve(ctx, r.url)
		r.mu.Lock()
		r.pending, r.err = nil, err
		if err == nil {
			r.target, r.expires = t, expiry(t)
		}
		r.mu.Unlock()
		close(ch)
		if err != nil {
			return "", err
		}
		return t, nil
	}
}

// invalidate drops the cached URL if it is still stale, so the next get
// resolves again.
func (r *resolution) invalidate(stale string) {
	r.mu.Lock()
	if r.target == stale {
		r.target = ""
	}
	r.mu.Unlock()
}

// expiry reads when a presigned URL stops working: X-Amz-Date plus
// X-Amz-Expires (AWS signature v4) or Expires (Unix seconds: v2 and
// CloudFront). It returns the zero time when the URL tells nothing.
func expiry(raw string) time.Time {
	u, err := url.Parse(raw)
	if err != nil {
		return time.Time{}
	}
	q := u.Query()
	if d, s := q.Get("X-Amz-Date"), q.Get("X-Amz-Expires"); d != "" && s != "" {
		t, err := time.Parse("20060102T150405Z", d)
		secs, ok := parseNonNeg(s)
		if err == nil && ok {
			return t.Add(time.Duration(secs) * time.Second)
		}
	}
	if s, ok := parseNonNeg(q.Get("Expires")); ok {
		return time.Unix(s, 0)
	}
	return time.Time{}
}
