package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/selection"
)

// Chunk says where one stored chunk is.
type Chunk struct {
	// Data holds the chunk's stored bytes when they are in memory.
	Data []byte
	// Src, Off and Len locate the stored bytes otherwise.
	Src      source.Source
	Off, Len int64
	// Missing is set for a chunk that was never written: it reads as the fill value.
	Missing bool
	// Pipeline, when non-nil, replaces the array's pipeline for this chunk (HDF5
	// stores a chunk with some filters skipped when they did not pay).
	Pipeline *codecs.Pipeline
}

// Array describes a stored chunked array.
type Array struct {
	Shape  []int
	Chunks []int
	// ItemSize is the size of one element in bytes (for object arrays: ignored).
	ItemSize int
	// FOrder is set when the elements of each chunk are stored in Fortran order.
	FOrder bool
	// Fill is one element of fill value in stored byte order; nil means zeros.
	Fill []byte
	// FillObject is the fill value of an object array.
	FillObject any
	// Pipeline decodes a stored chunk; nil or empty means stored raw.
	Pipeline *codecs.Pipeline
	// Objects is set for an object array: chunks decode to items (ReadObjects).
	Objects bool
	// PadShort allows a raw chunk shorter than the chunk size, zero-padded (LINDI
	// splits contiguous HDF5 datasets into chunks whose last one is short).
	PadShort bool
	// Locator finds the stored chunks.
	Locator Locator
	// Name identifies the array in errors.
	Name string
}

// Locator finds the stored chunk at the given grid coordinates. It is called
// from several goroutines at once. Each format implements it by its own rules:
// a Zarr key lookup, an HDF5 chunk index, a contiguous byte range cut into
// virtual chunks.
type Locator interface {
	Locate(ctx context.Context, coords []int) (Chunk, error)
}

// Options tune a read. The zero value is ready to use.
type Options struct {
	// Workers bounds the goroutines that decode chunks; 0 means GOMAXPROCS.
	Workers int
	// Fetcher fetches the chunks' bytes; nil means fetch.Default().
	Fetcher *fetch.Fetcher
	// Progress, when set, is called after each chunk is decoded with the
	// number of chunks done and the number the read touches. It is called
	// from several goroutines at once and must be quick.
	Progress func(done, total int)
}

// ChunkError reports a failure to read one chunk.
type ChunkError struct {
	Array  string // the array's name
	Coords []int  // the chunk's grid coordinates
	Where  string // where its bytes came from: "inline" or "URL@offset+length"
	Err    error
}

// Error describes the failed chunk and the cause.
func (e *ChunkError) Error() string {
	return fmt.Sprintf("chunk %v of %s (%s): %v", e.Coords, e.Array, e.Where, e.Err)
}

// Unwrap returns the cause.
func (e *ChunkError) Unwrap() error { return e.Err }

// job is one chunk to decode: its plan and, unless missing, its stored bytes.
// For a part of a raw chunk, raw holds the elements from offset lo on.
type job struct {
	plan  *selection.ChunkPlan
	chunk Chunk
	raw   []byte
	part  bool
	lo    int
}

// sink decodes chunks and scatters them into an output of some element type.
type sink interface {
	do(j job) error
}

// Read reads the selection r of array a into out, which must hold exactly
// r.Len()*a.ItemSize bytes, in C order and in the stored byte order.
func Read(ctx context.Context, a *Array, r *selection.Resolved, out []byte, opt Options) error {
	if want := r.Len() * a.ItemSize; len(out) != want {
		return fmt.Errorf("engine: output holds %d bytes, selection needs %d", len(out), want)
	}
	if err := a.check(); err != nil {
		return err
	}
	return run(ctx, a, r, &byteSink{a: a, out: out}, opt)
}

// ReadObjects reads the selection r of the object array a into out, which must
// hold exactly r.Len() items, in C order.
func ReadObjects(ctx context.Context, a *Array, r *selection.Resolved, out []any, opt Options) error {
	if want := r.Len(); len(out) != want {
		return fmt.Errorf("engine: output holds %d items, selection needs %d", len(out), want)
	}
	if err := a.check(); err != nil {
		return err
	}
	if a.Pipeline == nil {
		return fmt.Errorf("engine: %s: an object array needs an object codec", a.Name)
	}
	return run(ctx, a, r, &objectSink{a: a, out: out}, opt)
}

func (a *Array) check() error {
	if len(a.Shape) != len(a.Chunks) {
		return fmt.Errorf("engine: %s: shape %v and chunks %v differ in rank", a.Name, a.Shape, a.Chunks)
	}
	if a.Locator == nil {
		return fmt.Errorf("engine: %s: no chunk locator", a.Name)
	}
	return nil
}

// chunkLen is the number of elements in one full chunk.
func (a *Array) chunkLen() int {
	n := 1
	for _, c := range a.Chunks {
		n *= c
	}
	return n
}

func run(ctx context.Context, a *Array, r *selection.Resolved, s sink, opt Options) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	f := opt.Fetcher
	if f == nil {
		f = fetch.Default()
	}
	plan, err := r.Plan(a.Chunks)
	if err != nil {
		return fmt.Errorf("engine: %s: %w", a.Name, err)
	}
	located, err := locate(ctx, a, plan)
	if err != nil {
		return err
	}
	var local, remote []job
	var ranges []fetch.Range
	for _, j := range located {
		c, p := j.chunk, j.plan
		switch {
		case c.Missing:
			local = append(local, j)
		case c.Src == nil:
			j.raw = c.Data
			local = append(local, j)
		case a.readsPart(c):
			// A raw chunk: fetch only the elements the selection spans.
			lo, hi := p.Span()
			j.part, j.lo = true, lo
			off, end := int64(lo*a.ItemSize), min(int64(hi*a.ItemSize), c.Len)
			remote = append(remote, j)
			ranges = append(ranges, fetch.Range{Src: c.Src, Off: c.Off + min(off, c.Len), Len: max(end-off, 0)})
		default:
			remote = append(remote, j)
			ranges = append(ranges, fetch.Range{Src: c.Src, Off: c.Off, Len: c.Len})
		}
	}
	if len(local)+len(remote) == 0 {
		return nil
	}
	if workers > len(local)+len(remote) {
		workers = len(local) + len(remote)
	}

	var done atomic.Int64
	total := len(located)
	g, gctx := errgroup.WithContext(ctx)
	jobs := make(chan job, workers)
	for range workers {
		g.Go(func() error {
			for j := range jobs {
				if err := gctx.Err(); err != nil {
					return err
				}
				if err := s.do(j); err != nil {
					return &ChunkError{Array: a.Name, Coords: j.plan.Coords, Where: where(j.chunk), Err: err}
				}
				if opt.Progress != nil {
					opt.Progress(int(done.Add(1)), total)
				}
			}
			return nil
		})
	}
	// Two producers feed the workers: chunks already in memory (or missing),
	// and chunks as the fetcher delivers them. Fetching starts at once, so
	// its latency overlaps the decoding of the others.
	send := func(j job) error {
		select {
		case jobs <- j:
			return nil
		case <-gctx.Done():
			return gctx.Err()
		}
	}
	var producers sync.WaitGroup
	producers.Add(2)
	go func() {
		producers.Wait()
		close(jobs)
	}()
	g.Go(func() error {
		defer producers.Done()
		for _, j := range local {
			if err := send(j); err != nil {
				return err
			}
		}
		return nil
	})
	g.Go(func() error {
		defer producers.Done()
		if len(ranges) == 0 {
			return nil
		}
		return f.Fetch(gctx, ranges, func(i int, data []byte) error {
			j := remote[i]
			j.raw = data
			return send(j)
		})
	})
	err = g.Wait()
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		// The caller cancelled: say so rather than whichever goroutine noticed first.
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// readsPart reports whether the chunk is stored raw, so that the part the
// selection spans can be fetched alone.
func (a *Array) readsPart(c Chunk) bool {
	pipe := a.Pipeline
	if c.Pipeline != nil {
		pipe = c.Pipeline
	}
	return (pipe == nil || pipe.Empty()) && !a.FOrder && !a.Objects && c.Src != nil
}

// locators bounds the goroutines that locate chunks. Locating may be I/O (an
// HDF5 chunk index, a remote store), so it runs concurrently too.
const locators = 32

// locate finds every touched chunk, in plan order, with up to locators
// goroutines each taking a contiguous share of the chunks.
func locate(ctx context.Context, a *Array, plan *selection.Plan) ([]job, error) {
	jobs := make([]job, 0, plan.NumChunks())
	for p := range plan.Chunks() {
		jobs = append(jobs, job{plan: p})
	}
	n := min(locators, len(jobs))
	g, gctx := errgroup.WithContext(ctx)
	for w := range n {
		share := jobs[w*len(jobs)/n : (w+1)*len(jobs)/n]
		g.Go(func() error {
			for i := range share {
				if err := gctx.Err(); err != nil {
					return err
				}
				c, err := a.Locator.Locate(gctx, share[i].plan.Coords)
				if err != nil {
					return &ChunkError{Array: a.Name, Coords: share[i].plan.Coords, Where: "index", Err: err}
				}
				share[i].chunk = c
			}
			return nil
		})
	}
	return jobs, g.Wait()
}

func where(c Chunk) string {
	switch {
	case c.Missing:
		return "missing"
	case c.Src == nil:
		return "inline"
	}
	return fmt.Sprintf("%s@%d+%d", c.Src.Name(), c.Off, c.Len)
}
