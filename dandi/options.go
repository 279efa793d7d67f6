package dandi

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/lindigo/lindi/io/source"
)

// Option configures a Client (NewClient) or one operation (Assets, Lookup,
// Versions and the methods of the same names), applied over the client's
// options. Options are checked when applied: a bad value is an error.
type Option func(*config) error

// config is an operation's settings: what the options set, then what the
// environment gives for the rest (resolve).
type config struct {
	adds        []Instance        // WithInstance's, in order
	keys        map[string]string // instance name → key set by WithKey
	client      *http.Client      // WithHTTPClient's
	retry       *source.Retry
	timeout     time.Duration // 0: the environment's
	precomputed *string       // nil: the environment's; "" off
	warn        func(string)
	glob        *regexp.Regexp
	globText    string
	pageSize    int
	shard       int // WithShard: take shard of shards
	shards      int

	// Set by resolve.
	reg   registry
	http  *http.Client // bounded by the timeout, redirects not followed
	cache *cache
}

// config applies pre (a locator's settings), the client's options, then
// opts, and resolves what they leave to the environment.
func (c *Client) config(pre, opts []Option) (*config, error) {
	cfg := &config{keys: map[string]string{}, cache: c.cache}
	for _, list := range [][]Option{pre, c.opts, opts} {
		for _, o := range list {
			if o == nil {
				continue
			}
			if err := o(cfg); err != nil {
				return nil, err
			}
		}
	}
	return cfg, cfg.resolve()
}

func (c *config) resolve() error {
	reg, err := defaultRegistry()
	if err != nil {
		return err
	}
	for _, inst := range c.adds {
		reg.put(inst)
	}
	c.reg = reg
	if c.timeout == 0 {
		if c.timeout, err = source.TimeoutFromEnv(); err != nil {
			return fmt.Errorf("dandi: %w", err)
		}
	}
	c.http = source.Bounded(c.client, c.timeout)
	c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if c.shards == 0 {
		c.shard, c.shards = 0, 1
	}
	return nil
}

// retryPolicy is WithRetry's policy, or the default one capped at
// source.RequestTimeout of the timeout, as HTTP sources' is.
func (c *config) retryPolicy() source.Retry {
	if c.retry != nil {
		return *c.retry
	}
	r := source.DefaultRetry()
	r.MaxElapsed = source.RequestTimeout(c.timeout)
	return r
}

// WithGlob keeps the assets whose whole path matches pattern, the API's
// glob filter: "*" matches any run of characters, "/" included (so
// "sub-*/*.nwb" and "*.nwb" both reach down folders), "?" any one; case is
// ignored, as the archive does. Bracket expressions are refused.
func WithGlob(pattern string) Option {
	return func(c *config) error {
		re, err := globRegexp(pattern)
		if err != nil {
			return err
		}
		c.glob, c.globText = re, pattern
		return nil
	}
}

// WithShard keeps shard i of n of a listing (0 ≤ i < n): the assets whose
// path hashes to i modulo n (FNV-1a), so that n jobs listing the same
// dandiset, each with its own i, take every asset exactly once between
// them whatever the order of the pages, and an asset added meanwhile moves
// no other asset to another shard.
func WithShard(i, n int) Option {
	return func(c *config) error {
		if n < 1 || i < 0 || i >= n {
			return fmt.Errorf("dandi: WithShard(%d, %d): want 0 ≤ i < n", i, n)
		}
		c.shard, c.shards = i, n
		return nil
	}
}

// WithInstance adds an instance called name at the API URL api, or moves
// one there, as InstancesEnv does (with the same checks).
func WithInstance(name, api string) Option {
	return func(c *config) error {
		inst, err := checkInstance(name, api)
		if err != nil {
			return fmt.Errorf("dandi: WithInstance: %w", err)
		}
		c.adds = append(c.adds, inst)
		return nil
	}
}

// WithKey sends key, instead of the one in the environment (KeyEnv), to
// the API of the instance called name, and to no other host.
func WithKey(name, key string) Option {
	return func(c *config) error {
		if name == "" {
			return errors.New("dandi: WithKey: empty instance name")
		}
		c.keys[canonical(name)] = key
		return nil
	}
}

// WithHTTPClient sends the requests through client (its redirects are not
// followed: the API's answers are read as given; the timeout applies on
// top of its own). The default is io/source's shared transport.
func WithHTTPClient(client *http.Client) Option {
	return func(c *config) error {
		if client == nil {
			return errors.New("dandi: WithHTTPClient(nil)")
		}
		c.client = client
		return nil
	}
}

// WithRetry sets the retry policy of API requests (default
// source.DefaultRetry() capped at source.RequestTimeout of the timeout, as
// for byte reads).
func WithRetry(r source.Retry) Option {
	return func(c *config) error {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("dandi: %w", err)
		}
		c.retry = &r
		return nil
	}
}

// WithTimeout sets the timeout of API requests, overriding
// source.TimeoutEnv: no connection, answer or byte for d, or a request
// over source.RequestTimeout(d), fails the request (see
// source.DefaultTimeout).
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("dandi: WithTimeout(%v): must be positive", d)
		}
		c.timeout = d
		return nil
	}
}

// PrecomputedEnv names the environment variable with the base URL of a
// service of precomputed LINDI files of DANDI assets, such as
// https://lindi.neurosift.org (whose files are at
// BASE/dandi/dandisets/ID/assets/ASSET_ID/nwb.lindi.json). Unset, none is
// used; WithPrecomputed overrides it.
const PrecomputedEnv = "LINDI_PRECOMPUTED_LINDI"

// WithPrecomputed names the base URL of a service of precomputed LINDI
// files that Locate opens a blob asset through (see PrecomputedEnv); ""
// turns the service off, whatever the environment says.
func WithPrecomputed(base string) Option {
	return func(c *config) error {
		if base != "" {
			u, err := url.Parse(base)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("dandi: WithPrecomputed(%q): not an http(s) URL", source.Redact(base))
			}
		}
		base = strings.TrimSuffix(base, "/")
		c.precomputed = &base
		return nil
	}
}

// precomputedBase returns the service's base URL: set, or else the
// environment's, "" for none.
func (c *config) precomputedBase() (string, error) {
	if c.precomputed != nil {
		return *c.precomputed, nil
	}
	env := os.Getenv(PrecomputedEnv)
	if env == "" {
		return "", nil
	}
	u, err := url.Parse(env)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("dandi: %s=%q: not an http(s) URL", PrecomputedEnv, source.Redact(env))
	}
	return strings.TrimSuffix(env, "/"), nil
}

// WithPageSize sets how many assets one listing request asks for (default
// 1000; the server may give fewer, and the listing then takes more pages).
func WithPageSize(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 1000 {
			return fmt.Errorf("dandi: WithPageSize(%d): must be in [1, 1000]", n)
		}
		c.pageSize = n
		return nil
	}
}

// key returns the API key of inst: WithKey's, or else the environment's.
func (c *config) key(inst string) string {
	if k, ok := c.keys[inst]; ok {
		return k
	}
	return keyFromEnv(inst)
}
