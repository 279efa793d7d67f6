package dandi

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/lindigo/lindi/io/source"
)

// Option configures an operation (Assets, Lookup, Locate).
type Option func(*config) error

type config struct {
	reg      registry
	regErr   error
	client   *http.Client
	retry    source.Retry
	keys     map[string]string // instance name → key set by WithKey
	glob     *regexp.Regexp
	globText string
	pageSize int
}

func newConfig(opts []Option) (*config, error) {
	reg, err := defaultRegistry()
	c := &config{reg: reg, regErr: err, retry: source.DefaultRetry(), keys: map[string]string{}}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(c); err != nil {
			return nil, err
		}
	}
	if c.regErr != nil {
		return nil, c.regErr
	}
	if c.client == nil {
		c.client = http.DefaultClient
	}
	return c, nil
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

// WithInstance adds an instance called name at the API URL api, or moves
// one there, as InstancesEnv does (with the same checks).
func WithInstance(name, api string) Option {
	return func(c *config) error {
		if c.regErr != nil {
			return c.regErr
		}
		if err := c.reg.add(name, api); err != nil {
			return fmt.Errorf("dandi: WithInstance: %w", err)
		}
		return nil
	}
}

// WithKey sends key, instead of the one in the environment (KeyEnv), to
// the API of the instance called name.
func WithKey(name, key string) Option {
	return func(c *config) error {
		if name == "" {
			return errors.New("dandi: WithKey: empty instance name")
		}
		c.keys[canonical(name)] = key
		return nil
	}
}

// WithClient sends the requests through client (its redirects are not
// followed: the API's answers are read as given).
func WithClient(client *http.Client) Option {
	return func(c *config) error {
		if client == nil {
			return errors.New("dandi: WithClient(nil)")
		}
		c.client = client
		return nil
	}
}

// WithRetry sets the retry policy of API requests (default
// source.DefaultRetry(), as for byte reads).
func WithRetry(r source.Retry) Option {
	return func(c *config) error {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("dandi: %w", err)
		}
		c.retry = r
		return nil
	}
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
