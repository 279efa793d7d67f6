package hdf5

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/hdf5/layout"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/zarrmeta"
)

// storage is an HDF5 dataset as the engine sees it.
type storage struct {
	hf     *hdf5.File
	hd     *hdf5.Dataset
	path   string
	shape  []int // as users see it: empty for a scalar
	dims   []int // as the engine sees it: [1] for a scalar
	chunks []int
	dtype  zarrmeta.DType
	fill   zarrmeta.Fill
	codecs []string
	scalar bool
	items  driver.Items // vlen and reference elements; nil for fixed-size ones

	pipes *pipelines // the chunk pipeline, one per filter mask
	mu    sync.Mutex
	st    *driver.Stored
}

func newStorage(env *driver.Env, hf *hdf5.File, hd *hdf5.Dataset, path string) (*storage, error) {
	s := &storage{hf: hf, hd: hd, path: path}
	space := hd.Space()
	for _, n := range hd.Shape() {
		if n > math.MaxInt32*1024 {
			return nil, fmt.Errorf("%w: dimension of %d elements", driver.ErrFormat, n)
		}
		s.shape = append(s.shape, int(n))
	}
	s.dims = s.shape
	switch space.Kind {
	case hdf5.SpaceScalar:
		s.shape, s.dims, s.scalar = []int{}, []int{1}, true
	case hdf5.SpaceNull:
		s.shape, s.dims = []int{0}, []int{0}
	}
	if s.shape == nil {
		s.shape = []int{}
	}
	dt, err := numpyDType(hd.Datatype())
	if err != nil {
		return nil, err
	}
	s.dtype = dt
	if t := hd.Datatype(); t.Class == hdf5.ClassVlen || t.Class == hdf5.ClassReference || objectFields(dt) {
		s.items = &itemDecoder{hf: hf, t: t}
	}
	s.fill = zarrmeta.Fill{Bytes: make([]byte, hd.Datatype().Size)}
	if fv := hd.Fill(); fv.Defined && len(fv.Value) == int(hd.Datatype().Size) && s.items == nil {
		s.fill.Bytes = fv.Value
	} else if !fv.Defined {
		s.fill.Null = true
	}
	for _, c := range hd.Chunks() {
		s.chunks = append(s.chunks, int(c))
	}
	if s.chunks == nil {
		s.chunks = slices.Clone(s.shape)
	}
	s.pipes = &pipelines{reg: env.Codecs, filters: hd.Filters(), elemSize: int(hd.Datatype().Size), byMask: map[uint32]*codecs.Pipeline{}}
	full, err := s.pipes.get(0) // an unknown filter fails here, naming it
	if err != nil {
		return nil, err
	}
	s.codecs = full.IDs()
	return s, nil
}

// describe fills in the dataset's metadata.
func (s *storage) describe(d *driver.Dataset) {
	d.Shape, d.DType, d.Fill, d.Codecs, d.Scalar = s.shape, s.dtype, s.fill, s.codecs, s.scalar
	d.Rows = objectFields(s.dtype)
	switch s.hd.Layout().Class {
	case layout.Compact:
		d.Layout = driver.Compact
	case layout.Contiguous:
		d.Layout = driver.Contiguous
	default:
		d.Layout, d.Chunks = driver.Chunked, s.chunks
	}
	if d.Chunks == nil {
		d.Chunks = slices.Clone(s.shape)
	}
}

// numpyDType gives the numpy dtype of an HDF5 datatype.
func numpyDType(t *hdf5.Datatype) (zarrmeta.DType, error) {
	descr, err := t.NumpyDescr()
	if err != nil {
		return zarrmeta.DType{}, err
	}
	raw := json.RawMessage(descr)
	if descr != "" && descr[0] != '[' {
		raw, _ = json.Marshal(descr)
	}
	return zarrmeta.ParseDType(raw)
}

// objectFields reports whether a compound dtype has a field (a reference, a
// variable-length string) whose stored bytes are not its value: its rows
// must be decoded into items, as LINDI's compound rows are.
func objectFields(dt zarrmeta.DType) bool {
	for _, f := range dt.Fields {
		if f.DType.Kind == zarrmeta.KindObject {
			return true
		}
	}
	return false
}

// itemDecoder turns stored variable-length or reference elements, or compound
// rows holding them, into items.
type itemDecoder struct {
	hf *hdf5.File
	t  *hdf5.Datatype
}

func (it *itemDecoder) Items(ctx context.Context, raw []byte, _ []any) ([]any, error) {
	vals, err := it.hf.Decode(ctx, it.t, raw, len(raw)/int(it.t.Size))
	if err != nil {
		return nil, err
	}
	if rows, ok := vals.([]map[string]any); ok {
		return it.rows(rows), nil
	}
	rv := reflect.ValueOf(vals)
	if rv.Kind() != reflect.Slice {
		return nil, fmt.Errorf("%w: %s elements decode to %T", driver.ErrFormat, it.t.Class, vals)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = value(rv.Index(i).Interface())
	}
	return out, nil
}

// rows gives compound rows as []any items in field order.
func (it *itemDecoder) rows(rows []map[string]any) []any {
	out := make([]any, len(rows))
	for i, row := range rows {
		items := make([]any, len(it.t.Fields))
		for j, fd := range it.t.Fields {
			items[j] = value(row[fd.Name])
		}
		out[i] = items
	}
	return out
}

// Stored returns the engine's view of the dataset, reading its chunk index on
// first use (a failure is not remembered: the next read tries again).
func (s *storage) Stored(ctx context.Context) (*driver.Stored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		return s.st, nil
	}
	arr, err := s.build(ctx)
	if err != nil {
		return nil, err
	}
	s.st = &driver.Stored{Array: arr, Items: s.items}
	return s.st, nil
}

// virtualChunkBytes is the size of the pieces a contiguous dataset is read in,
// so that a read of a few rows fetches little and a large read runs in parallel.
const virtualChunkBytes = 1 << 20

func (s *storage) build(ctx context.Context) (*engine.Chunked, error) {
	lay := s.hd.Layout()
	arr := &engine.Chunked{
		Shape: s.dims, Chunks: slices.Clone(s.chunks), ItemSize: int(s.hd.Datatype().Size),
		Fill: s.fill.Bytes, Name: s.path,
	}
	if s.scalar {
		arr.Chunks = []int{1}
	}
	switch lay.Class {
	case layout.Compact:
		arr.Chunks = slices.Clone(s.dims)
		arr.PadShort = true
		arr.Locator = compactLocator(lay.Data)
	case layout.Contiguous:
		arr.PadShort = true
		arr.Chunks = virtualChunks(s.dims, arr.ItemSize)
		arr.Locator = s.contiguous(arr.Chunks, arr.ItemSize, lay.Addr)
	case layout.Chunked:
		idx, err := s.hd.Index(ctx)
		if err != nil {
			return nil, err
		}
		if arr.Pipeline, err = s.pipes.get(0); err != nil {
			return nil, err
		}
		arr.Locator = &chunkLocator{s: s, idx: idx, noEdgeFilters: lay.Flags&layout.FlagNoFilterEdgeChunks != 0}
	default:
		return nil, fmt.Errorf("%w: %s layout", hdf5.ErrUnsupported, lay.Class)
	}
	return arr, nil
}

// virtualChunks cuts a contiguous dataset into chunks of whole rows of about
// virtualChunkBytes.
func virtualChunks(dims []int, itemSize int) []int {
	if len(dims) == 0 {
		return []int{}
	}
	rowBytes := itemSize
	for _, n := range dims[1:] {
		rowBytes *= max(n, 1)
	}
	rows := max(1, min(dims[0], virtualChunkBytes/max(rowBytes, 1)))
	chunks := append([]int{rows}, dims[1:]...)
	for i := range chunks {
		chunks[i] = max(chunks[i], 1)
	}
	return chunks
}

// compactLocator gives the data stored in a compact dataset's header.
type compactLocator []byte

func (c compactLocator) Locate(context.Context, []int) (engine.Chunk, error) {
	return engine.Chunk{Data: c}, nil
}

// contiguousLocator cuts a contiguous dataset's byte range into virtual chunks.
type contiguousLocator struct {
	s                 *storage
	off               int64 // the data's offset in the file; -1 when never written
	chunkBytes, total int64
}

func (s *storage) contiguous(chunks []int, itemSize int, addr uint64) *contiguousLocator {
	l := &contiguousLocator{s: s, off: -1, chunkBytes: int64(itemSize), total: int64(itemSize)}
	for _, c := range chunks {
		l.chunkBytes *= int64(c)
	}
	for _, n := range s.dims {
		l.total *= int64(n)
	}
	if addr != math.MaxUint64 {
		l.off = int64(s.hf.Base() + addr)
	}
	return l
}

func (l *contiguousLocator) Locate(_ context.Context, c []int) (engine.Chunk, error) {
	if l.off < 0 {
		return engine.Chunk{Missing: true}, nil
	}
	off := int64(0)
	if len(c) > 0 {
		off = int64(c[0]) * l.chunkBytes
	}
	n := min(l.chunkBytes, l.total-off)
	return engine.Chunk{Src: l.s.hf.Source(), Off: l.off + off, Len: n}, nil
}

// chunkLocator finds chunks in a chunked dataset's index, with the filters
// each went through.
type chunkLocator struct {
	s             *storage
	idx           layout.Index
	noEdgeFilters bool // edge chunks skip every filter
}

func (l *chunkLocator) Locate(ctx context.Context, c []int) (engine.Chunk, error) {
	ch, ok, err := l.idx.Lookup(ctx, c)
	if err != nil || !ok {
		return engine.Chunk{Missing: !ok}, err
	}
	mask := ch.FilterMask
	if l.noEdgeFilters && isEdge(c, l.s.chunks, l.s.dims) {
		mask = math.MaxUint32
	}
	out := engine.Chunk{Src: l.s.hf.Source(), Off: int64(l.s.hf.Base() + ch.Addr), Len: int64(ch.Size)}
	if mask != 0 {
		if out.Pipeline, err = l.s.pipes.get(mask); err != nil {
			return engine.Chunk{}, err
		}
	}
	return out, nil
}

// isEdge reports whether the chunk at c extends past the dataset's shape.
func isEdge(c, chunks, shape []int) bool {
	for i := range c {
		if (c[i]+1)*chunks[i] > shape[i] {
			return true
		}
	}
	return false
}

// pipelines builds, once per filter mask, the pipeline of the filters a chunk went through.
type pipelines struct {
	reg      *codecs.Registry
	filters  []layout.Filter
	elemSize int
	mu       sync.Mutex
	byMask   map[uint32]*codecs.Pipeline
}

func (p *pipelines) get(mask uint32) (*codecs.Pipeline, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pipe, ok := p.byMask[mask]; ok {
		return pipe, nil
	}
	var cfgs [][]byte
	for i, flt := range p.filters {
		if i < 32 && mask&(1<<i) != 0 {
			continue
		}
		cfg, err := flt.Codec(p.elemSize)
		if err != nil {
			return nil, err
		}
		cfgs = append(cfgs, cfg)
	}
	pipe, err := p.reg.Pipeline(nil, cfgs)
	if err != nil {
		return nil, err
	}
	p.byMask[mask] = pipe
	return pipe, nil
}
