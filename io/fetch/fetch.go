package fetch

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/lindigo/lindi/internal/hugemem"
	"github.com/lindigo/lindi/io/source"
)

// ErrTooLarge reports a range longer than the Fetcher's WithMaxRange limit.
var ErrTooLarge = errors.New("fetch: range too large")

// Range is a byte range [Off, Off+Len) of a source.
type Range struct {
	Src      source.Source
	Off, Len int64
	// Dst, when not nil, is where the caller wants the bytes: exactly Len
	// bytes. When the ranges read together (coalesced into one request)
	// all have a Dst and their Dsts lie back to back in one array, in
	// the order of the ranges and with no gap between the ranges, the
	// bytes are read straight into them and delivered as Dst itself;
	// otherwise they are delivered as usual and the caller copies.
	Dst []byte
}

// Error reports the failure of one read or delivery, naming the source and
// the byte range (a whole coalesced read for a read error).
type Error struct {
	Source   string
	Off, Len int64
	Err      error
}

// Error names the source (unless the cause already does) and the range.
func (e *Error) Error() string {
	cause := fmt.Sprint(e.Err)
	src := e.Source + " "
	if e.Source != "" && strings.Contains(cause, e.Source) {
		src = "" // sources name themselves: say the URL once
	}
	if e.Off < 0 || e.Len < 0 || e.Len > math.MaxInt64-e.Off {
		// No end to print: say what was asked, not an overflowed number.
		return fmt.Sprintf("fetch: %s%d bytes at offset %d: %s", src, e.Len, e.Off, cause)
	}
	return fmt.Sprintf("fetch: %sbytes [%d, %d): %s", src, e.Off, e.Off+e.Len, cause)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Fetcher reads batches of ranges concurrently under shared limits.
type Fetcher struct {
	concurrency int
	maxGap      int64
	maxMerged   int64
	partSize    int64
	minPart     int64
	budgetMax   int64
	maxRange    int64

	slots  chan struct{}
	budget *semaphore.Weighted
}

// New returns a Fetcher with the defaults changed by opts.
func New(opts ...Option) (*Fetcher, error) {
	f := &Fetcher{
		concurrency: envConcurrency(),
		maxGap:      DefaultMaxGap,
		maxMerged:   DefaultMaxMerged,
		partSize:    DefaultPartSize,
		minPart:     DefaultMinPartSize,
		budgetMax:   DefaultBudget,
		maxRange:    DefaultMaxRange,
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(f); err != nil {
			return nil, err
		}
	}
	if f.minPart > f.partSize {
		f.minPart = f.partSize
	}
	f.slots = make(chan struct{}, f.concurrency)
	f.budget = semaphore.NewWeighted(f.budgetMax)
	return f, nil
}

// envConcurrency is the reads a Fetcher keeps in flight unless told:
// LINDI_CONCURRENCY's number when it sets one, else DefaultConcurrency
// (each host's adaptive limit then decides how many of those run at once;
// an unreadable setting is reported by the sources, which refuse it).
func envConcurrency() int {
	if n, err := source.ConcurrencyFromEnv(); err == nil && n > 0 {
		return n
	}
	return DefaultConcurrency
}

// Concurrency reports the number of reads the Fetcher keeps in flight.
func (f *Fetcher) Concurrency() int { return f.concurrency }

// defaultFetcher is built on first use; New cannot fail with no options.
var defaultFetcher = sync.OnceValue(func() *Fetcher {
	f, _ := New()
	return f
})

// Default returns the process-wide Fetcher, built with the default options on
// first use. Readers that share it share one concurrency limit and one
// bytes-in-flight budget; a caller that needs other limits builds its own
// Fetcher with New and passes it explicitly.
func Default() *Fetcher { return defaultFetcher() }

// cached is implemented by source.Cache: a Fetcher serves ranges it holds
// without I/O, reads the others from the source underneath and stores them.
type cached interface {
	Get(off, n int64) ([]byte, bool)
	Put(off int64, data []byte)
	Unwrap() source.Source
}

// Fetch reads every range and calls deliver(i, data) for range i as soon as
// its bytes are in. deliver is called from many goroutines concurrently, once
// per range; data then belongs to the callee and is never touched again by
// the Fetcher (it may share a backing array with other ranges' data, but
// never overlaps it, and its capacity ends with it). Overlapping and
// duplicate ranges are allowed; zero-length ranges are delivered an empty
// slice without I/O. Reading past the end of a source is an error.
//
// Ranges held by a cache (a source.Cache as Src) are delivered from it
// without I/O, before any read starts; the others are read from the source
// beneath the cache and stored in it.
//
// A read holds its share of the bytes-in-flight budget until deliver has
// returned for each of its ranges, so deliver must not wait for another
// Fetch on the same Fetcher; hand the data to other goroutines instead.
//
// The first error, from a read or from deliver, cancels the rest and is
// returned as an *Error; Fetch returns after every goroutine it started has
// ended.
func (f *Fetcher) Fetch(ctx context.Context, ranges []Range, deliver func(i int, data []byte) error) error {
	if deliver == nil {
		return errors.New("fetch: nil deliver")
	}
	if err := f.validate(ranges); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	run := &run{f: f, ranges: ranges, deliver: deliver, cancel: cancel, local: make(chan struct{}, localReads())}

	var misses []Range
	var missIdx []int
	var total int64
	for i, r := range ranges {
		if r.Len == 0 {
			if err := run.give(i, []byte{}); err != nil {
				return err
			}
			continue
		}
		if c, ok := r.Src.(cached); ok {
			if b, ok := c.Get(r.Off, r.Len); ok {
				if err := run.give(i, b); err != nil {
					return err
				}
				continue
			}
		}
		misses = append(misses, r)
		missIdx = append(missIdx, i)
		total += r.Len
	}
	sz, blocks := f.layout(misses, total)
	for _, b := range blocks {
		for k := range b.members {
			b.members[k].i = missIdx[b.members[k].i]
		}
	}
	blocks = run.splitAtGaps(blocks)
	// Start the blocks in the caller's order of their first range, not in
	// file order: a file's chunks need not lie in the order of the output,
	// and a caller writing the output as it completes waits for the first.
	slices.SortStableFunc(blocks, func(a, b *block) int { return cmp.Compare(a.first(), b.first()) })
	for _, b := range blocks {
		run.arena.left += b.len
	}
	for _, b := range blocks {
		if !run.start(ctx, b, sz.part) {
			break
		}
	}
	run.wg.Wait()
	return run.err()
}

func (f *Fetcher) validate(ranges []Range) error {
	for i, r := range ranges {
		switch {
		case r.Src == nil:
			return fmt.Errorf("fetch: range %d: nil source", i)
		case r.Off < 0 || r.Len < 0:
			return &Error{Source: r.Src.Name(), Off: r.Off, Len: r.Len, Err: fmt.Errorf("range %d: negative offset or length", i)}
		case r.Len > math.MaxInt64-r.Off:
			return &Error{Source: r.Src.Name(), Off: r.Off, Len: r.Len, Err: fmt.Errorf("range %d: end overflows", i)}
		case r.Dst != nil && int64(len(r.Dst)) != r.Len:
			return &Error{Source: r.Src.Name(), Off: r.Off, Len: r.Len, Err: fmt.Errorf("range %d: Dst holds %d bytes", i, len(r.Dst))}
		case r.Len > f.maxRange:
			return &Error{Source: r.Src.Name(), Off: r.Off, Len: r.Len, Err: fmt.Errorf("range %d: %w: %d bytes, limit %d", i, ErrTooLarge, r.Len, f.maxRange)}
		}
	}
	return nil
}

// run is the state of one Fetch call.
type run struct {
	f       *Fetcher
	ranges  []Range
	deliver func(int, []byte) error
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	first atomic.Pointer[error]
	arena arena // used by the dispatching goroutine only

	// local bounds the reads of local sources in flight: they are copies
	// from the page cache or a disk queue, not network waits, and a few
	// at a time complete in about the order they start, which is the
	// order of the output (a writer behind Ready waits for the first).
	local chan struct{}
}

// localReads is how many reads of local sources a Fetch keeps in flight.
func localReads() int { return max(4, 2*runtime.GOMAXPROCS(0)) }

// splitAtGaps splits a block of a local source whose members all have a
// Dst at the gaps between them, so that each piece can be read in place, as
// long as the batch still takes no more reads than the fetcher keeps in
// flight. Over HTTP the pieces cost connections and server work, which
// measured more than the copies they save (1,200 raw chunks at 20 ms:
// 0.100 s split, 0.095 s not, medians of 15), so remote blocks stay whole.
func (r *run) splitAtGaps(blocks []*block) []*block {
	spare := r.f.concurrency - len(blocks)
	if spare <= 0 {
		return blocks
	}
	out := make([]*block, 0, len(blocks))
	for _, b := range blocks {
		pieces := r.pieces(b)
		if len(pieces) < 2 || len(pieces)-1 > spare {
			out = append(out, b)
			continue
		}
		spare -= len(pieces) - 1
		out = append(out, pieces...)
	}
	return out
}

// pieces returns the runs of b's members between gaps, as blocks, when b's
// source is local, every member has a Dst and none overlaps another; nil
// otherwise.
func (r *run) pieces(b *block) []*block {
	if !source.IsLocal(b.src) {
		return nil
	}
	var out []*block
	var cur *block
	for _, m := range b.members {
		if r.ranges[m.i].Dst == nil || m.shared {
			return nil
		}
		if cur == nil || m.rel > cur.off-b.off+cur.len {
			cur = &block{src: b.src, off: b.off + m.rel}
			out = append(out, cur)
		}
		rel := b.off + m.rel - cur.off
		cur.len = max(cur.len, rel+m.len)
		cur.members = append(cur.members, member{i: m.i, rel: rel, len: m.len})
	}
	return out
}

// first returns the smallest caller's index among b's members.
func (b *block) first() int {
	i := b.members[0].i
	for _, m := range b.members[1:] {
		i = min(i, m.i)
	}
	return i
}

// home returns the callers' memory that block b can be read into: the Dsts
// of its members when they lie back to back in one array in the block's
// order, with no gap or overlap; nil otherwise.
func (r *run) home(b *block) []byte {
	var next int64
	var prev []byte
	for k, m := range b.members {
		d := r.ranges[m.i].Dst
		if d == nil || m.shared || m.rel != next {
			return nil
		}
		if k > 0 && (cap(prev) == len(prev) || &prev[:len(prev)+1][len(prev)] != &d[0]) {
			return nil
		}
		prev, next = d, m.rel+m.len
	}
	first := r.ranges[b.members[0].i].Dst
	if next != b.len || int64(cap(first)) < b.len {
		return nil
	}
	return first[:b.len:b.len]
}

// arena hands out the buffers of one Fetch's blocks. A batch of many
// megabytes gets them from a few large allocations advised for huge pages:
// reading into fresh memory otherwise faults in one 4 KiB page at a time,
// which cost a quarter of the CPU of a local 15 MB read.
type arena struct {
	buf  []byte
	left int64 // bytes of the batch not handed out yet
}

// Arenas are used for batches of at least minArena bytes and hold at most
// maxArena bytes each.
const (
	minArena = 4 << 20
	maxArena = 64 << 20
)

func (a *arena) alloc(n int64) []byte {
	if a.left < minArena && int64(len(a.buf)) < n || n > maxArena {
		a.left -= n
		return make([]byte, n)
	}
	if int64(len(a.buf)) < n {
		a.buf = hugemem.Alloc(int(min(max(a.left, n), maxArena)))
	}
	b := a.buf[:n:n]
	a.buf = a.buf[n:]
	a.left -= n
	return b
}

func (r *run) fail(err error) {
	r.first.CompareAndSwap(nil, &err)
	r.cancel()
}

func (r *run) err() error {
	if p := r.first.Load(); p != nil {
		return *p
	}
	return nil
}

// give delivers range i, wrapping a deliver error.
func (r *run) give(i int, data []byte) error {
	if err := r.deliver(i, data); err != nil {
		rg := r.ranges[i]
		err = &Error{Source: rg.Src.Name(), Off: rg.Off, Len: rg.Len, Err: err}
		r.fail(err)
		return err
	}
	return nil
}

// start acquires the budget for b and launches its parts; it reports false
// once the batch is failing or cancelled.
func (r *run) start(ctx context.Context, b *block, part int64) bool {
	weight := min(b.len, r.f.budgetMax)
	if err := r.f.budget.Acquire(ctx, weight); err != nil {
		r.fail(err)
		return false
	}
	buf := r.home(b)
	if buf == nil {
		buf = r.arena.alloc(b.len)
	}
	st := &blockRun{b: b, buf: buf, weight: weight, local: source.IsLocal(b.src)}
	st.pending.Store(1) // the dispatcher's own token, dropped below
	ok := true
	span := partSpan(b.len, part)
	for s := int64(0); s < b.len; s += span {
		p := [2]int64{s, min(s+span, b.len)}
		if st.local {
			select {
			case r.local <- struct{}{}:
			case <-ctx.Done():
				r.fail(ctx.Err())
				ok = false
			}
			if !ok {
				break
			}
		}
		select {
		case r.f.slots <- struct{}{}:
		case <-ctx.Done():
			r.fail(ctx.Err())
			ok = false
		}
		if !ok {
			if st.local {
				<-r.local
			}
			break
		}
		st.pending.Add(1)
		r.wg.Add(1)
		go r.read(ctx, st, p)
	}
	if !ok {
		st.failed.Store(true)
	}
	// When the parts are already in, deliver on another goroutine: the
	// dispatcher goes on starting reads.
	if st.pending.Add(-1) == 0 {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.complete(st)
		}()
	}
	return ok
}

// blockRun tracks the parts of one block in flight.
type blockRun struct {
	b       *block
	buf     []byte
	weight  int64
	local   bool // its parts hold a slot of run.local too
	pending atomic.Int32
	failed  atomic.Bool
}

// read reads part p of a block, in its own goroutine holding one slot.
func (r *run) read(ctx context.Context, st *blockRun, p [2]int64) {
	defer r.wg.Done()
	src := st.b.src
	if c, ok := src.(cached); ok {
		src = c.Unwrap()
	}
	off := st.b.off + p[0]
	n, err := src.ReadAt(ctx, st.buf[p[0]:p[1]], off)
	<-r.f.slots
	if st.local {
		<-r.local
	}
	if int64(n) == p[1]-p[0] && (err == nil || errors.Is(err, io.EOF)) {
		err = nil
	} else if err == nil || errors.Is(err, io.EOF) {
		err = shortRead(ctx, src, off, n, p[1]-p[0])
	}
	if err != nil {
		st.failed.Store(true)
		r.fail(&Error{Source: st.b.src.Name(), Off: off, Len: p[1] - p[0], Err: err})
	}
	r.finish(st)
}

// shortRead says why a read of want bytes at off gave only n: the size of
// the source, when it can tell, rather than where this read stopped.
func shortRead(ctx context.Context, src source.Source, off int64, n int, want int64) error {
	size, err := src.Size(ctx)
	switch {
	case err == nil && off >= size:
		return fmt.Errorf("the range starts past the end of the source (%d bytes): %w", size, io.ErrUnexpectedEOF)
	case err == nil && off+want > size:
		return fmt.Errorf("the range ends at %d, past the end of the source (%d bytes): %w", off+want, size, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("source ends after %d bytes: %w", off+int64(n), io.ErrUnexpectedEOF)
}

// finish drops one token of a block; the last one completes it.
func (r *run) finish(st *blockRun) {
	if st.pending.Add(-1) == 0 {
		r.complete(st)
	}
}

// complete delivers a block whose parts all succeeded, and returns its
// budget.
func (r *run) complete(st *blockRun) {
	defer r.f.budget.Release(st.weight)
	if st.failed.Load() {
		return
	}
	r.deliverBlock(st)
}

// deliverBlock hands out the members of a block, on up to GOMAXPROCS
// goroutines when it holds many, so that their decoding runs in parallel.
func (r *run) deliverBlock(st *blockRun) {
	ms := st.b.members
	c, _ := st.b.src.(cached)
	one := func(m member) bool {
		data := st.buf[m.rel : m.rel+m.len : m.rel+m.len]
		if c != nil {
			c.Put(st.b.off+m.rel, data)
		}
		if m.shared {
			data = bytes.Clone(data)[:len(data):len(data)]
		}
		return r.give(m.i, data) == nil
	}
	workers := min(len(ms), runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for _, m := range ms {
			if !one(m) {
				return
			}
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := next.Add(1) - 1
				if k >= int64(len(ms)) || r.err() != nil {
					return
				}
				if !one(ms[k]) {
					return
				}
			}
		})
	}
	wg.Wait()
}
