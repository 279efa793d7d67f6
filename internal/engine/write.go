package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/lindigo/lindi/internal/hugemem"
	"github.com/lindigo/lindi/selection"
)

// Put stores the encoded chunk at grid coordinates coords. It is called from
// several goroutines at once and must not retain data after it returns.
type Put func(ctx context.Context, coords []int, data []byte) error

// WriteOptions tune a write. Put is required.
type WriteOptions struct {
	// Workers bounds the goroutines that assemble and encode chunks, and so
	// the chunks a write holds at once; 0 means GOMAXPROCS.
	Workers int
	// Put stores each encoded chunk.
	Put Put
}

// Write writes src, the elements of the selection r in C order and in the
// stored byte order (r.Len()*a.ItemSize bytes), into array a: each touched
// chunk is assembled (read, modified and written back when the selection
// covers only part of it; straight from src when it covers a whole chunk
// that lies in one run of src), encoded with a's pipeline on a bounded pool
// of workers, and handed to opt.Put. A write holds at most a few chunks per
// worker besides src, however many chunks it touches. Elements of a new
// chunk that the selection does not cover, and the part of an edge chunk
// beyond the array's end, are the fill value.
func Write(ctx context.Context, a *Chunked, r *selection.Resolved, src []byte, opt WriteOptions) error {
	if want := r.Len() * a.ItemSize; len(src) != want {
		return fmt.Errorf("engine: %s: %d bytes to write, selection needs %d", a.Name, len(src), want)
	}
	return WriteElements(ctx, a, r, StoredElements(src, a.ItemSize), opt)
}

// Elements are the values of a write, in C order of its selection, turned
// into stored elements chunk by chunk, so that a write converting its values
// (float64 into "<i2", say) holds a few converted chunks rather than a
// converted copy of everything.
type Elements interface {
	// Len is the number of elements.
	Len() int
	// Store writes elements [from, from+n) into dst, n stored elements. An
	// element that cannot be stored is an error naming its index.
	Store(dst []byte, from, n int) error
	// Stored returns elements [from, from+n) when they are already stored
	// elements in memory, without copying; ok is false otherwise.
	Stored(from, n int) (b []byte, ok bool)
}

// StoredElements are elements already in their stored form, of size bytes
// each, in b: chunks that are one run of them are encoded straight from b.
func StoredElements(b []byte, size int) Elements { return rawElements{b: b, is: size} }

// WriteElements is Write for values that are converted as chunks are
// assembled.
func WriteElements(ctx context.Context, a *Chunked, r *selection.Resolved, src Elements, opt WriteOptions) error {
	if src.Len() != r.Len() {
		return fmt.Errorf("engine: %s: %d elements to write, selection needs %d", a.Name, src.Len(), r.Len())
	}
	return write(ctx, a, r, opt, func(ctx context.Context, cp *selection.ChunkPlan, out []byte) ([]byte, error) {
		chunk, pooled, err := a.assemble(ctx, cp, src)
		if err != nil {
			return nil, err
		}
		if pooled {
			defer putScratch(chunk)
		}
		if cap(out) < len(chunk) {
			// Room for the chunk's size, which an encoding seldom exceeds:
			// one allocation, in huge pages, where appending block after
			// block grew and copied it (a third of zstd's time on 20 MiB
			// chunks of int16).
			out = hugemem.Alloc(len(chunk))[:0]
		}
		if a.Pipeline == nil || a.Pipeline.Empty() {
			return append(out, chunk...), nil
		}
		return a.Pipeline.Encode(out, chunk, a.ItemSize)
	})
}

// WriteObjects writes items, the elements of the selection r of the object
// array a in C order, as Write writes bytes.
func WriteObjects(ctx context.Context, a *Chunked, r *selection.Resolved, items []any, opt WriteOptions) error {
	if len(items) != r.Len() {
		return fmt.Errorf("engine: %s: %d items to write, selection needs %d", a.Name, len(items), r.Len())
	}
	if !a.Objects || a.Pipeline == nil {
		return fmt.Errorf("engine: %s: not an object array with an object codec", a.Name)
	}
	return write(ctx, a, r, opt, func(ctx context.Context, cp *selection.ChunkPlan, _ []byte) ([]byte, error) {
		chunk, err := a.oldObjects(ctx, cp)
		if err != nil {
			return nil, err
		}
		cp.Runs(func(s, d, n int) bool {
			copy(chunk[s:s+n], items[d:d+n])
			return true
		})
		return a.Pipeline.EncodeObjects(chunk, a.Chunks)
	})
}

// write runs each chunk of r's plan through chunk, which assembles and
// encodes it (appending to out, a recycled buffer, when it can), on a
// bounded pool of workers, and puts the results.
func write(ctx context.Context, a *Chunked, r *selection.Resolved, opt WriteOptions,
	chunk func(ctx context.Context, cp *selection.ChunkPlan, out []byte) ([]byte, error)) error {
	if err := a.check(); err != nil {
		return err
	}
	if opt.Put == nil {
		return errors.New("engine: Write needs a Put")
	}
	if a.FOrder {
		return fmt.Errorf("engine: %s: writing an array stored in Fortran order is not supported", a.Name)
	}
	plan, err := r.Plan(a.Chunks)
	if err != nil {
		return fmt.Errorf("engine: %s: %w", a.Name, err)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for cp := range plan.Chunks() {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			// Encoded chunks are recycled: fresh memory costs a page fault a
			// page, as much as encoding them with a fast codec.
			out := getEncoded()
			enc, err := chunk(gctx, cp, out)
			defer putEncoded(enc)
			if err != nil {
				return &ChunkError{Array: a.Name, Coords: cp.Coords, Where: "write", Err: err}
			}
			if err := opt.Put(gctx, cp.Coords, enc); err != nil {
				return &ChunkError{Array: a.Name, Coords: cp.Coords, Where: "put", Err: err}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return preferCaller(ctx, err)
	}
	return ctx.Err()
}

// encoded recycles the buffers chunks are encoded into.
var encoded sync.Pool

func getEncoded() []byte {
	if p, ok := encoded.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return nil
}

func putEncoded(b []byte) {
	if cap(b) > 0 {
		encoded.Put(&b)
	}
}

// rawElements are stored elements of is bytes in memory: the caller's.
type rawElements struct {
	b  []byte
	is int
}

func (r rawElements) Len() int { return len(r.b) / r.is }

func (r rawElements) Store(dst []byte, from, n int) error {
	copy(dst, r.b[from*r.is:(from+n)*r.is])
	return nil
}

func (r rawElements) Stored(from, n int) ([]byte, bool) {
	return r.b[from*r.is : (from+n)*r.is], true
}

// assemble returns the whole chunk cp writes: src's own bytes when the
// selection takes the whole chunk as one run of stored elements, else a
// scratch buffer (pooled: the caller gives it back with putScratch) holding
// the chunk's old contents (or fill) with the selected elements stored.
func (a *Chunked) assemble(ctx context.Context, cp *selection.ChunkPlan, src Elements) (chunk []byte, pooled bool, err error) {
	is, n := a.ItemSize, a.chunkLen()
	off, whole := cp.Contiguous()
	if whole {
		if b, ok := src.Stored(off, n); ok {
			return b, false, nil
		}
	}
	chunk = getScratch(n * is)
	switch {
	case whole:
		err = src.Store(chunk, off, n)
	case a.covers(cp):
		a.fill(chunk)
	default:
		err = a.oldChunk(ctx, cp.Coords, chunk)
	}
	if err == nil && !whole {
		cp.Runs(func(s, d, m int) bool {
			err = src.Store(chunk[s*is:(s+m)*is], d, m)
			return err == nil
		})
	}
	if err != nil {
		putScratch(chunk)
		return nil, false, err
	}
	return chunk, true, nil
}

// fill sets every element of chunk to the fill value.
func (a *Chunked) fill(chunk []byte) {
	is := a.ItemSize
	if len(a.Fill) != is || bytes.Count(a.Fill, []byte{0}) == is {
		clear(chunk)
		return
	}
	for i := 0; i < len(chunk); i += is {
		copy(chunk[i:i+is], a.Fill)
	}
}

// covers reports whether the selection of cp takes every element of the
// chunk that lies inside the array, so that its old contents need not be
// read.
func (a *Chunked) covers(cp *selection.ChunkPlan) bool {
	for d := range cp.Axes {
		ax := &cp.Axes[d]
		extent := min(a.Chunks[d], a.Shape[d]-cp.Coords[d]*a.Chunks[d])
		if ax.Len() < extent {
			return false
		}
		seen := make([]bool, extent)
		k := 0
		for i := range ax.Len() {
			if s := ax.Src(i); !seen[s] {
				seen[s] = true
				k++
			}
		}
		if k != extent {
			return false
		}
	}
	return true
}

// oldChunk decodes into chunk the chunk at coords as it is stored now, or
// fills it when it was never written.
func (a *Chunked) oldChunk(ctx context.Context, coords []int, chunk []byte) error {
	raw, missing, err := a.stored(ctx, coords)
	if err != nil {
		return err
	}
	if missing {
		a.fill(chunk)
		return nil
	}
	return a.decode(chunk, raw, a.Pipeline)
}

// oldObjects reads and decodes the object chunk cp writes to as it is
// stored now (fill items when it was never written, or when the selection
// covers it all).
func (a *Chunked) oldObjects(ctx context.Context, cp *selection.ChunkPlan) ([]any, error) {
	n := a.chunkLen()
	var raw []byte
	missing := true
	if !a.covers(cp) {
		var err error
		if raw, missing, err = a.stored(ctx, cp.Coords); err != nil {
			return nil, err
		}
	}
	if missing {
		items := make([]any, n)
		for i := range items {
			items[i] = a.FillObject
		}
		return items, nil
	}
	items, err := a.Pipeline.DecodeObjects(raw, n)
	if err != nil {
		return nil, err
	}
	if len(items) != n {
		return nil, fmt.Errorf("object chunk decodes to %d items, want %d", len(items), n)
	}
	return items, nil
}

// stored returns the stored bytes of the chunk at coords, or missing.
func (a *Chunked) stored(ctx context.Context, coords []int) (raw []byte, missing bool, err error) {
	c, err := a.Locator.Locate(ctx, coords)
	if err != nil {
		return nil, false, err
	}
	if c.Pipeline != nil {
		return nil, false, fmt.Errorf("the chunk is stored with its own filter mask (HDF5): rewriting it is not supported")
	}
	switch {
	case c.Missing:
		return nil, true, nil
	case c.Make != nil:
		raw, err = c.Make(ctx, Options{})
		return raw, false, err
	case c.Src == nil:
		return c.Data, false, nil
	}
	raw = make([]byte, c.Len)
	got, err := c.Src.ReadAt(ctx, raw, c.Off)
	if got == len(raw) {
		return raw, false, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return nil, false, fmt.Errorf("%s: %w", where(c), err)
}
