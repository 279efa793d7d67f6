package source

import (
	"context"
	"time"
)

// Source reads byte ranges of one object: a local file, a URL, a blob in memory.
//
// ReadAt follows the contract of io.ReaderAt with a context: it reads len(p)
// bytes starting at off and returns the number read; when n < len(p) the error
// says why (io.EOF at the end of the object). Implementations are safe for
// concurrent use and stop promptly when ctx is cancelled.
type Source interface {
	ReadAt(ctx context.Context, p []byte, off int64) (n int, err error)
	// Size reports the length of the object in bytes.
	Size(ctx context.Context) (int64, error)
	// Name is the path or URL the source reads, for error messages.
	Name() string
}

// IsLocal reports whether reads of s are served without a network request:
// a local file, bytes in memory, a cache or section over one, or a source
// that says so with a Local method. Splitting a read into several costs
// little on such a source, and a connection and a server's work on others.
func IsLocal(s Source) bool {
	switch v := s.(type) {
	case *File, *Bytes:
		return true
	case interface{ Local() bool }:
		return v.Local()
	case interface{ Unwrap() Source }:
		return IsLocal(v.Unwrap())
	}
	return false
}

// Concurrency reports how many reads of s may run at once now: for a
// source over HTTP, the current limit of the host its requests go to (see
// WithConcurrency), which a reader splitting a batch into parallel reads
// plans for; 0 when s has no such limit (a local file, bytes in memory).
func Concurrency(s Source) int {
	switch v := s.(type) {
	case interface{ Concurrency() int }:
		return v.Concurrency()
	case interface{ Unwrap() Source }:
		return Concurrency(v.Unwrap())
	}
	return 0
}

// Costs reports what the host of s showed of the cost of one request, for a
// reader weighing reading more bytes against making another round trip:
// rtt is the lowest latency of its answers (time from having a connection
// to the first byte of the answer, connection setup excluded), and
// bytesPerSecond the throughput of one connection, measured on bodies of
// 64 KiB or more from their first byte to their end and estimated low (a
// weighted average that follows slower bodies quickly and faster ones
// slowly). Hosts with a fixed concurrency are measured too. ok is false
// when s is not remote or its host has not yet shown both: a caller then
// guesses nothing.
func Costs(s Source) (rtt time.Duration, bytesPerSecond float64, ok bool) {
	switch v := s.(type) {
	case interface {
		Costs() (time.Duration, float64, bool)
	}:
		return v.Costs()
	case interface{ Unwrap() Source }:
		return Costs(v.Unwrap())
	}
	return 0, 0, false
}
