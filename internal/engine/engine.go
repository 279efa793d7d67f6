package engine

import (
	"context"
	"fmt"

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
	// Make, when set, makes the chunk's stored bytes when it is decoded,
	// reading with opt (a chunk of a virtual dataset, assembled from its
	// source datasets): locating it costs no I/O, and only the chunks
	// being decoded hold their bytes.
	Make func(ctx context.Context, opt Options) ([]byte, error)
}

// Chunked describes a stored chunked array.
type Chunked struct {
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

// Preparer is implemented by a Locator whose locates need I/O shared by
// many chunks (the index of a Zarr v3 shard, a block of a chunk index):
// Prepare is given the coordinates of every chunk of a batch before any is
// located, and reads what they need at once, in one round of requests,
// where locates taking the chunks a few at a time would wait for one index
// after another. What it fails to read, the locates read again and report.
type Preparer interface {
	Prepare(ctx context.Context, coords [][]int)
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
	// Ready, when set, is called with a count n of leading output elements
	// that hold their final values, each time it grows, so that a caller
	// can write them out while the rest decodes; the last call, after every
	// chunk is decoded, gives the whole output. Calls come one at a time,
	// from the decoding goroutines, and must be quick. A selection that
	// takes chunks in descending order reports only that last call.
	Ready func(n int)
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
// For a part of a raw chunk, raw holds the elements [lo, hi) the plan spans
// (fewer where a short chunk's stored bytes end).
type job struct {
	plan   *selection.ChunkPlan
	chunk  Chunk
	raw    []byte
	part   bool
	lo, hi int
	seq    int    // position in its batch, in plan order
	home   []byte // where a part's bytes land in the output, when they land as one run
}

// sink decodes chunks and scatters them into an output of some element type.
type sink interface {
	do(j job) error
}

// Read reads the selection r of array a into out, which must hold exactly
// r.Len()*a.ItemSize bytes, in C order and in the stored byte order.
func Read(ctx context.Context, a *Chunked, r *selection.Resolved, out []byte, opt Options) error {
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
func ReadObjects(ctx context.Context, a *Chunked, r *selection.Resolved, out []any, opt Options) error {
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

func (a *Chunked) check() error {
	if len(a.Shape) != len(a.Chunks) {
		return fmt.Errorf("engine: %s: shape %v and chunks %v differ in rank", a.Name, a.Shape, a.Chunks)
	}
	if a.Locator == nil {
		return fmt.Errorf("engine: %s: no chunk locator", a.Name)
	}
	return nil
}

// chunkLen is the number of elements in one full chunk.
func (a *Chunked) chunkLen() int {
	n := 1
	for _, c := range a.Chunks {
		n *= c
	}
	return n
}

// pipeline returns the pipeline that decodes chunk c: its own, if it has
// one, or else the array's.
func (a *Chunked) pipeline(c Chunk) *codecs.Pipeline {
	if c.Pipeline != nil {
		return c.Pipeline
	}
	return a.Pipeline
}

// readsPart reports whether the chunk is stored raw, so that the part the
// selection spans can be fetched alone.
func (a *Chunked) readsPart(c Chunk) bool {
	pipe := a.pipeline(c)
	return (pipe == nil || pipe.Empty()) && !a.FOrder && !a.Objects && c.Src != nil
}
