package source

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// A Locator maps an address that names an object by something other than
// its URL (a DANDI asset by dandiset, version and path) to where its bytes
// are. It reports ok false, and no error, for a name that is not one of its
// addresses; an address it recognises but cannot find is an error naming
// what was missing. Locators are registered by the packages that know the
// addresses (RegisterLocator), as image formats are.
type Locator func(ctx context.Context, name string, c LocateConfig) (loc Location, ok bool, err error)

// LocateConfig is what a Locator may use, from the options given to Locate.
type LocateConfig struct {
	// Client is the HTTP client of WithClient, with WithPolicy applied; nil
	// when neither was given (the locator uses its own).
	Client *http.Client
	// Retry is the retry policy of WithRetry, or the default one.
	Retry Retry
	// Timeout is the timeout of WithTimeout or TimeoutEnv (DefaultTimeout).
	Timeout time.Duration
	// Original asks for the object's own bytes, never a precomputed
	// document standing for them (WithOriginal).
	Original bool
	// Warn receives a line about a fallback the locator took (an index it
	// refused); nil discards it.
	Warn func(msg string)
}

// Location is where a located object's bytes are.
type Location struct {
	// URL is what to read: an http(s) URL, or the location the bytes in
	// Content stand for (their base, for relative names).
	URL string
	// Content holds the object's bytes when the locator already fetched
	// them (a small index document); nil otherwise.
	Content []byte
	// Options are the source options reading URL needs (a resolver that
	// carries the keys of the service the address names).
	Options []Option
}

var (
	locatorsMu sync.RWMutex
	locators   []Locator
)

// RegisterLocator adds l to the locators Locate asks, in registration
// order. It is meant for the init functions of the packages that provide
// them.
func RegisterLocator(l Locator) {
	locatorsMu.Lock()
	defer locatorsMu.Unlock()
	locators = append(locators, l)
}

// Locate returns where name's bytes are: the answer of the first Locator
// that recognises name, those of WithLocator first and then the registered
// ones, or name itself (a path or URL that Open reads) when none does. The
// options configure the requests a locator makes, as they configure a
// source's.
func Locate(ctx context.Context, name string, opts ...Option) (Location, error) {
	c, err := newConfig(opts)
	if err != nil {
		return Location{}, err
	}
	locatorsMu.RLock()
	ls := append(c.locators[:len(c.locators):len(c.locators)], locators...)
	locatorsMu.RUnlock()
	lc := LocateConfig{Retry: c.retry, Timeout: c.timeout, Original: c.original, Warn: c.warn}
	if c.clientSet {
		lc.Client = c.client
	}
	for _, l := range ls {
		loc, ok, err := l(ctx, name, lc)
		if err != nil {
			return Location{}, err
		}
		if ok {
			return loc, nil
		}
	}
	return Location{URL: name}, nil
}

// WithLocator makes Locate ask l before the registered locators: a locator
// configured otherwise than the registered one of its package (a
// dandi.Client with its own keys or precomputed service).
func WithLocator(l Locator) Option {
	return func(c *config) error {
		if l == nil {
			return fmt.Errorf("source: WithLocator(nil)")
		}
		c.locators = append(c.locators, l)
		return nil
	}
}

// WithOriginal makes locators locate an object's own bytes, never a
// precomputed document standing for them (what writes an index reads the
// original).
func WithOriginal() Option {
	return func(c *config) error {
		c.original = true
		return nil
	}
}

// WithWarn makes locators report the fallbacks they take (a precomputed
// index refused, so the file opens from its own bytes) to fn, one line each,
// instead of dropping them.
func WithWarn(fn func(msg string)) Option {
	return func(c *config) error {
		c.warn = fn
		return nil
	}
}
