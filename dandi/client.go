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
	"time"

	"github.com/lindigo/lindi/io/source"
	"golang.org/x/sync/singleflight"
)

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

// responses caches the API's 200 answers for the process, by URL and key:
// listings and metadata change rarely, and a program asks for the same
// ones again (each open of an asset of a folder listed before).
var responses = struct {
	sync.Mutex
	m     map[string][]byte
	bytes int
	group singleflight.Group
}{m: map[string][]byte{}}

// maxCached bounds the cached answers; past it the cache starts afresh.
const maxCached = 64 << 20

// get returns the body of the API's 200 answer to GET u, through the
// process's cache. Other statuses are a *statusError.
func (c *config) get(ctx context.Context, inst Instance, u string) ([]byte, error) {
	key := c.authKey(inst, u)
	ck := u + "\x00" + keyTag(key)
	responses.Lock()
	b, ok := responses.m[ck]
	responses.Unlock()
	if ok {
		return b, nil
	}
	v, err, _ := responses.group.Do(ck, func() (any, error) {
		b, err := c.fetch(ctx, u, key)
		if err != nil {
			return nil, err
		}
		responses.Lock()
		defer responses.Unlock()
		if responses.bytes+len(b) > maxCached {
			clear(responses.m)
			responses.bytes = 0
		}
		responses.m[ck] = b
		responses.bytes += len(b)
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

// fetch sends GET u, retrying network failures, 429 and 5xx answers as
// the retry policy says.
func (c *config) fetch(ctx context.Context, u, key string) ([]byte, error) {
	client := *c.client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	start := time.Now()
	for attempt := 0; ; attempt++ {
		b, retry, err := c.once(ctx, &client, u, key)
		if !retry || attempt+1 >= c.retry.MaxAttempts || ctx.Err() != nil {
			return b, err
		}
		d := c.retry.Backoff(attempt)
		if time.Since(start)+d > c.retry.MaxElapsed {
			return b, err
		}
		if err := c.retry.Wait(ctx, d); err != nil {
			return nil, err
		}
	}
}

func (c *config) once(ctx context.Context, client *http.Client, u, key string) (b []byte, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("GET %s: %w", source.Redact(u), err)
	}
	req.Header.Set("Accept", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "token "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, false, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, true, fmt.Errorf("GET %s: %w", source.Redact(u), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		e := &statusError{url: source.Redact(u), status: resp.StatusCode}
		return nil, resp.StatusCode == 429 || resp.StatusCode >= 500, e
	}
	b, err = io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, true, fmt.Errorf("GET %s: %w", source.Redact(u), err)
	}
	if len(b) > maxResponse {
		return nil, false, fmt.Errorf("GET %s: answer over %d bytes", source.Redact(u), maxResponse)
	}
	return b, false, nil
}

// ClearCache forgets the API answers and listed assets this process keeps,
// so that the next requests see the archive as it is now (a long-running
// service, a benchmark's cold runs).
func ClearCache() {
	responses.Lock()
	clear(responses.m)
	responses.bytes = 0
	responses.Unlock()
	listed.Clear()
}
