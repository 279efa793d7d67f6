package dandi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/lindigo/lindi/io/source"
	"golang.org/x/sync/singleflight"
)

// Client reads the API of the DANDI instances: it holds the options it was
// made with (instances, keys, HTTP client, retry policy, timeout,
// precomputed service) and the caches of its answers. What an option does
// not set comes from the environment when an operation starts (Instances
// and InstancesEnv, KeyEnv, source.TimeoutEnv, PrecomputedEnv), so that a
// client follows the environment it runs in. The package functions (Assets,
// Lookup, Versions) are the methods of Default. A Client is safe for
// concurrent use.
type Client struct {
	opts  []Option
	cache *cache
}

// NewClient returns a client with opts, which every operation of the
// client applies before its own. An invalid option is an error.
func NewClient(opts ...Option) (*Client, error) {
	cfg := &config{keys: map[string]string{}}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(cfg); err != nil {
			return nil, err
		}
	}
	return &Client{opts: append([]Option(nil), opts...), cache: newCache()}, nil
}

var defaultClient = &Client{cache: newCache()}

// Default returns the process's client, the one the package functions and
// the registered source.Locator use: no options, everything from the
// environment.
func Default() *Client { return defaultClient }

// ClearCache forgets the API answers and listed assets the client keeps,
// so that the next requests see the archive as it is now (a long-running
// service, a benchmark's cold runs).
func (c *Client) ClearCache() {
	c.cache.mu.Lock()
	clear(c.cache.m)
	c.cache.bytes = 0
	c.cache.mu.Unlock()
	c.cache.listed.Clear()
}

// ClearCache clears Default's caches (Client.ClearCache).
func ClearCache() { defaultClient.ClearCache() }

// cache holds a client's answers: the API's 200 answers by URL and key
// (listings and metadata change rarely, and a program asks for the same
// ones again), and the assets listings gave, so that opening an asset of a
// folder listed before asks the API nothing more.
type cache struct {
	mu     sync.Mutex
	m      map[string][]byte
	bytes  int
	group  singleflight.Group
	listed sync.Map // listedKey → Asset
}

func newCache() *cache { return &cache{m: map[string][]byte{}} }

// maxCached bounds the cached answers; past it the cache starts afresh.
const maxCached = 64 << 20

// maxResponse bounds one API answer read into memory.
const maxResponse = 64 << 20

// statusError is an API answer with a status other than 200.
type statusError struct {
	url    string
	status int
}

func (e *statusError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %d", e.url, e.status)
}

// get returns the body of the API's 200 answer to GET u, through the
// client's cache. Other statuses are a *statusError.
func (c *config) get(ctx context.Context, inst Instance, u string) ([]byte, error) {
	key := c.authKey(inst, u)
	ck := u + "\x00" + keyTag(key)
	c.cache.mu.Lock()
	b, ok := c.cache.m[ck]
	c.cache.mu.Unlock()
	if ok {
		return b, nil
	}
	v, err, _ := c.cache.group.Do(ck, func() (any, error) {
		b, err := c.fetch(ctx, u, key)
		if err != nil {
			return nil, err
		}
		c.cache.mu.Lock()
		defer c.cache.mu.Unlock()
		if c.cache.bytes+len(b) > maxCached {
			clear(c.cache.m)
			c.cache.bytes = 0
		}
		c.cache.m[ck] = b
		c.cache.bytes += len(b)
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// keyTag stands for an API key in cache keys: a prefix of its hash.
func keyTag(key string) string {
	if key == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// authKey returns the key to send with a request to u: the instance's,
// when u is on its API host over https, or over http to a loopback host.
func (c *config) authKey(inst Instance, u string) string {
	key := c.key(inst.Name)
	if key == "" {
		return ""
	}
	ru, err1 := url.Parse(u)
	au, err2 := url.Parse(inst.API)
	if err1 != nil || err2 != nil || ru.Scheme != au.Scheme || !strings.EqualFold(ru.Host, au.Host) {
		return ""
	}
	if ru.Scheme == "https" || ru.Scheme == "http" && source.IsLoopback(ru.Hostname()) {
		return key
	}
	return ""
}

// fetch sends GET u under the retry policy's loop (source.Retry.Do), which
// retries network failures, timeouts, 429 and 5xx answers.
func (c *config) fetch(ctx context.Context, u, key string) ([]byte, error) {
	var b []byte
	err := c.retryPolicy().Do(ctx, func(ctx context.Context, _ int) source.Outcome {
		var o source.Outcome
		b, o = c.once(ctx, u, key)
		return o
	})
	return b, err
}

func (c *config) once(ctx context.Context, u, key string) ([]byte, source.Outcome) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, source.Outcome{Err: fmt.Errorf("GET %s: %w", source.Redact(u), err)}
	}
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "token "+key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // it names the URL again, unredacted
		}
		return nil, source.Outcome{Err: fmt.Errorf("GET %s: %w", source.Redact(u), err), Retry: source.Transient(err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, source.Outcome{
			Err:    &statusError{url: source.Redact(u), status: resp.StatusCode},
			Retry:  source.TransientStatus(resp.StatusCode),
			After:  source.RetryAfter(resp.Header.Get("Retry-After")),
			Status: resp.StatusCode,
		}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, source.Outcome{Err: fmt.Errorf("GET %s: %w", source.Redact(u), err), Retry: source.Transient(err), Status: resp.StatusCode}
	}
	if len(b) > maxResponse {
		return nil, source.Outcome{Err: fmt.Errorf("GET %s: answer over %d bytes", source.Redact(u), maxResponse), Status: resp.StatusCode}
	}
	return b, source.Outcome{Status: resp.StatusCode}
}
