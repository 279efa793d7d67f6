package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/selection"
)

// A read runs in stages, on batches of chunks so that its memory is the
// output plus a constant: plan the chunks the selection touches, locate them,
// classify them by where their bytes are, then fetch and decode at once: two
// producers (chunks needing no I/O, chunks as the fetcher delivers them) feed
// a bounded pool of decoders, and each decoder scatters into the output
// through the sink.

// run reads the selection r of array a through the sink s, batch by batch
// so that the memory a read holds besides its output does not grow with the
// number of chunks it touches.
func run(ctx context.Context, a *Chunked, r *selection.Resolved, s sink, opt Options) error {
	plan, err := r.Plan(a.Chunks)
	if err != nil {
		return fmt.Errorf("engine: %s: %w", a.Name, err)
	}
	rd := &reader{a: a, sink: s, opt: opt, total: plan.NumChunks(), track: newTracker(opt.Ready, plan)}
	plans := make([]*selection.ChunkPlan, 0, min(batchChunks, plan.NumChunks()))
	for p := range plan.Chunks() {
		if len(plans) == batchChunks {
			// p, the first chunk of the next batch, bounds what follows.
			if err := rd.readBatch(ctx, plans, p.Start()); err != nil {
				return err
			}
			plans = plans[:0]
		}
		plans = append(plans, p)
	}
	if len(plans) > 0 {
		if err := rd.readBatch(ctx, plans, r.Len()); err != nil {
			return err
		}
	}
	rd.track.end(r.Len())
	return nil
}

// batchChunks is how many chunks a read plans, locates and fetches at once.
// A located chunk costs about a kilobyte until it is decoded, so a batch
// holds a few megabytes however many chunks the read touches, and it is
// large enough that the fetcher still coalesces and overlaps requests.
const batchChunks = 4096

// readBatch locates, fetches and decodes the chunks of plans, which is not
// empty; no chunk after them starts before output element after.
func (rd *reader) readBatch(ctx context.Context, plans []*selection.ChunkPlan, after int) error {
	located, err := locate(ctx, rd.a, plans)
	if err != nil {
		return err
	}
	rd.track.batch(located, after)
	home, _ := rd.sink.(homer)
	return rd.read(ctx, classify(rd.a, located, home))
}

// locators bounds the goroutines that locate chunks. Locating may be I/O (an
// HDF5 chunk index, a remote store), so it runs concurrently too.
const locators = 32

// locate finds the chunks of plans, in order, with up to locators goroutines
// each taking a contiguous share of them.
func locate(ctx context.Context, a *Chunked, plans []*selection.ChunkPlan) ([]job, error) {
	jobs := make([]job, len(plans))
	for i, p := range plans {
		jobs[i].plan, jobs[i].seq = p, i
	}
	if p, ok := a.Locator.(Preparer); ok {
		coords := make([][]int, len(plans))
		for i, pl := range plans {
			coords[i] = pl.Coords
		}
		p.Prepare(ctx, coords)
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

// batch is the located chunks of a read sorted by where their bytes are.
type batch struct {
	local  []job         // missing or in memory: decoded without I/O
	remote []job         // remote[i] is decoded once ranges[i] is fetched
	ranges []fetch.Range // the bytes each remote job waits for
}

// classify sorts the located jobs into a batch. A job for a chunk in memory
// gets its bytes now; a job for part of a raw chunk waits for only the bytes
// the selection spans, read straight into the output when they land there as
// one run and the sink can say where (home not nil).
func classify(a *Chunked, located []job, home homer) batch {
	var b batch
	for _, j := range located {
		c := j.chunk
		switch {
		case c.Missing:
			b.local = append(b.local, j)
		case c.Src == nil:
			j.raw = c.Data
			b.local = append(b.local, j)
		case a.readsPart(c):
			j, r := a.partJob(j)
			if home != nil {
				j.home = home.home(j, r.Len)
				r.Dst = j.home
			}
			b.remote, b.ranges = append(b.remote, j), append(b.ranges, r)
		default:
			b.remote = append(b.remote, j)
			b.ranges = append(b.ranges, fetch.Range{Src: c.Src, Off: c.Off, Len: c.Len})
		}
	}
	return b
}

// homer is a sink that can receive a part's bytes in place.
type homer interface {
	// home returns where the elements of part job j, n bytes stored, land
	// in the output when they land there as one run in stored order; nil
	// otherwise.
	home(j job, n int64) []byte
}

// partJob turns j, for a raw chunk, into a job for the elements its plan
// spans and returns their byte range, clipped to the stored bytes (a short
// chunk under PadShort may end before the span does).
func (a *Chunked) partJob(j job) (job, fetch.Range) {
	lo, hi := j.plan.Span()
	j.part, j.lo, j.hi = true, lo, hi
	c := j.chunk
	off, end := int64(lo*a.ItemSize), min(int64(hi*a.ItemSize), c.Len)
	return j, fetch.Range{Src: c.Src, Off: c.Off + min(off, c.Len), Len: max(end-off, 0)}
}

// reader is the state of one read shared by its producers and decoders.
type reader struct {
	a     *Chunked
	sink  sink
	opt   Options
	jobs  *jobQueue    // from the producers to the decoders; closed when both are done
	total int          // chunks the read touches, for Progress
	done  atomic.Int64 // chunks decoded, for Progress
	track *tracker     // for Ready; nil without
}

// read fetches and decodes the batch, which holds at least one job. It
// returns only after every goroutine it started has ended.
func (rd *reader) read(ctx context.Context, b batch) error {
	workers := rd.workers(len(b.local) + len(b.remote))
	rd.jobs = newJobQueue(workers)
	g, gctx := errgroup.WithContext(ctx)
	for range workers {
		g.Go(func() error { return rd.decode(gctx) })
	}
	rd.produce(gctx, g, b)
	return preferCaller(ctx, g.Wait())
}

// workers is the size of the decoder pool for n jobs.
func (rd *reader) workers(n int) int {
	w := rd.opt.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return min(w, n)
}

// produce starts, in g, the two producers that feed the decoders: one sends
// the jobs that need no I/O, the other the remote jobs as the fetcher
// delivers their bytes. Fetching starts at once, so its latency overlaps the
// decoding of the others. rd.jobs is closed when both producers are done,
// by a goroutine in g too, so that waiting for g waits for every goroutine.
func (rd *reader) produce(ctx context.Context, g *errgroup.Group, b batch) {
	var producers sync.WaitGroup
	producers.Add(2)
	g.Go(func() error {
		producers.Wait()
		rd.jobs.close()
		return nil
	})
	g.Go(func() error {
		defer producers.Done()
		return rd.sendLocal(ctx, b.local)
	})
	g.Go(func() error {
		defer producers.Done()
		return rd.sendFetched(ctx, b.remote, b.ranges)
	})
}

// sendLocal sends the jobs whose bytes are at hand.
func (rd *reader) sendLocal(ctx context.Context, local []job) error {
	for _, j := range local {
		if err := rd.jobs.push(ctx, j); err != nil {
			return err
		}
	}
	return nil
}

// sendFetched fetches ranges and sends remote[i] as soon as ranges[i] is in.
func (rd *reader) sendFetched(ctx context.Context, remote []job, ranges []fetch.Range) error {
	if len(ranges) == 0 {
		return nil
	}
	f := rd.opt.Fetcher
	if f == nil {
		f = fetch.Default()
	}
	return f.Fetch(ctx, ranges, func(i int, data []byte) error {
		j := remote[i]
		j.raw = data
		return rd.jobs.push(ctx, j)
	})
}

// decode is one decoder of the pool: it decodes jobs through the sink until
// the producers are done or the read fails.
func (rd *reader) decode(ctx context.Context) error {
	for {
		j, ok, err := rd.jobs.pop(ctx)
		if !ok || err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if j.chunk.Make != nil {
			if j.raw, err = j.chunk.Make(ctx, Options{Workers: rd.opt.Workers, Fetcher: rd.opt.Fetcher}); err != nil {
				return &ChunkError{Array: rd.a.Name, Coords: j.plan.Coords, Where: where(j.chunk), Err: err}
			}
		}
		if err := rd.sink.do(j); err != nil {
			return &ChunkError{Array: rd.a.Name, Coords: j.plan.Coords, Where: where(j.chunk), Err: err}
		}
		if j.chunk.Make != nil {
			putScratch(j.raw) // a made chunk's bytes are the decoder's own
		}
		rd.track.decoded(j.seq)
		if rd.opt.Progress != nil {
			rd.opt.Progress(int(rd.done.Add(1)), rd.total)
		}
	}
}

// preferCaller returns err, except that when the caller cancelled ctx it
// says so rather than report whichever goroutine noticed first.
func preferCaller(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// where names the origin of a chunk's bytes for a ChunkError.
func where(c Chunk) string {
	switch {
	case c.Missing:
		return "missing"
	case c.Make != nil:
		return "virtual"
	case c.Src == nil:
		return "inline"
	}
	return fmt.Sprintf("%s@%d+%d", c.Src.Name(), c.Off, c.Len)
}
