package h5

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
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/zarrmeta"
)

// openHDF5 reads the object tree of an HDF5 file.
func (f *File) openHDF5(ctx context.Context) error {
	hf, err := f.hdf5File(ctx, f.name)
	if err != nil {
		return err
	}
	f.kind = HDF5
	b := &h5builder{f: f, hf: hf, groups: map[uint64]*Group{}}
	root, err := b.group(ctx, hf.Root(), "/", 0)
	if err != nil {
		return err
	}
	f.root = root
	return nil
}

// hdf5File opens (once per file) the HDF5 file at name through the source pool.
func (f *File) hdf5File(ctx context.Context, name string) (*hdf5.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if hf, ok := f.hdf5[name]; ok {
		return hf, nil
	}
	src, err := f.pool.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	hf, err := hdf5.Open(ctx, src)
	if err != nil {
		return nil, err
	}
	if f.hdf5 == nil {
		f.hdf5 = map[string]*hdf5.File{}
	}
	f.hdf5[name] = hf
	return hf, nil
}

// h5builder turns the objects of an HDF5 file into Groups and Datasets.
type h5builder struct {
	f      *File
	hf     *hdf5.File
	groups map[uint64]*Group // by header address: a group hard-linked twice is one Group
}

func (b *h5builder) group(ctx context.Context, hg *hdf5.Group, path string, depth int) (*Group, error) {
	if g, ok := b.groups[hg.Addr()]; ok {
		return g, nil
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("%s: %w: groups nested more than %d deep", path, ErrFormat, maxDepth)
	}
	attrs, err := b.attrs(ctx, hg)
	if err != nil {
		return nil, err
	}
	g := &Group{f: b.f, path: path, attrs: attrs, hard: map[string]Object{}}
	b.groups[hg.Addr()] = g
	links, err := hg.Members(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		childPath := joinPath(path, l.Name)
		switch l.Type {
		case hdf5.LinkSoft:
			g.add(Link{Name: l.Name, Kind: SoftLink, Target: l.Target}, nil)
			continue
		case hdf5.LinkExternal:
			g.add(Link{Name: l.Name, Kind: ExternalLink, Target: l.Target, File: l.File}, nil)
			continue
		}
		obj, err := hg.Lookup(ctx, l.Name)
		if err != nil {
			return nil, err
		}
		switch o := obj.(type) {
		case *hdf5.Group:
			sub, err := b.group(ctx, o, childPath, depth+1)
			if err != nil {
				return nil, err
			}
			g.addHard(l.Name, sub)
		case *hdf5.Dataset:
			d, err := b.dataset(ctx, o, childPath)
			if err != nil {
				return nil, err
			}
			g.addHard(l.Name, d)
		default:
			// A committed datatype is not a group or a dataset: h5py lists it,
			// but it holds no data. It is left out of the tree.
		}
	}
	return g, nil
}

// attrs converts the attributes of an HDF5 object. An attribute that cannot be
// decoded has its error as its value.
func (b *h5builder) attrs(ctx context.Context, o hdf5.Object) (Attrs, error) {
	list, err := o.Attrs(ctx)
	if err != nil {
		return Attrs{}, err
	}
	vals := make(map[string]any, len(list))
	for _, a := range list {
		if a.Err != nil {
			vals[a.Name] = a.Err
			continue
		}
		vals[a.Name] = fromHDF5(a.Value)
	}
	return newAttrs(vals), nil
}

// fromHDF5 maps the hdf5 package's attribute values onto the documented ones.
func fromHDF5(v any) any {
	switch x := v.(type) {
	case hdf5.Reference:
		return Reference{Path: x.Path}
	case []hdf5.Reference:
		out := make([]Reference, len(x))
		for i, r := range x {
			out[i] = Reference{Path: r.Path}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = fromHDF5(e)
		}
		return out
	}
	return v
}

func (b *h5builder) dataset(ctx context.Context, hd *hdf5.Dataset, path string) (*Dataset, error) {
	attrs, err := b.attrs(ctx, hd)
	if err != nil {
		return nil, err
	}
	d := &Dataset{f: b.f, path: path, attrs: attrs, shape: []int{}}
	st, err := newHDF5Storage(b.hf, hd, path)
	if err != nil {
		// An unsupported datatype, filter or layout makes this dataset
		// unreadable, not the file.
		for _, n := range hd.Shape() {
			d.shape = append(d.shape, int(min(n, math.MaxInt32)))
		}
		return d.unreadable(err), nil
	}
	d.shape, d.dtype, d.chunks, d.fill, d.codecs, d.scalar = st.shape, st.dtype, st.chunks, st.fill, st.codecs, st.scalar
	d.storage = st.get
	return d, nil
}

// hdf5Storage is an HDF5 dataset as the engine sees it.
type hdf5Storage struct {
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
	items  func(ctx context.Context, raw []byte) ([]any, error) // vlen and reference elements

	pipes *pipelines // the chunk pipeline, one per filter mask
	mu    sync.Mutex
	st    *storage
}

func newHDF5Storage(hf *hdf5.File, hd *hdf5.Dataset, path string) (*hdf5Storage, error) {
	s := &hdf5Storage{hf: hf, hd: hd, path: path}
	space := hd.Space()
	for _, n := range hd.Shape() {
		if n > math.MaxInt32*1024 {
			return nil, fmt.Errorf("%w: dimension of %d elements", ErrFormat, n)
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
	dt, err := hdf5DType(hd.Datatype())
	if err != nil {
		return nil, err
	}
	s.dtype = dt
	s.items = s.itemDecoder()
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
	s.pipes = &pipelines{filters: hd.Filters(), elemSize: int(hd.Datatype().Size), byMask: map[uint32]*codecs.Pipeline{}}
	full, err := s.pipes.get(0) // an unknown filter fails here, naming it
	if err != nil {
		return nil, err
	}
	s.codecs = full.IDs()
	return s, nil
}

// hdf5DType gives the numpy dtype of an HDF5 datatype.
func hdf5DType(t *hdf5.Datatype) (zarrmeta.DType, error) {
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

// itemDecoder returns how to turn stored variable-length or reference
// elements into items, or nil for fixed-size elements.
func (s *hdf5Storage) itemDecoder() func(context.Context, []byte) ([]any, error) {
	t := s.hd.Datatype()
	if t.Class != hdf5.ClassVlen && t.Class != hdf5.ClassReference {
		return nil
	}
	return func(ctx context.Context, raw []byte) ([]any, error) {
		vals, err := s.hf.Decode(ctx, t, raw, len(raw)/int(t.Size))
		if err != nil {
			return nil, err
		}
		rv := reflect.ValueOf(vals)
		if rv.Kind() != reflect.Slice {
			return nil, fmt.Errorf("%w: %s elements decode to %T", ErrFormat, t.Class, vals)
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = fromHDF5(rv.Index(i).Interface())
		}
		return out, nil
	}
}

// get returns the engine's view of the dataset, reading its chunk index on
// first use (a failure is not remembered: the next read tries again).
func (s *hdf5Storage) get(ctx context.Context) (*storage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		return s.st, nil
	}
	arr, err := s.build(ctx)
	if err != nil {
		return nil, err
	}
	s.st = &storage{arr: arr, items: s.items}
	return s.st, nil
}

// virtualChunkBytes is the size of the pieces a contiguous dataset is read in,
// so that a read of a few rows fetches little and a large read runs in parallel.
const virtualChunkBytes = 1 << 20

func (s *hdf5Storage) build(ctx context.Context) (*engine.Array, error) {
	t := s.hd.Datatype()
	lay := s.hd.Layout()
	arr := &engine.Array{
		Shape: s.dims, Chunks: slices.Clone(s.chunks), ItemSize: int(t.Size),
		Fill: s.fill.Bytes, Name: s.path,
	}
	if s.scalar {
		arr.Chunks = []int{1}
	}
	src := s.hf.Source()
	base := s.hf.Base()
	switch lay.Class {
	case layout.Compact:
		data := lay.Data
		arr.Chunks = slices.Clone(s.dims)
		arr.PadShort = true
		arr.Locate = func(context.Context, []int) (engine.Chunk, error) {
			return engine.Chunk{Data: data}, nil
		}
	case layout.Contiguous:
		arr.PadShort = true
		rows := 1
		if len(s.dims) > 0 {
			rowBytes := arr.ItemSize
			for _, n := range s.dims[1:] {
				rowBytes *= max(n, 1)
			}
			rows = max(1, min(s.dims[0], virtualChunkBytes/max(rowBytes, 1)))
			arr.Chunks = append([]int{rows}, s.dims[1:]...)
			for i := range arr.Chunks {
				arr.Chunks[i] = max(arr.Chunks[i], 1)
			}
		}
		chunkBytes := int64(arr.ItemSize)
		for _, c := range arr.Chunks {
			chunkBytes *= int64(c)
		}
		total := int64(arr.ItemSize)
		for _, n := range s.dims {
			total *= int64(n)
		}
		addr := lay.Addr
		arr.Locate = func(_ context.Context, c []int) (engine.Chunk, error) {
			if addr == math.MaxUint64 {
				return engine.Chunk{Missing: true}, nil
			}
			off := int64(0)
			if len(c) > 0 {
				off = int64(c[0]) * chunkBytes
			}
			n := min(chunkBytes, total-off)
			return engine.Chunk{Src: src, Off: int64(base+addr) + off, Len: n}, nil
		}
	case layout.Chunked:
		idx, err := s.hd.Index(ctx)
		if err != nil {
			return nil, err
		}
		full, err := s.pipes.get(0)
		if err != nil {
			return nil, err
		}
		arr.Pipeline = full
		noEdgeFilters := lay.Flags&layout.FlagNoFilterEdgeChunks != 0
		arr.Locate = func(ctx context.Context, c []int) (engine.Chunk, error) {
			ch, ok, err := idx.Lookup(ctx, c)
			if err != nil || !ok {
				return engine.Chunk{Missing: !ok}, err
			}
			mask := ch.FilterMask
			if noEdgeFilters && isEdge(c, s.chunks, s.dims) {
				mask = math.MaxUint32
			}
			out := engine.Chunk{Src: src, Off: int64(base + ch.Addr), Len: int64(ch.Size)}
			if mask != 0 {
				if out.Pipeline, err = s.pipes.get(mask); err != nil {
					return engine.Chunk{}, err
				}
			}
			return out, nil
		}
	default:
		return nil, fmt.Errorf("%w: %s layout", hdf5.ErrUnsupported, lay.Class)
	}
	return arr, nil
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
	pipe, err := codecs.Builtin().Pipeline(nil, cfgs)
	if err != nil {
		return nil, err
	}
	p.byMask[mask] = pipe
	return pipe, nil
}

// openExternal opens the HDF5 dataset that a LINDI _EXTERNAL_ARRAY_LINK names.
func (f *File) openExternal(ctx context.Context, path string, ext zarrmeta.ExternalArrayLink) (*storage, error) {
	if ext.LinkType != "hdf5_dataset" {
		return nil, fmt.Errorf("%w: _EXTERNAL_ARRAY_LINK of type %q", ErrFormat, ext.LinkType)
	}
	lindi, ok := f.st.(interface{ Resolve(string) (string, error) })
	if !ok {
		return nil, fmt.Errorf("%w: _EXTERNAL_ARRAY_LINK outside a LINDI file", ErrFormat)
	}
	url, err := lindi.Resolve(ext.URL)
	if err != nil {
		return nil, err
	}
	hf, err := f.hdf5File(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrNeedsHDF5, url, err)
	}
	hd, err := hf.Dataset(ctx, ext.Name)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrNeedsHDF5, url, err)
	}
	st, err := newHDF5Storage(hf, hd, path)
	if err != nil {
		return nil, err
	}
	return st.get(ctx)
}
