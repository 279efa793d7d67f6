package h5

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

// Dataset is an n-dimensional array of one dtype, stored in chunks.
type Dataset struct {
	f      *File
	path   string
	attrs  Attrs
	shape  []int
	dtype  zarrmeta.DType
	chunks []int
	fill   zarrmeta.Fill
	codecs []string
	scalar bool
	// rows is set when the dtype is a compound stored as JSON rows (LINDI's
	// _COMPOUND_DTYPE over an object array).
	rows bool
	// err says why the dataset cannot be read; nil when it can.
	err error

	// storage gives the engine's view of the stored array, opening the HDF5
	// file of an _EXTERNAL_ARRAY_LINK on first use.
	storage func(ctx context.Context) (*storage, error)
}

// storage is a dataset's stored form as the engine reads it.
type storage struct {
	arr *engine.Array
	// items, when set, turns the raw stored elements into items (HDF5
	// variable-length strings and object references).
	items func(ctx context.Context, raw []byte) ([]any, error)
}

// Name is the last component of the dataset's path.
func (d *Dataset) Name() string { return baseName(d.path) }

// Path is the dataset's absolute path.
func (d *Dataset) Path() string { return d.path }

// Attrs returns the dataset's attributes.
func (d *Dataset) Attrs() Attrs { return d.attrs }

// File is the file the dataset belongs to.
func (d *Dataset) File() *File { return d.f }

// Shape is the dataset's shape; empty for a scalar. The slice is a copy.
func (d *Dataset) Shape() []int { return slices.Clone(d.shape) }

// NDim is the number of dimensions (0 for a scalar).
func (d *Dataset) NDim() int { return len(d.shape) }

// Len is the number of elements (1 for a scalar).
func (d *Dataset) Len() int {
	n := 1
	for _, s := range d.shape {
		n *= s
	}
	return n
}

// DType is the dataset's element type as stored (its byte order may not be
// native; reads convert to native order).
func (d *Dataset) DType() zarrmeta.DType { return d.dtype }

// Chunks is the chunk shape (for a contiguous or compact dataset, its shape). The slice is a copy.
func (d *Dataset) Chunks() []int { return slices.Clone(d.chunks) }

// Fill is the fill value that unwritten chunks read as.
func (d *Dataset) Fill() zarrmeta.Fill { return d.fill }

// Codecs lists the ids of the codecs a chunk passes through, in the order they
// were applied when writing.
func (d *Dataset) Codecs() []string { return slices.Clone(d.codecs) }

// Scalar reports whether the dataset is a scalar (shape ()).
func (d *Dataset) Scalar() bool { return d.scalar }

// Err reports why the dataset cannot be read (an unknown codec, an
// unsupported datatype or layout), or nil when it can. Reads of such a
// dataset fail with this error; the rest of the file reads as usual.
func (d *Dataset) Err() error { return d.err }

// unreadable marks the dataset as one that cannot be read, for the reason err.
func (d *Dataset) unreadable(err error) *Dataset {
	d.err = fmt.Errorf("%s: %w", d.path, err)
	d.storage = func(context.Context) (*storage, error) { return nil, d.err }
	return d
}

// zarrDataset builds a dataset from its .zarray and .zattrs.
func (f *File) zarrDataset(ctx context.Context, key, path string, zarray []byte, za zarrmeta.Attrs) (*Dataset, error) {
	meta, err := zarrmeta.ParseArray(zarray)
	if err != nil {
		return nil, fmt.Errorf("%s/.zarray: %w", key, err)
	}
	attrs, err := userAttrs(za)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &Dataset{
		f: f, path: path, attrs: attrs,
		shape: meta.Shape, dtype: meta.DType, chunks: meta.Chunks, fill: meta.Fill,
		scalar: za.Scalar(),
	}
	if d.scalar {
		if meta.Items() != 1 {
			return nil, fmt.Errorf("%s: %w: _SCALAR dataset has shape %v", path, ErrFormat, meta.Shape)
		}
		d.shape, d.chunks = []int{}, []int{}
	}
	if ct, ok := za.CompoundDType(); ok {
		if meta.DType.Kind != zarrmeta.KindObject {
			return nil, fmt.Errorf("%s: %w: _COMPOUND_DTYPE on a %s array", path, ErrFormat, meta.DType)
		}
		d.dtype, d.rows = ct, true
	}
	pipe, err := codecs.Builtin().Pipeline(meta.Compressor, meta.Filters)
	if err != nil {
		// An unknown codec makes this dataset unreadable, not the file.
		return d.unreadable(err), nil
	}
	d.codecs = pipe.IDs()
	if ext, ok := za.ExternalArrayLink(); ok {
		d.storage = f.externalStorage(path, ext)
		return d, nil
	}
	arr := &engine.Array{
		Shape: meta.Shape, Chunks: meta.Chunks, ItemSize: meta.DType.Size,
		FOrder: meta.Order == 'F', Fill: meta.Fill.Bytes, FillObject: meta.Fill.Object,
		Pipeline: pipe, Objects: meta.DType.Kind == zarrmeta.KindObject, PadShort: f.kind == LINDIJSON, Name: path,
		Locate: f.zarrLocate(key, meta),
	}
	st := &storage{arr: arr}
	d.storage = func(context.Context) (*storage, error) { return st, nil }
	return d, nil
}

// zarrLocate finds chunks by their Zarr keys; an absent key is a missing chunk.
func (f *File) zarrLocate(key string, meta *zarrmeta.Array) func(context.Context, []int) (engine.Chunk, error) {
	return func(ctx context.Context, coords []int) (engine.Chunk, error) {
		v, err := f.st.Get(ctx, joinKey(key, meta.ChunkKey(coords)))
		if errors.Is(err, store.ErrNotFound) {
			return engine.Chunk{Missing: true}, nil
		}
		if err != nil {
			return engine.Chunk{}, err
		}
		if v.InMemory() {
			return engine.Chunk{Data: v.Data}, nil
		}
		if f.kind == Zarr && !store.IsURL(v.URL) {
			// One file per chunk: open it for the read alone, so that a store
			// of many thousand chunks does not hold as many descriptors.
			return engine.Chunk{Src: chunkFile(v.URL), Len: v.Len}, nil
		}
		src, err := f.pool.Open(ctx, v.URL)
		if err != nil {
			return engine.Chunk{}, err
		}
		n := v.Len
		if n < 0 {
			size, err := src.Size(ctx)
			if f.kind == Zarr && notFound(err) {
				return engine.Chunk{Missing: true}, nil // a chunk never written
			}
			if err != nil {
				return engine.Chunk{}, err
			}
			n = size - v.Off
		}
		return engine.Chunk{Src: src, Off: v.Off, Len: n}, nil
	}
}

// externalStorage reads a LINDI _EXTERNAL_ARRAY_LINK dataset from its HDF5 file.
func (f *File) externalStorage(path string, ext zarrmeta.ExternalArrayLink) func(context.Context) (*storage, error) {
	var mu sync.Mutex
	var st *storage
	return func(ctx context.Context) (*storage, error) {
		mu.Lock()
		defer mu.Unlock()
		if st != nil {
			return st, nil
		}
		// A failure (a cancelled context, say) is not remembered: the next read tries again.
		s, err := f.openExternal(ctx, path, ext)
		if err != nil {
			return nil, err
		}
		st = s
		return st, nil
	}
}
