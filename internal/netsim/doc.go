// Package netsim simulates a slow, unreliable network in front of an HTTP
// handler, for tests and benchmarks of remote reads: Handler delays the first
// byte of every response, limits each response's bandwidth, answers a
// fraction of requests with 503 or with 429 and Retry-After, cuts a fraction
// of responses mid-body, answers some paths 404 for good, and counts what it
// served. Blobs serves in-memory files with Range support.
//
// A Handler is safe for concurrent use; its counters may be read at any time.
// Faults are drawn from a seeded generator, so a run is reproducible up to
// the order in which concurrent requests arrive.
package netsim
