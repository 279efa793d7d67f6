package source

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
)

// A Locator maps an address that names an object by something other than
// its URL (a DANDI asset by dandiset, version and path) to where its bytes
// are. It reports ok false, and no error, for a name that is not one of its
// addresses; an address it recognises but cannot find is an error naming
// what was missing. Locators are registered by the packages that know the
// addresses (RegisterLocator), as image formats are.
type Locator func(ctx context.Context, name string, c LocateConfig) (loc Location, ok bool, err error)

// LocateConfig is what a Locator may use, from the options given to Locate:
// the HTTP client (with any Policy applied) and retry policy of the
// sources, and the settings of WithPrecomputed and WithWarn.
type LocateConfig struct {
	Client *http.Client
	Retry  Retry
	// Precomputed is the base URL of a service of precomputed indexes
	// (WithPrecomputed); "" when unset, and Off when turned off.
	Precomputed string
	// Warn receives a line about a fallback the locator took (an index it
	// refused); nil discards it.
	Warn func(msg string)
}

// Off is LocateConfig.Precomputed when WithPrecomputed("") turned the
// service off, overriding any default (an environment variable).
const Off = "off"

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

// Locate returns where name's bytes are: the answer of the first registered
// Locator that recognises name, or name itself (a path or URL that Open
// reads) when none does. The options configure the requests a locator
// makes, as they configure a source's.
func Locate(ctx context.Context, name string, opts ...Option) (Location, error) {
	locatorsMu.RLock()
	ls := locators
	locatorsMu.RUnlock()
	if len(ls) == 0 {
		return Location{URL: name}, nil
	}
	c, err := newConfig(opts)
	if err != nil {
		return Location{}, err
	}
	lc := LocateConfig{Client: c.client, Retry: c.retry, Precomputed: c.precomputed, Warn: c.warn}
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

// WithPrecomputed names the base URL of a service of precomputed indexes of
// remote files (such as https://lindi.neurosift.org, whose LINDI JSON files
// of DANDI assets open the whole tree in one request), for the locators
// that know one. "" turns such a service off, overriding the environment
// (LINDI_PRECOMPUTED_LINDI for DANDI assets).
func WithPrecomputed(base string) Option {
	return func(c *config) error {
		if base == "" {
			c.precomputed = Off
			return nil
		}
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("source: WithPrecomputed(%q): not an http(s) URL", Redact(base))
		}
		c.precomputed = base
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
