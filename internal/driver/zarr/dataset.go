package zarr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/driver/hdf5"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

// dataset builds a dataset from its .zarray and .zattrs.
func (t *tree) dataset(key, path string, zarray []byte, za zarrmeta.Attrs) (*driver.Dataset, error) {
	attrs, err := t.attrs(za, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var zdt string
	var compound *zarrmeta.DType
	if t.hdmf() {
		if zdt, compound, err = zarrDType(za); err != nil {
			return &driver.Dataset{Attrs: attrs, Shape: shapeOf(zarray), Err: fmt.Errorf("%s: %w", path, err)}, nil
		}
	}
	meta, err := zarrmeta.ParseArray(zarray)
	if err != nil {
		// An array this package cannot describe (a dtype it does not read)
		// is unreadable on its own; the rest of the store reads.
		return &driver.Dataset{Attrs: attrs, Shape: shapeOf(zarray), Err: fmt.Errorf("%s/.zarray: %w", key, err)}, nil
	}
	d := &driver.Dataset{
		Attrs: attrs, Shape: meta.Shape, DType: meta.DType, Chunks: meta.Chunks, Fill: meta.Fill, NamedType: meta.NamedType,
		Scalar: za.Scalar() || zdt == "scalar" && len(meta.Shape) == 1 && meta.Items() == 1,
	}
	if za.Empty() {
		if meta.Items() != 0 || d.Scalar {
			return nil, fmt.Errorf("%s: %w: %s dataset has shape %v", path, driver.ErrFormat, zarrmeta.AttrEmpty, meta.Shape)
		}
		d.Null = true
	}
	if d.Scalar {
		if meta.Items() != 1 {
			return nil, fmt.Errorf("%s: %w: _SCALAR dataset has shape %v", path, driver.ErrFormat, meta.Shape)
		}
		d.Shape, d.Chunks = []int{}, []int{}
	}
	if ct, ok := za.CompoundDType(); ok {
		if meta.DType.Kind != zarrmeta.KindObject {
			return nil, fmt.Errorf("%s: %w: _COMPOUND_DTYPE on a %s array", path, driver.ErrFormat, meta.DType)
		}
		// An HDF5 compound's unwritten elements are zeros; LINDI's 0 for
		// the object array says nothing else.
		d.DType, d.Fill = ct, zarrmeta.Fill{Bytes: make([]byte, ct.Size)}
		if ct.HoldsObjects() {
			// Its object members have no bytes: no fill value to show.
			d.Fill.Null = true
		}
	}
	var items driver.Items
	objects := meta.DType.Kind == zarrmeta.KindObject
	switch {
	case compound != nil && objects:
		// hdmf-zarr's compound with reference fields: rows are lists.
		it := hdmfItems{t: t, path: path, refFields: make([]bool, len(compound.Fields))}
		for i, f := range compound.Fields {
			it.refFields[i] = f.DType.Kind == zarrmeta.KindReference
		}
		d.DType, d.Fill, items = *compound, zarrmeta.Fill{Bytes: make([]byte, compound.Size)}, it
	case zdt == "object" && objects:
		d.Ref, items = driver.ObjectRefs, hdmfItems{t: t, path: path, refs: true}
	}
	if t.lindi != nil && meta.DType.Kind == zarrmeta.KindUnicode {
		// HDF5 has no UTF-32 strings: LINDI writes an HDF5 variable-length
		// string scalar as "<U n". It reads as the HDF5 file does: |O, strings.
		u := unicodeItems{dtype: meta.DType}
		fill, err := u.decode(meta.Fill.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: fill value: %w", path, err)
		}
		d.DType, d.Fill, items = zarrmeta.DType{Kind: zarrmeta.KindObject, Size: 8}, zarrmeta.Fill{Object: fill}, u
		d.Strings = &driver.StringInfo{Encoding: "utf-8"}
	}
	if d.DType.Kind == zarrmeta.KindBytes {
		d.Strings = &driver.StringInfo{Encoding: "ascii", Length: d.DType.Size} // as h5py reads numpy's S n
	}
	pipe, err := t.env.Codecs.Pipeline(meta.Compressor, meta.Filters)
	if err != nil {
		// An unknown codec makes this dataset unreadable, not the file.
		d.Err = fmt.Errorf("%s: %w", path, err)
		return d, nil
	}
	d.Codecs = pipe.IDs()
	if t.hdmf() && objects && items == nil {
		items = t.textItems(d, pipe.IDs())
	}
	if ext, ok := za.ExternalArrayLink(); ok {
		var resolve func(string) (string, error)
		if t.lindi != nil {
			resolve = t.lindi.Resolve
		}
		d.Storage = hdf5.NewExternalLink(t.env, ext, path, resolve)
		return d, nil
	}
	if t.hdmf() && shapeBug(meta, compound) {
		empty, err := t.env.Codecs.Pipeline(nil, nil)
		if err != nil {
			return nil, err
		}
		d.Shape, d.Chunks = meta.Shape[:1], meta.Chunks[:1]
		d.Storage = &driver.Fixed{Array: &engine.Chunked{
			Shape: d.Shape, Chunks: d.Chunks, ItemSize: meta.DType.Size, Fill: meta.Fill.Bytes,
			Pipeline: empty, Name: path,
			Locator: &rowsLocator{key: &keyLocator{t: t, key: key, meta: meta}, pipe: pipe, path: path},
		}}
		return d, nil
	}
	st := &driver.Fixed{Array: &engine.Chunked{
		Shape: meta.Shape, Chunks: meta.Chunks, ItemSize: meta.DType.Size,
		FOrder: meta.Order == 'F', Fill: meta.Fill.Bytes, FillObject: meta.Fill.Object,
		Pipeline: pipe, Objects: objects, PadShort: t.lindi != nil, Name: path,
		Locator: &keyLocator{t: t, key: key, meta: meta},
	}}
	if objects && items == nil {
		_, rows := za.CompoundDType()
		st.Items = jsonItems{rows: rows, dtype: d.DType}
	} else {
		st.Items = items
	}
	d.Storage = st
	return d, nil
}

// keyLocator finds chunks by their Zarr keys; an absent key is a missing chunk.
type keyLocator struct {
	t    *tree
	key  string
	meta *zarrmeta.ArrayMeta

	pre driver.Prepared // chunks of a remote store read whole by Prepare
}

// Prepare reads the chunks of a batch whose sizes only a request tells
// (a Zarr store over HTTP) at once, whole when they are small, else only
// their sizes (driver.Objects).
func (l *keyLocator) Prepare(ctx context.Context, coords [][]int) {
	if l.t.dir || l.t.lindi != nil {
		return
	}
	urls := make([]string, 0, len(coords))
	for _, c := range coords {
		v, err := l.t.st.Get(ctx, driver.JoinKey(l.key, l.meta.ChunkKey(c)))
		if err == nil && !v.InMemory() && v.Len < 0 && v.Off == 0 {
			urls = append(urls, v.URL)
		}
	}
	l.pre.Read(ctx, l.t.env, urls, int64(l.meta.ChunkBytes()))
}

func (l *keyLocator) Locate(ctx context.Context, coords []int) (engine.Chunk, error) {
	v, err := l.t.st.Get(ctx, driver.JoinKey(l.key, l.meta.ChunkKey(coords)))
	if errors.Is(err, store.ErrNotFound) {
		return engine.Chunk{Missing: true}, nil
	}
	if err != nil {
		return engine.Chunk{}, err
	}
	if v.InMemory() {
		return engine.Chunk{Data: v.Data}, nil
	}
	if v.Len < 0 && v.Off == 0 {
		if c, ok := l.pre.Take(v.URL); ok {
			return c, nil
		}
	}
	if l.t.dir && !store.IsURL(v.URL) && v.Len >= 0 {
		// One file per chunk: open it for the read alone, so that a store
		// of many thousand chunks does not hold as many descriptors.
		return engine.Chunk{Src: l.t.env.Pool.PerRead(v.URL), Off: v.Off, Len: v.Len}, nil
	}
	src, err := l.t.env.Pool.Open(ctx, v.URL)
	if err != nil {
		return engine.Chunk{}, err
	}
	n := v.Len
	if n < 0 {
		size, err := src.Size(ctx)
		if l.t.lindi == nil && driver.NotFound(err) {
			return engine.Chunk{Missing: true}, nil // a chunk never written
		}
		if err != nil {
			return engine.Chunk{}, err
		}
		n = size - v.Off
	}
	return engine.Chunk{Src: src, Off: v.Off, Len: n}, nil
}

// shapeOf reads the shape of a .zarray that does not parse as a whole, for
// display; empty when it has none.
func shapeOf(zarray []byte) []int {
	var m struct{ Shape []int }
	if json.Unmarshal(zarray, &m) != nil || slices.ContainsFunc(m.Shape, func(n int) bool { return n < 0 }) {
		return []int{}
	}
	return append([]int{}, m.Shape...)
}

// ChunkSize is the stored size of a chunk as the store gives it without
// reading it (engine.Sizer): a ref's length, a local file's size; unknown
// for a remote object.
func (l *keyLocator) ChunkSize(ctx context.Context, coords []int) (int64, bool, error) {
	return driver.ValueSize(l.t.st.Get(ctx, driver.JoinKey(l.key, l.meta.ChunkKey(coords))))
}
