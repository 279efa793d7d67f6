package fetch

import "fmt"

// Defaults of a Fetcher, measured with BenchmarkFetchNetsim and
// BenchmarkFetchTuning (20 ms latency, 50 MB/s per connection).
//
// Coalescing trades bytes for round trips: a gap of DefaultMaxGap costs
// about 5 ms at 50 MB/s, well under one more round trip, and local reads gain
// from fewer calls; larger gaps lose once requests run in parallel anyway,
// unless a batch has more reads than its host lets run at once: then a gap
// that one connection reads in less than the host's round trip is read
// rather than leaving a read to wait a round for a slot (see source.Costs).
// Splitting trades requests for parallel streams: a batch is cut into reads
// of about total/concurrency bytes between DefaultMinPartSize and
// DefaultPartSize (the range size cloud stores advise for parallel GETs), so
// each read delivers its ranges as soon as it ends. Concurrency 64 keeps a
// 200-chunk scattered read within four waves of requests; it is the most
// reads in flight, and each host's adaptive limit (see package source)
// decides how many of them run at once. LINDI_CONCURRENCY=N replaces it
// with N, and fixes each host's limit at N.
const (
	DefaultConcurrency = 64        // reads in flight
	DefaultMaxGap      = 256 << 10 // bytes of gap read to join two ranges
	DefaultMaxMerged   = 8 << 20   // largest read made by joining ranges
	DefaultPartSize    = 8 << 20   // reads larger than this are split in parts
	DefaultMinPartSize = 256 << 10 // smallest read made by splitting a batch
	DefaultBudget      = 256 << 20 // bytes of buffers held by reads and deliveries
	DefaultMaxRange    = 4 << 30   // longest single range accepted
)

// Option configures New. Each validates its argument.
type Option func(*Fetcher) error

// WithConcurrency sets the number of reads in flight at once (default
// DefaultConcurrency, or LINDI_CONCURRENCY's number). The requests they
// make run under their hosts' limits too (source.WithConcurrency).
func WithConcurrency(n int) Option {
	return func(f *Fetcher) error {
		if n < 1 || n > 1<<16 {
			return fmt.Errorf("fetch: WithConcurrency(%d): must be in [1, 65536]", n)
		}
		f.concurrency = n
		return nil
	}
}

// WithMaxGap sets the largest gap between two ranges that are still read as
// one (default DefaultMaxGap); 0 joins only touching or overlapping ranges.
// Wider gaps are read only when a batch has more reads than its host lets
// run at once and the host's costs (source.Costs) show the gap cheaper than
// the round trip a read would wait.
func WithMaxGap(n int64) Option {
	return func(f *Fetcher) error {
		if n < 0 {
			return fmt.Errorf("fetch: WithMaxGap(%d): must not be negative", n)
		}
		f.maxGap = n
		return nil
	}
}

// WithMaxMerged sets the largest read made by joining ranges (default
// DefaultMaxMerged); joined reads also stay within the part size the batch
// is cut into. A single range larger than this is read alone.
func WithMaxMerged(n int64) Option {
	return func(f *Fetcher) error {
		if n < 1 {
			return fmt.Errorf("fetch: WithMaxMerged(%d): must be positive", n)
		}
		f.maxMerged = n
		return nil
	}
}

// WithPartSize sets the size above which a read is split into parallel
// parts of at most n bytes (default DefaultPartSize). A batch is cut into
// reads of about its total size divided by the concurrency, but no smaller
// than WithMinPartSize and no larger than this.
func WithPartSize(n int64) Option {
	return func(f *Fetcher) error {
		if n < 1 {
			return fmt.Errorf("fetch: WithPartSize(%d): must be positive", n)
		}
		f.partSize = n
		return nil
	}
}

// WithBudget bounds the bytes of read buffers held at once, from the start
// of a read until deliver has returned for every range it holds (default
// DefaultBudget). A read larger than the budget waits for the whole budget.
func WithBudget(n int64) Option {
	return func(f *Fetcher) error {
		if n < 1 {
			return fmt.Errorf("fetch: WithBudget(%d): must be positive", n)
		}
		f.budgetMax = n
		return nil
	}
}

// WithMaxRange sets the longest range Fetch accepts (default
// DefaultMaxRange): lengths come from files that may be corrupt or hostile,
// and a range is allocated whole before it is read.
func WithMaxRange(n int64) Option {
	return func(f *Fetcher) error {
		if n < 1 {
			return fmt.Errorf("fetch: WithMaxRange(%d): must be positive", n)
		}
		f.maxRange = n
		return nil
	}
}

// WithMinPartSize sets the smallest read a batch is cut into to spread it
// over the concurrency (default DefaultMinPartSize); a value above the part
// size counts as the part size. Raise it to make fewer requests.
func WithMinPartSize(n int64) Option {
	return func(f *Fetcher) error {
		if n < 1 {
			return fmt.Errorf("fetch: WithMinPartSize(%d): must be positive", n)
		}
		f.minPart = n
		return nil
	}
}
