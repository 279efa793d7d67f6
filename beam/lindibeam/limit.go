package lindibeam

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/source"
)

// DefaultInFlight is how many HTTP requests a worker process has in flight
// at most, over all its bundles: a thousand workers then send at most eight
// thousand requests at once to one S3 prefix, well below the ~5,500 GETs a
// second at which S3 answers 503 SlowDown (and those are retried with
// backoff).
const DefaultInFlight = 8

// limited is the HTTP transport of a worker process, shared by every DoFn
// instance in it, so that the bound holds per process whatever the number
// of bundles running. The first DoFn to set up fixes the bound.
var limited = struct {
	once   sync.Once
	client *http.Client
	n      int
}{}

// workerClient returns the process's HTTP client, bounded to n requests in
// flight.
func workerClient(n int) *http.Client {
	limited.once.Do(func() {
		if n <= 0 {
			n = DefaultInFlight
		}
		limited.n = n
		base := &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        4 * n,
			MaxIdleConnsPerHost: 2 * n,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true, // ranges of compressed chunks: nothing to gain
			TLSHandshakeTimeout: 10 * time.Second,
		}
		limited.client = &http.Client{Transport: &boundedTransport{base: base, slots: make(chan struct{}, n)}}
	})
	return limited.client
}

// boundedTransport lets at most cap(slots) requests run at once; a request
// holds its slot until its body is closed or read to the end.
type boundedTransport struct {
	base  http.RoundTripper
	slots chan struct{}
}

func (t *boundedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	select {
	case t.slots <- struct{}{}:
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		<-t.slots
		return nil, err
	}
	resp.Body = &slotBody{ReadCloser: resp.Body, release: sync.OnceFunc(func() { <-t.slots })}
	return resp, nil
}

type slotBody struct {
	io.ReadCloser
	release func()
}

func (b *slotBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.release()
	}
	return n, err
}

func (b *slotBody) Close() error {
	defer b.release()
	return b.ReadCloser.Close()
}

// openOptions are the h5 options of a worker's files: the bounded client,
// reads with as many requests in flight, and the concurrency per host
// (see hostConcurrency).
func openOptions(inFlight int, concurrency string) ([]h5.Option, error) {
	return workerOptions(inFlight, concurrency)
}

// scanOptions are openOptions for a file whose data is read once, in
// order, as a reduction reads it: without the cache of fetched ranges,
// which would copy every chunk to keep what is never read again (a fifth
// of the CPU of a reduction of 512 MB, as lindi cat also leaves it out).
func scanOptions(inFlight int, concurrency string) ([]h5.Option, error) {
	opts, err := workerOptions(inFlight, concurrency)
	return append(opts, h5.WithCacheBytes(0)), err
}

func workerOptions(inFlight int, concurrency string) ([]h5.Option, error) {
	c := workerClient(inFlight)
	n, err := hostConcurrency(concurrency)
	if err != nil {
		return nil, err
	}
	return []h5.Option{h5.WithConcurrency(limited.n), h5.WithSourceOptions(source.WithClient(c), source.WithConcurrency(n))}, nil
}

// hostConcurrency is the concurrency per host a job's setting stands for:
// "" for the worker's LINDI_CONCURRENCY (else auto), "auto" (0: each host's
// limit adapts, under the process's in-flight bound), or a number.
func hostConcurrency(setting string) (int, error) {
	if setting == "" {
		return source.ConcurrencyFromEnv()
	}
	n, err := source.ParseConcurrency(setting)
	if err != nil {
		return 0, fmt.Errorf("lindibeam: %w", err)
	}
	return n, nil
}
