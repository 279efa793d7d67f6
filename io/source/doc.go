// Package source reads byte ranges of objects: local files (File, through
// pread), in-memory blobs (Bytes) and HTTP(S) URLs (HTTP, through range
// requests with strict checks, retries, stall detection and URL resolution),
// with a caching decorator (Cache over an LRU bounded by bytes) and a Pool
// handing out one shared source per name. ReadTail reads the end of an
// object whose size is not known yet (a Zarr shard's index, a file's
// footer): over HTTP one suffix range request, whose answer tells the size.
//
// Open picks the source for a name: http:// and https:// URLs, file: URLs,
// a name without a scheme is a local path, and any other scheme is refused
// (see Scheme). Locate asks the registered Locators where an address that
// is not a URL (a DANDI asset's) has its bytes; a Location may carry a
// resolver (WithResolver) mapping an API URL to the presigned URL it
// redirects to. A Policy (WithPolicy) restricts the hosts and addresses
// requests may reach, for services that open untrusted documents.
//
// # Waits and retries
//
// Every remote wait is bounded by one timeout T (TimeoutEnv, WithTimeout;
// DefaultTimeout 20 s): connecting, an answer's headers and each gap in its
// body; a request lasts at most RequestTimeout(T). Failures that may pass
// (a timeout, a cut connection, 408, 429, 5xx) are retried by one loop,
// Retry.Do, that the DANDI client shares: backoff with jitter, Retry-After
// honoured, capped in attempts and in total time.
//
// # Connections
//
// HTTP sources that were not given a client share one transport: HTTP/1.1,
// keep-alive, up to 256 idle connections per host. A new HTTPS connection
// costs a round trip for TCP and another for TLS, so the first request of a
// source to a host that has no connection opens the others a read will want
// (WithWarmConns: by default as many as a default fetch.Fetcher keeps in
// flight, and no more than the host's limit lets run) while it is under way, unless the host answers within a few
// milliseconds; the requests that follow take them ready. Connections
// opened ahead and never taken are closed after a few seconds.
//
// # Requests in flight per host
//
// Every request of an HTTP source (and of a Pool's S3 listing) runs under
// a limit per host that the whole process shares: adaptive by default,
// starting at AutoInitialConcurrency and moving, as TCP's congestion
// window does, with what the server takes (it halves on refused or reset
// connections, 429, 503 and stalled connection setup, and shrinks when
// latency climbs); fixed by WithConcurrency or LINDI_CONCURRENCY. Hosts
// reports where each settled; WithThrottleNotice tells when one backs off.
// Costs reports what a host showed of the cost of a request (its lowest
// latency, one connection's throughput), for a reader weighing a read of
// more bytes against another round trip.
// Connection attempts that stall (a SYN dropped by a server whose listen
// queue is full) are raced by a second attempt after a few times the
// fastest connect seen, instead of waiting a second for the kernel to
// resend.
//
// # Concurrency
//
// Every Source, the Pool, LRU and Cache are safe for concurrent use; ReadAt
// calls run in parallel. Statistics (Stats, Reporter) are atomic counters that
// may be read at any time.
//
// # Errors
//
// Errors name the source, with any URL password redacted (Redact). A
// status that is not retried, or still failing
// when retries ran out, is an *HTTPError with the URL and status; answers
// that break the range protocol wrap ErrProtocol; reads past the end return
// io.EOF as io.ReaderAt does; requests a Policy refuses wrap ErrBlocked; a
// cancelled context returns ctx.Err().
package source
