package lindibeam

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"golang.org/x/sync/errgroup"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

func init() {
	beam.RegisterType(reflect.TypeFor[Group]())
	beam.RegisterCoder(reflect.TypeFor[Partial](), encodePartial, decodePartial)
	beam.RegisterType(reflect.TypeFor[datasetShape]())
	register.DoFn4x1[context.Context, []byte, func(Group), func(datasetShape), error](&planFn{})
	register.Emitter1[Group]()
	register.Emitter1[datasetShape]()
	register.DoFn3x1[context.Context, Group, func(Partial), error](&reduceFn{})
	register.Emitter1[Partial]()
	register.Combiner1[Partial](&mergeFn{})
	register.DoFn3x1[context.Context, Partial, datasetShape, error](&finishFn{})
}

// DefaultGroupBytes is the stored (compressed) size of the chunk groups a
// worker reads and reduces at once.
const DefaultGroupBytes = 128 << 20

// DatasetJob says what DatasetStats reduces: one dataset of one file, in
// stored units.
type DatasetJob struct {
	// Source is the file (anything h5.Open reads: a local path, a URL, a
	// LINDI file) and Dataset the dataset's path in it.
	Source, Dataset string
	// Selection is a selection of the dataset in numpy syntax ("" for all).
	Selection string
	// GroupBytes is the stored size of a group (DefaultGroupBytes when 0).
	GroupBytes int64
	// InFlight bounds the HTTP requests in flight per worker process
	// (DefaultInFlight when 0).
	InFlight int
	// Concurrency is the byte-range requests in flight per host: a number,
	// "auto" to adapt, or "" for the worker's LINDI_CONCURRENCY (else auto).
	Concurrency string
	// Out is where the statistics are written as JSON: a local path or a
	// URL of a file system registered with Beam (gs://, s3://, memfs://).
	Out string
	// Amend, when set, is a new .lindi.tar (or .lindi.d) amending Source
	// (an NWB file) with the table processing/statistics/channel_stats.
	Amend string
}

// Group is one group of chunks of a DatasetStats job: its selection, in numpy
// syntax, and its stored size.
type Group struct {
	Index     int
	Selection string
	Bytes     int64
}

// DatasetStats reduces job's selection per column to count, mean, std, min and max:
// one worker plans the chunk groups (h5.Dataset.ChunkGroups), the groups are
// spread over workers, each reads and reduces its group to exact partial
// sums (a worker holds its group and the partials), the partials are merged
// in a tree (Beam lifts the combine before the shuffle), and one worker
// writes job.Out, and the amendment when asked. The result does not depend
// on the groups. Errors (a missing dataset, a chunk that cannot be read)
// fail the job.
func DatasetStats(s beam.Scope, job DatasetJob) {
	s = s.Scope("lindi.DatasetStats")
	groups, shape := beam.ParDo2(s, &planFn{Job: job}, beam.Impulse(s))
	partials := beam.ParDo(s, &reduceFn{Job: job}, beam.Reshuffle(s, groups))
	beam.ParDo0(s, &finishFn{Job: job}, beam.Combine(s, &mergeFn{}, partials), beam.SideInput{Input: shape})
}

// selection parses job's selection; "" selects everything.
func (job DatasetJob) selection() (selection.Selection, error) {
	if job.Selection == "" {
		return nil, nil
	}
	return selection.Parse(job.Selection)
}

// openDataset opens job's dataset and parses its selection.
func openDataset(ctx context.Context, job DatasetJob) (*h5.File, *h5.Dataset, selection.Selection, error) {
	sel, err := job.selection()
	if err != nil {
		return nil, nil, nil, err
	}
	opts, err := scanOptions(job.InFlight, job.Concurrency)
	if err != nil {
		return nil, nil, nil, err
	}
	f, err := h5.Open(ctx, job.Source, opts...)
	if err != nil {
		return nil, nil, nil, err
	}
	d, err := f.Dataset(ctx, job.Dataset)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return f, d, sel, nil
}

// datasetShape is what finishing the statistics needs of the dataset, sent
// by the plan so that the finish need not open the file again (an open is
// a few round trips).
type datasetShape struct {
	Path  string
	Shape []int
}

type planFn struct {
	Job DatasetJob
}

func (f *planFn) ProcessElement(ctx context.Context, _ []byte, emit func(Group), emitShape func(datasetShape)) error {
	file, d, sel, err := openDataset(ctx, f.Job)
	if err != nil {
		return err
	}
	defer file.Close()
	emitShape(datasetShape{Path: d.Path(), Shape: d.Shape()})
	size := f.Job.GroupBytes
	if size == 0 {
		size = DefaultGroupBytes
	}
	groups, err := d.ChunkGroups(ctx, sel, size)
	if err != nil {
		return err
	}
	for i, g := range groups {
		emit(Group{Index: i, Selection: g.Selection.String(), Bytes: g.StoredBytes})
	}
	return nil
}

// reduceFn reads groups and reduces each to a Partial. A DoFn instance
// keeps its file open between bundles.
type reduceFn struct {
	Job DatasetJob

	mu   sync.Mutex
	file *h5.File
	d    *h5.Dataset
}

func (f *reduceFn) dataset(ctx context.Context) (*h5.Dataset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.d == nil {
		file, d, _, err := openDataset(ctx, f.Job)
		if err != nil {
			return nil, err
		}
		f.file, f.d = file, d
	}
	return f.d, nil
}

func (f *reduceFn) Teardown() error {
	if f.file != nil {
		return f.file.Close()
	}
	return nil
}

func (f *reduceFn) ProcessElement(ctx context.Context, g Group, emit func(Partial)) error {
	d, err := f.dataset(ctx)
	if err != nil {
		return err
	}
	p, err := ReduceGroup(ctx, d, g.Selection)
	if err != nil {
		return fmt.Errorf("lindibeam: group %d (%s): %w", g.Index, g.Selection, err)
	}
	emit(p)
	return nil
}

// ReduceGroup reads the selection sel (numpy syntax) of d and reduces it to
// exact per-column partial statistics, columns keyed by their index on axis
// 1. Integer and float dtypes are read; any other is refused.
//
// The group is read a block of whole chunks (at most blockBytes stored) at a
// time by reduceWorkers goroutines, each reading a block and then reducing
// it, so that one block's fetch and decode overlap another's reduction and
// every core reduces; a worker holds one block. The sums are exact, so the
// result does not depend on the order the blocks are reduced in.
func ReduceGroup(ctx context.Context, d *h5.Dataset, sel string) (Partial, error) {
	s, err := selection.Parse(sel)
	if err != nil {
		return Partial{}, err
	}
	blocks, err := d.ChunkGroups(ctx, s, blockBytes)
	if err != nil {
		return Partial{}, err
	}
	g, ctx := errgroup.WithContext(ctx)
	var next atomic.Int64
	parts := make([]Partial, min(reduceWorkers(), len(blocks)))
	for w := range parts {
		g.Go(func() error {
			var sc scratch
			for {
				i := int(next.Add(1)) - 1
				if i >= len(blocks) {
					return nil
				}
				p, err := reduceSelection(ctx, d, blocks[i].Selection, &sc)
				if err != nil {
					return err
				}
				if parts[w], err = Merge(parts[w], p); err != nil {
					return err
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return Partial{}, err
	}
	var out Partial
	for _, p := range parts {
		if out, err = Merge(out, p); err != nil {
			return Partial{}, err
		}
	}
	return out, nil
}

// blockBytes bounds the stored bytes of a block ReduceGroup reads at once
// (a larger chunk is a block of its own).
const blockBytes = 16 << 20

// reduceWorkers is how many blocks ReduceGroup reads and reduces at once:
// one a core. Each block's read already fetches its chunks concurrently and
// decodes them on every core, so that while one worker reduces its block
// another's read proceeds; twice as many blocks in flight took a fifth more
// CPU for the same time, their buffers crowding each other out of the
// caches.
func reduceWorkers() int { return max(2, runtime.GOMAXPROCS(0)) }

// reduceSelection reads the selection s of d and reduces it; numbers of
// the machine's types are read into sc's memory, reused block after block.
func reduceSelection(ctx context.Context, d *h5.Dataset, s selection.Selection, sc *scratch) (Partial, error) {
	l, err := layoutOf(d, s)
	if err != nil {
		return Partial{}, err
	}
	if reduce := reducerOf(d.DType()); reduce != nil {
		return reduce(ctx, d, s, l, sc)
	}
	a, err := d.Read(ctx, s)
	if err != nil {
		return Partial{}, err
	}
	if d.DType().Kind != zarrmeta.KindFloat {
		return Partial{}, fmt.Errorf("lindibeam: statistics of dtype %s: only integers and floats", d.DType())
	}
	t, err := h5.As[float64](a) // float16 widens exactly
	if err != nil {
		return Partial{}, err
	}
	return FloatPartial(t.Data, l)
}

// reducer reads a selection into a worker's scratch memory and reduces it.
type reducer func(ctx context.Context, d *h5.Dataset, s selection.Selection, l Layout, sc *scratch) (Partial, error)

// reducerOf returns the reducer of a dtype read as a Go number, or nil.
func reducerOf(dt zarrmeta.DType) reducer {
	type key struct {
		kind zarrmeta.Kind
		size int
	}
	switch (key{dt.Kind, dt.Size}) {
	case key{zarrmeta.KindInt, 1}:
		return reduceWith(IntPartial[int8])
	case key{zarrmeta.KindInt, 2}:
		return reduceWith(IntPartial[int16])
	case key{zarrmeta.KindInt, 4}:
		return reduceWith(IntPartial[int32])
	case key{zarrmeta.KindInt, 8}:
		return reduceWith(IntPartial[int64])
	case key{zarrmeta.KindUint, 1}:
		return reduceWith(IntPartial[uint8])
	case key{zarrmeta.KindUint, 2}:
		return reduceWith(IntPartial[uint16])
	case key{zarrmeta.KindUint, 4}:
		return reduceWith(IntPartial[uint32])
	case key{zarrmeta.KindUint, 8}:
		return reduceWith(IntPartial[uint64])
	case key{zarrmeta.KindFloat, 4}:
		return reduceWith(FloatPartial[float32])
	case key{zarrmeta.KindFloat, 8}:
		return reduceWith(FloatPartial[float64])
	}
	return nil
}

// reduceWith is the reducer that reads a selection as T into a worker's
// scratch memory and reduces it with partial.
func reduceWith[T Integer | float32 | float64](partial func([]T, Layout) (Partial, error)) reducer {
	return func(ctx context.Context, d *h5.Dataset, s selection.Selection, l Layout, sc *scratch) (Partial, error) {
		v, err := readScratch[T](ctx, d, s, l, sc)
		if err != nil {
			return Partial{}, err
		}
		return partial(v, l)
	}
}

// scratch is a worker's memory for the blocks it reads: one allocation,
// grown to the largest block, instead of a new array per block that the
// garbage collector must clear and collect (a sixth of the CPU of a
// reduction of 512 MB).
type scratch struct{ words []uint64 }

// readScratch reads the selection s of d, laid out as l, into sc's memory
// as T, the Go type of d's dtype.
func readScratch[T Integer | float32 | float64](ctx context.Context, d *h5.Dataset, s selection.Selection, l Layout, sc *scratch) ([]T, error) {
	n := l.Outer * l.Inner * len(l.Cols)
	size := int(unsafe.Sizeof(*new(T)))
	words := (n*size + 7) / 8
	if cap(sc.words) < words {
		sc.words = make([]uint64, words)
	}
	var v []T
	if n > 0 {
		v = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(sc.words[:words]))), n)
	}
	if _, err := h5.ReadInto(ctx, d, s, v); err != nil {
		return nil, err
	}
	return v, nil
}

// layoutOf says how the elements of sel fall into columns of d's axis 1.
func layoutOf(d *h5.Dataset, sel selection.Selection) (Layout, error) {
	r, err := sel.Resolve(d.Shape())
	if err != nil {
		return Layout{}, err
	}
	shape := d.Shape()
	counts := make([]int, len(shape))
	for k := range shape {
		pos, err := r.Positions(k)
		if err != nil {
			return Layout{}, err
		}
		counts[k] = len(pos)
	}
	if len(shape) < 2 {
		n := 1
		if len(shape) == 1 {
			n = counts[0]
		}
		return Layout{Outer: n, Inner: 1, Cols: []int{0}}, nil
	}
	cols, err := r.Positions(1)
	if err != nil {
		return Layout{}, err
	}
	inner := 1
	for _, c := range counts[2:] {
		inner *= c
	}
	return Layout{Outer: counts[0], Inner: inner, Cols: cols}, nil
}

// mergeFn merges partial statistics; Beam applies it before and after the
// shuffle, a tree of merges.
type mergeFn struct{}

func (mergeFn) MergeAccumulators(a, b Partial) (Partial, error) { return Merge(a, b) }

type finishFn struct {
	Job DatasetJob
}

func (f *finishFn) ProcessElement(ctx context.Context, p Partial, ds datasetShape) error {
	sel, err := f.Job.selection()
	if err != nil {
		return err
	}
	st, err := columns(ds.Path, ds.Shape, sel, p)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := WriteOutput(ctx, f.Job.Out, append(b, '\n')); err != nil {
		return err
	}
	if f.Job.Amend != "" {
		opts, err := openOptions(f.Job.InFlight, f.Job.Concurrency)
		if err != nil {
			return err
		}
		return Amend(ctx, f.Job.Source, f.Job.Amend, st, opts...)
	}
	return nil
}

// Columns finishes the merged statistics p of the selection sel of d: one
// value per column of the selection, in its order.
func Columns(d *h5.Dataset, sel selection.Selection, p Partial) (Summary, error) {
	return columns(d.Path(), d.Shape(), sel, p)
}

// columns is Columns of the dataset at path of the given shape.
func columns(path string, shape []int, sel selection.Selection, p Partial) (Summary, error) {
	r, err := sel.Resolve(shape)
	if err != nil {
		return Summary{}, err
	}
	cols := []int{0}
	if len(shape) >= 2 {
		if cols, err = r.Positions(1); err != nil {
			return Summary{}, err
		}
	}
	return Finish(p, path, shape, cols)
}

func encodePartial(p Partial) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodePartial(b []byte) (Partial, error) {
	var p Partial
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&p); err != nil {
		return Partial{}, err
	}
	for i := range p.Stats { // gob leaves out zeros
		c := &p.Stats[i]
		if c.Sum == nil {
			c.Sum = new(big.Int)
		}
		if c.Sum2 == nil {
			c.Sum2 = new(big.Int)
		}
	}
	return p, nil
}
