package source

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"
)

// DefaultMaxWhole is the largest 200 answer to a range request an HTTP
// source takes whole (WithMaxWhole).
const DefaultMaxWhole = 1 << 20

// ResolveFunc maps a URL to the URL to read, e.g. a DANDI API URL to its
// presigned S3 URL. It returns the URL unchanged when it has nothing to do.
// When the resolved URL carries an expiry (X-Amz-Date plus X-Amz-Expires, or
// Expires) it is re-resolved shortly before; it is also re-resolved once when
// a request to it returns 403.
type ResolveFunc func(ctx context.Context, url string) (string, error)

// Option configures Open, NewHTTP and NewPool. Options are validated when
// applied: an invalid value makes the constructor fail.
type Option func(*config) error

type config struct {
	client     *http.Client
	clientSet  bool // WithClient or WithPolicy chose the client
	retry      Retry
	retrySet   bool
	resolve    ResolveFunc
	timeout    time.Duration
	timeoutSet bool
	maxWhole   int64
	lru        *LRU
	policy     *Policy
	now        func() time.Time
	s3Region   string // "" for the environment's or the bucket's
	s3Endpoint string // "" for DefaultS3Endpoint
	disk       *DiskCache
	warm       int
	// locators, original and warn configure Locate (WithLocator,
	// WithOriginal, WithWarn).
	locators []Locator
	original bool
	warn     func(string)
	// root and localOnly confine sources (WithRoot, WithLocalOnly).
	root      *rooted
	localOnly bool
	// concurrency is WithConcurrency's (0: adaptive); concurrencySet
	// says it was given, else LINDI_CONCURRENCY's applies.
	concurrency    int
	concurrencySet bool
	throttled      func(Throttle)
}

func newConfig(opts []Option) (*config, error) {
	c := &config{
		retry:    DefaultRetry(),
		maxWhole: DefaultMaxWhole,
		now:      time.Now,
		warm:     DefaultWarmConns,
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(c); err != nil {
			return nil, err
		}
	}
	if !c.timeoutSet {
		t, err := TimeoutFromEnv()
		if err != nil {
			return nil, err
		}
		c.timeout = t
	}
	if !c.retrySet {
		c.retry.MaxElapsed = RequestTimeout(c.timeout)
	}
	c.clientSet = c.client != nil || c.policy != nil
	if c.client == nil {
		c.client = &http.Client{Transport: sharedTransport}
	}
	if c.policy != nil {
		client, err := c.policy.apply(c.client)
		if err != nil {
			return nil, err
		}
		c.client = client
	}
	if !c.concurrencySet {
		n, err := ConcurrencyFromEnv()
		if err != nil {
			return nil, err
		}
		c.concurrency = n
	}
	limited := *c.client
	limited.Transport = &limitTransport{base: cmp.Or[http.RoundTripper](c.client.Transport, http.DefaultTransport), fixed: c.concurrency, notice: c.throttled}
	c.client = &limited
	return c, nil
}

// WithClient makes HTTP sources send their requests through client instead of
// the package's shared transport (keep-alive, HTTP/1.1, 256 idle connections
// per host, no transparent compression). The client's own Timeout, if any,
// applies on top of WithTimeout.
func WithClient(client *http.Client) Option {
	return func(c *config) error {
		if client == nil {
			return fmt.Errorf("source: WithClient: nil client")
		}
		c.client = client
		return nil
	}
}

// WithWarmConns sets how many connections the first request of an HTTP
// source opens to a host that has none, its own included (default
// DefaultWarmConns). The others are dialled, TCP and TLS handshakes made,
// while that request is under way, so that the requests which follow it
// (a read's chunks after its LINDI JSON or HDF5 superblock) find them ready
// instead of paying two more round trips each. They join the pool those
// requests draw from; one not taken within a few seconds is closed. A host
// that answers the first connection within a few milliseconds is near
// enough that none are opened ahead: there their handshakes would cost more
// than they save. Give
// the concurrency of the reads (fetch.WithConcurrency): connections beyond
// the requests in flight are never used. 0 or 1 opens only the connection
// a request needs. Only the package's transport opens connections ahead,
// not the client of WithClient.
func WithWarmConns(n int) Option {
	return func(c *config) error {
		if n < 0 || n > 1<<16 {
			return fmt.Errorf("source: WithWarmConns(%d): must be in [0, 65536]", n)
		}
		c.warm = n
		return nil
	}
}

// WithRetry sets the retry policy of HTTP sources (default DefaultRetry(),
// with MaxElapsed RequestTimeout of the timeout).
func WithRetry(r Retry) Option {
	return func(c *config) error {
		if err := r.validate(); err != nil {
			return err
		}
		c.retry, c.retrySet = r, true
		return nil
	}
}

// WithResolver sets the URL resolver of HTTP sources: none by default (a
// Locator gives one with the Location of an address that needs it, such as
// a DANDI asset's, whose API key only its resolver knows); nil turns
// resolution off.
func WithResolver(f ResolveFunc) Option {
	return func(c *config) error {
		c.resolve = f
		return nil
	}
}

// WithDiskCache keeps the ranges read from remote sources (http, https,
// s3) in d, across processes. Local files are read directly.
func WithDiskCache(d *DiskCache) Option {
	return func(c *config) error {
		if d == nil {
			return fmt.Errorf("source: WithDiskCache: nil cache")
		}
		c.disk = d
		return nil
	}
}

// WithTimeout sets the timeout T of remote requests, overriding
// TimeoutEnv (see DefaultTimeout): no connection, answer or byte of a body
// for T, or a request over RequestTimeout(T) (one second more per MiB
// asked), abandons the request, which is retried; with the default Retry
// policy a read gives up after RequestTimeout(T) in all.
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("source: WithTimeout(%v): must be positive", d)
		}
		c.timeout, c.timeoutSet = d, true
		return nil
	}
}

// WithMaxWhole sets the largest object an HTTP source accepts whole when the
// server answers a range request with 200 and the full body (default
// DefaultMaxWhole). Larger answers fail with ErrProtocol rather than
// download an unbounded body.
func WithMaxWhole(n int64) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("source: WithMaxWhole(%d): must not be negative", n)
		}
		c.maxWhole = n
		return nil
	}
}

// WithCache makes Open and Pool wrap every source in a Cache backed by lru
// (shared by all sources given the same lru).
func WithCache(lru *LRU) Option {
	return func(c *config) error {
		if lru == nil {
			return fmt.Errorf("source: WithCache: nil LRU")
		}
		c.lru = lru
		return nil
	}
}
