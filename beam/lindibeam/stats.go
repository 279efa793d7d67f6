package lindibeam

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"slices"
	"sync"
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
	beam.RegisterCoder(reflect.TypeFor[datasetPartial](), encodeDatasetPartial, decodeDatasetPartial)
	register.DoFn3x1[context.Context, []byte, func(Group), error](&planFn{})
	register.Emitter1[Group]()
	register.DoFn3x1[context.Context, Group, func(datasetPartial), error](&reduceFn{})
	register.Emitter1[datasetPartial]()
	register.Combiner1[Partial](&mergeFn{})
	register.Combiner1[datasetPartial](&datasetMergeFn{})
	register.DoFn2x1[context.Context, datasetPartial, error](&finishFn{})
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
// writes job.Out, and the amendment when asked. The partials carry the
// dataset's path and shape to that last step, which so needs neither the
// file nor a side input (prism's wait for one cost 50-100 ms a job). The
// result does not depend on the groups. Errors (a missing dataset, a chunk
// that cannot be read) fail the job.
func DatasetStats(s beam.Scope, job DatasetJob) {
	s = s.Scope("lindi.DatasetStats")
	groups := beam.ParDo(s, &planFn{Job: job}, beam.Impulse(s))
	partials := beam.ParDo(s, &reduceFn{Job: job}, beam.Reshuffle(s, groups))
	beam.ParDo0(s, &finishFn{Job: job}, beam.Combine(s, &datasetMergeFn{}, partials))
}

// selection parses job's selection; "" selects everything.
func (job DatasetJob) selection() (selection.Selection, error) {
	if job.Selection == "" {
		return nil, nil
	}
	return selection.Parse(job.Selection)
}

// openJobDataset opens job's file and dataset.
func openJobDataset(ctx context.Context, job DatasetJob) (*h5.File, *h5.Dataset, error) {
	opts, err := scanOptions(job.InFlight, job.Concurrency)
	if err != nil {
		return nil, nil, err
	}
	f, err := h5.Open(ctx, job.Source, opts...)
	if err != nil {
		return nil, nil, err
	}
	d, err := f.Dataset(ctx, job.Dataset)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, d, nil
}

// datasetPartial is a Partial of a DatasetStats job with what finishing
// the statistics needs of the dataset, so that the finish need not open
// the file again (an open is a few round trips).
type datasetPartial struct {
	Path  string
	Shape []int
	P     Partial
}

type planFn struct {
	Job DatasetJob
}

func (f *planFn) ProcessElement(ctx context.Context, _ []byte, emit func(Group)) error {
	sel, err := f.Job.selection()
	if err != nil {
		return err
	}
	d, release, err := shared.acquire(ctx, f.Job)
	if err != nil {
		return err
	}
	defer release()
	size := f.Job.GroupBytes
	if size == 0 {
		size = DefaultGroupBytes
	}
	groups, err := d.ChunkGroups(ctx, sel, size)
	if err != nil {
		return err
	}
	if len(groups) == 0 {
		// An empty selection: one group of nothing, whose partial brings
		// the dataset's shape to the finish.
		emit(Group{Selection: f.Job.Selection})
		return nil
	}
	for i, g := range groups {
		emit(Group{Index: i, Selection: g.Selection.String(), Bytes: g.StoredBytes})
	}
	return nil
}

// reduceFn reads groups and reduces each to a Partial. A DoFn instance
// holds its job's dataset open between bundles, the open the plan made when
// it ran in this process (see shared).
type reduceFn struct {
	Job DatasetJob

	mu      sync.Mutex
	d       *h5.Dataset
	release func()
}

func (f *reduceFn) dataset(ctx context.Context) (*h5.Dataset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.d == nil {
		d, release, err := shared.acquire(ctx, f.Job)
		if err != nil {
			return nil, err
		}
		f.d, f.release = d, release
	}
	return f.d, nil
}

func (f *reduceFn) Teardown() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.release != nil {
		f.release()
		f.d, f.release = nil, nil
	}
	return nil
}

func (f *reduceFn) ProcessElement(ctx context.Context, g Group, emit func(datasetPartial)) error {
	d, err := f.dataset(ctx)
	if err != nil {
		return err
	}
	p, err := ReduceGroup(ctx, d, g.Selection)
	if err != nil {
		return fmt.Errorf("lindibeam: group %d (%s): %w", g.Index, g.Selection, err)
	}
	emit(datasetPartial{Path: d.Path(), Shape: d.Shape(), P: p})
	return nil
}

// ReduceGroup reads the selection sel (numpy syntax) of d and reduces it to
// exact per-column partial statistics, columns keyed by their index on axis
// 1. Integer and float dtypes are read; any other is refused. An index
// list's repeats count once, as h5.Dataset.ChunkGroups groups them.
//
// The group is read as one read (its chunks fetched concurrently, decoded
// on every core), and reduced while it is read: each time the elements
// before some point are final, the whole rows among them are reduced, so
// that the reduction follows the decoding instead of coming after it. A
// group larger than streamBytes in memory is read in parts of at most
// that, streamReads at a time, so that one part's last chunks are fetched
// and decoded while the next part's first ones are: reading them one
// after another, each part ended with its slowest chunk. The sums are
// exact, so the result does not depend on the parts or on where a read
// paused.
func ReduceGroup(ctx context.Context, d *h5.Dataset, sel string) (Partial, error) {
	return reduceGroup(ctx, d, sel, streamBytes)
}

// reduceGroup is ReduceGroup with reads of at most limit bytes in memory.
func reduceGroup(ctx context.Context, d *h5.Dataset, sel string, limit int64) (Partial, error) {
	s, err := selection.Parse(sel)
	if err != nil {
		return Partial{}, err
	}
	parts, err := d.ChunkGroups(ctx, s, math.MaxInt64)
	if err != nil {
		return Partial{}, err
	}
	if len(parts) == 1 {
		if raw := rawBytes(d, parts[0].Selection); raw > limit {
			stored := max(1, parts[0].StoredBytes*limit/raw)
			if parts, err = d.ChunkGroups(ctx, s, stored); err != nil {
				return Partial{}, err
			}
		}
	}
	partials := make([]Partial, len(parts))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(streamReads)
	for i, part := range parts {
		g.Go(func() error {
			p, err := reduceStream(gctx, d, part.Selection)
			partials[i] = p
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return Partial{}, err
	}
	var out Partial
	for _, p := range partials {
		if out, err = Merge(out, p); err != nil {
			return Partial{}, err
		}
	}
	return out, nil
}

// streamBytes bounds the memory of one read of ReduceGroup, and
// streamReads the reads it makes at once: a group holds at most their
// product in memory.
const (
	streamBytes = 128 << 20
	streamReads = 2
)

// rawBytes is the size in memory of the selection s of d, 0 when it
// cannot be resolved (the read then says why).
func rawBytes(d *h5.Dataset, s selection.Selection) int64 {
	r, err := s.Resolve(d.Shape())
	if err != nil {
		return 0
	}
	return int64(r.Len()) * int64(d.DType().Size)
}

// reduceStream reads the selection s of d and reduces it while it is read.
func reduceStream(ctx context.Context, d *h5.Dataset, s selection.Selection) (Partial, error) {
	l, err := layoutOf(d, s)
	if err != nil {
		return Partial{}, err
	}
	w := streamReducerOf(d.DType(), l)
	if w == nil {
		return reduceWhole(ctx, d, s, l)
	}
	if _, err := d.ReadTo(ctx, s, w); err != nil {
		return Partial{}, err
	}
	return w.result()
}

// reduceWhole reads the selection s of d whole as float64 and reduces it:
// the dtypes without a reducer of their own (float16).
func reduceWhole(ctx context.Context, d *h5.Dataset, s selection.Selection, l Layout) (Partial, error) {
	if d.DType().Kind != zarrmeta.KindFloat {
		return Partial{}, fmt.Errorf("lindibeam: statistics of dtype %s: only integers and floats", d.DType())
	}
	a, err := d.Read(ctx, s)
	if err != nil {
		return Partial{}, err
	}
	t, err := h5.As[float64](a) // float16 widens exactly
	if err != nil {
		return Partial{}, err
	}
	return FloatPartial(t.Data, l)
}

// streamReducer reduces the bytes of a read (native byte order, C order)
// as they are written to it, whole rows (outer indices of its layout) at a
// time; a row split between two writes is put together in carry.
type streamReducer interface {
	io.Writer
	// result is the reduction of everything written, which must be the
	// whole selection.
	result() (Partial, error)
}

type rowReducer[T Integer | float32 | float64] struct {
	l       Layout
	row     int // bytes of a row
	partial func([]T, Layout) (Partial, error)
	carry   []T // the start of a row split between writes
	carried int // bytes of it in carry
	rows    int // rows reduced
	out     Partial
	err     error
}

// streamReducerOf returns the streamReducer of a dtype read as a Go number
// and laid out as l, or nil.
func streamReducerOf(dt zarrmeta.DType, l Layout) streamReducer {
	type key struct {
		kind zarrmeta.Kind
		size int
	}
	switch (key{dt.Kind, dt.Size}) {
	case key{zarrmeta.KindInt, 1}:
		return newRowReducer(IntPartial[int8], l)
	case key{zarrmeta.KindInt, 2}:
		return newRowReducer(IntPartial[int16], l)
	case key{zarrmeta.KindInt, 4}:
		return newRowReducer(IntPartial[int32], l)
	case key{zarrmeta.KindInt, 8}:
		return newRowReducer(IntPartial[int64], l)
	case key{zarrmeta.KindUint, 1}:
		return newRowReducer(IntPartial[uint8], l)
	case key{zarrmeta.KindUint, 2}:
		return newRowReducer(IntPartial[uint16], l)
	case key{zarrmeta.KindUint, 4}:
		return newRowReducer(IntPartial[uint32], l)
	case key{zarrmeta.KindUint, 8}:
		return newRowReducer(IntPartial[uint64], l)
	case key{zarrmeta.KindFloat, 4}:
		return newRowReducer(FloatPartial[float32], l)
	case key{zarrmeta.KindFloat, 8}:
		return newRowReducer(FloatPartial[float64], l)
	}
	return nil
}

func newRowReducer[T Integer | float32 | float64](partial func([]T, Layout) (Partial, error), l Layout) *rowReducer[T] {
	n := l.Inner * len(l.Cols)
	return &rowReducer[T]{l: l, row: n * int(unsafe.Sizeof(*new(T))), partial: partial, carry: make([]T, n)}
}

func (r *rowReducer[T]) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n := len(p)
	if r.row == 0 {
		return n, nil
	}
	if r.carried > 0 {
		k := copy(r.carryBytes()[r.carried:], p)
		r.carried += k
		p = p[k:]
		if r.carried < r.row {
			return n, nil
		}
		r.carried = 0
		r.reduce(r.carry, 1)
	}
	rows := len(p) / r.row
	if rows > 0 {
		size := int(unsafe.Sizeof(*new(T)))
		// The engine's pieces start at whole elements of an
		// allocation aligned for them.
		v := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(p))), rows*r.row/size)
		r.reduce(v, rows)
	}
	r.carried = copy(r.carryBytes(), p[rows*r.row:])
	return n, r.err
}

func (r *rowReducer[T]) carryBytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(r.carry))), r.row)
}

// reduce reduces v, rows whole rows, into the result.
func (r *rowReducer[T]) reduce(v []T, rows int) {
	l := r.l
	l.Outer = rows
	p, err := r.partial(v, l)
	if err == nil {
		r.out, err = Merge(r.out, p)
	}
	r.rows += rows
	r.err = err
}

func (r *rowReducer[T]) result() (Partial, error) {
	if r.err != nil {
		return Partial{}, r.err
	}
	if r.row == 0 || r.rows == 0 && r.l.Outer == 0 {
		return r.partial(nil, r.l)
	}
	if r.rows != r.l.Outer || r.carried != 0 {
		return Partial{}, fmt.Errorf("lindibeam: the read gave %d of %d rows", r.rows, r.l.Outer)
	}
	return r.out, nil
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
		// Counted, not listed: the positions of axis 0 of a 512 MB int16
		// dataset are 32 MB of ints (0.1 s of a reduction of it).
		if counts[k], err = r.Count(k); err != nil {
			return Layout{}, err
		}
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

// datasetMergeFn merges the partials of a DatasetStats job; a zero
// datasetPartial merges as nothing.
type datasetMergeFn struct{}

func (datasetMergeFn) MergeAccumulators(a, b datasetPartial) (datasetPartial, error) {
	switch {
	case a.Path == "" && a.Shape == nil:
		return b, nil
	case b.Path == "" && b.Shape == nil:
		return a, nil
	}
	if a.Path != b.Path || !slices.Equal(a.Shape, b.Shape) {
		return datasetPartial{}, fmt.Errorf("lindibeam: merging statistics of %s %v and %s %v", a.Path, a.Shape, b.Path, b.Shape)
	}
	p, err := Merge(a.P, b.P)
	return datasetPartial{Path: a.Path, Shape: a.Shape, P: p}, err
}

type finishFn struct {
	Job DatasetJob
}

func (f *finishFn) ProcessElement(ctx context.Context, dp datasetPartial) error {
	sel, err := f.Job.selection()
	if err != nil {
		return err
	}
	st, err := columns(dp.Path, dp.Shape, sel, dp.P)
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

// The coders of Partial and datasetPartial: gob, which keeps a big.Int's
// sums exact. Beam registers a coder's functions by name, and the runtime
// names every instance of a generic function alike (gobEncode[...]), so
// each type has functions of its own around the generic ones.

func encodePartial(p Partial) ([]byte, error) { return gobEncode(p) }

func encodeDatasetPartial(p datasetPartial) ([]byte, error) { return gobEncode(p) }

func gobEncode[T any](v T) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func gobDecode[T any](b []byte) (T, error) {
	var v T
	err := gob.NewDecoder(bytes.NewReader(b)).Decode(&v)
	return v, err
}

func decodePartial(b []byte) (Partial, error) {
	p, err := gobDecode[Partial](b)
	fillSums(&p)
	return p, err
}

func decodeDatasetPartial(b []byte) (datasetPartial, error) {
	p, err := gobDecode[datasetPartial](b)
	fillSums(&p.P)
	return p, err
}

// fillSums gives the sums gob left out (it leaves out zeros) their zero.
func fillSums(p *Partial) {
	for i := range p.Stats {
		c := &p.Stats[i]
		if c.Sum == nil {
			c.Sum = new(big.Int)
		}
		if c.Sum2 == nil {
			c.Sum2 = new(big.Int)
		}
	}
}
