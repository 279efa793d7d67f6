// Package fetch reads batches of byte ranges concurrently. A Fetcher groups
// the ranges of a batch by source, sorts them, coalesces neighbours into one
// read when the gap between them is small (or, when the batch has more reads
// than its host lets run at once, when the host's measured round trip costs
// more than reading the gap: see source.Costs), splits very large reads into
// parallel parts, and issues the reads under one concurrency limit and one
// bytes-in-flight budget, handing each range to the caller as soon as its
// bytes are in, so that fetching and decoding overlap.
//
// # Concurrency
//
// A Fetcher is safe for concurrent use; concurrent Fetch calls share its
// limits. Default returns the process-wide Fetcher, so that every reader in
// the process shares one concurrency limit. The deliver callback of Fetch is
// called from many goroutines at once.
//
// # Errors
//
// The first error, from a read or from deliver, cancels the rest of the batch
// and is returned as an *Error naming the source and byte range. A cancelled
// context makes Fetch return promptly, after every goroutine it started has
// ended.
package fetch
