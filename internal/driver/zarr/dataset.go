package zarr

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
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
		if ct.HoldsVarLen() {
			// Its variable-length members have no bytes: no fill value
			// to show (references fill as null ones).
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
		d.Storage = driver.NewArrayLink(t.env, ext, path, resolve)
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
			Locator: &rowsLocator{key: t.keyLocator(key, meta), meta: meta, pipe: pipe, path: path},
		}}
		return d, nil
	}
	st := &driver.Fixed{Array: &engine.Chunked{
		Shape: meta.Shape, Chunks: meta.Chunks, ItemSize: meta.DType.Size,
		FOrder: meta.Order == 'F', Fill: meta.Fill.Bytes, FillObject: meta.Fill.Object,
		Pipeline: pipe, Objects: objects, PadShort: t.lindi != nil, Name: path,
		Locator: t.keyLocator(key, meta),
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

// keyLocator finds the chunks of the array at key, of metadata meta, by
// their Zarr keys.
func (t *tree) keyLocator(key string, meta *zarrmeta.ArrayMeta) *driver.KeyLocator {
	return &driver.KeyLocator{
		Env: t.env, Store: t.st, Local: t.dir, Refs: t.lindi != nil, Expect: int64(meta.ChunkBytes()),
		Key: func(coords []int) string { return driver.JoinKey(key, meta.ChunkKey(coords)) },
	}
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
