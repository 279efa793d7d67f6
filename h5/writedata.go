package h5

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// DatasetSpec says how to store a new dataset. Shape and DType are
// required; the rest have Python lindi's defaults.
type DatasetSpec struct {
	// Shape is the dataset's shape; empty for a scalar.
	Shape []int
	// DType is the element type: a number, bool or fixed-size bytes
	// ("|S8") dtype, or ObjectDType for variable-length strings and
	// references.
	DType zarrmeta.DType
	// Chunks is the chunk shape; nil for lindi's default: whole along
	// every axis but the first, about 20 MiB a chunk.
	Chunks []int
	// Codec is the compressor's numcodecs configuration, such as
	// {"id":"zlib","level":4} or {"id":"blosc","cname":"zstd","clevel":5,"shuffle":1}:
	// nil for lindi's default (DefaultCodec), NoCodec for none. Any codec
	// of the file's registry (WithCodecs) that encodes may be named.
	Codec json.RawMessage
	// Fill is the value of elements never written: a number or bool (a
	// string for a bytes dtype); nil for zero.
	Fill any
}

// DefaultCodec is the compressor Python lindi (and zarr) give a dataset
// created without one: Blosc with LZ4, level 5, byte shuffle.
var DefaultCodec = json.RawMessage(`{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":1}`)

// NoCodec stores chunks uncompressed.
var NoCodec = json.RawMessage("null")

// ObjectDType is the dtype of datasets of variable-length strings or
// references ("|O"), stored as lindi stores them: JSON items (the json2
// codec) compressed with Blosc.
var ObjectDType = zarrmeta.DType{Kind: zarrmeta.KindObject, Size: 8}

// json2Filter is the object codec Python lindi gives string and reference
// datasets.
var json2Filter = json.RawMessage(`{"allow_nan":true,"check_circular":true,"encoding":"utf-8","ensure_ascii":true,"id":"json2","indent":null,"separators":[",",":"],"skipkeys":false,"sort_keys":true,"strict":true}`)

// defaultChunkBytes is the chunk size Python lindi aims at along axis 0.
const defaultChunkBytes = 20 << 20

// DefaultChunks returns lindi's chunk shape for a dataset of the given
// shape and item size: whole along every axis but the first, and as many
// rows as fit in about 20 MiB (at least one).
func DefaultChunks(shape []int, itemSize int) []int {
	if len(shape) == 0 {
		return nil
	}
	row := itemSize
	for _, n := range shape[1:] {
		row *= max(n, 1)
	}
	chunks := append([]int{}, shape...)
	chunks[0] = max(1, min(shape[0], defaultChunkBytes/max(row, 1)))
	for i := 1; i < len(chunks); i++ {
		chunks[i] = max(chunks[i], 1)
	}
	return chunks
}

// CreateDataset makes the dataset name (a name, or a relative path whose
// missing groups are made too) as spec says, with no element written: it
// reads as its fill value until Write writes it. It fails if name exists.
func (g *Group) CreateDataset(ctx context.Context, name string, spec DatasetSpec) (*Dataset, error) {
	d, err := g.createDataset(ctx, name, spec)
	if err != nil {
		return nil, fmt.Errorf("h5: create dataset %s: %w", joinPath(g.path, name), err)
	}
	return d, nil
}

func (g *Group) createDataset(ctx context.Context, name string, spec DatasetSpec) (*Dataset, error) {
	ed, err := g.f.editor()
	if err != nil {
		return nil, err
	}
	ds, err := g.f.driverSpec(spec)
	if err != nil {
		return nil, err
	}
	parent, last, err := g.parentOf(ctx, name)
	if err != nil {
		return nil, err
	}
	path := joinPath(parent.path, last)
	dd, err := ed.CreateDataset(ctx, path, ds)
	if err != nil {
		return nil, err
	}
	d := newDataset(g.f, dd, path)
	parent.add(Link{Name: last, Kind: HardLink}, d, nil)
	return d, nil
}

// driverSpec checks spec and fills in lindi's defaults.
func (f *File) driverSpec(spec DatasetSpec) (*driver.DatasetSpec, error) {
	dt := spec.DType
	var compound [][2]string
	switch dt.Kind {
	case zarrmeta.KindBool, zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat, zarrmeta.KindBytes, zarrmeta.KindObject:
	case zarrmeta.KindStruct:
		var err error
		if compound, err = compoundSpec(dt); err != nil {
			return nil, err
		}
		dt = ObjectDType // rows as JSON items, as LINDI stores an HDF5 compound
	default:
		return nil, fmt.Errorf("%w: cannot create a dataset of dtype %s (numbers, bool, |S n, |O and compounds only)", ErrType, dt)
	}
	if dt.Size <= 0 {
		return nil, fmt.Errorf("%w: dtype %s has no size", ErrType, dt)
	}
	ds := &driver.DatasetSpec{Shape: append([]int{}, spec.Shape...), DType: dt, Chunks: spec.Chunks, Compressor: spec.Codec, Compound: compound}
	for _, n := range spec.Shape {
		if n < 0 {
			return nil, fmt.Errorf("shape %v has a negative dimension", spec.Shape)
		}
	}
	if ds.Chunks == nil && len(spec.Shape) > 0 {
		ds.Chunks = DefaultChunks(spec.Shape, dt.Size)
	}
	if len(spec.Shape) == 0 && spec.Chunks != nil {
		return nil, fmt.Errorf("a scalar dataset has no chunks (got %v)", spec.Chunks)
	}
	if ds.Compressor == nil {
		ds.Compressor = DefaultCodec
	}
	if dt.Kind == zarrmeta.KindObject {
		ds.Filters = []json.RawMessage{json2Filter}
	}
	if err := f.checkEncoders(ds); err != nil {
		return nil, err
	}
	if spec.Fill != nil {
		fill, err := fillJSON(spec.Fill, dt)
		if err != nil {
			return nil, err
		}
		ds.Fill = fill
	}
	return ds, nil
}

// checkEncoders refuses a codec the file's registry cannot encode with, or
// whose configuration it cannot encode with (blosc's blosclz or bit
// shuffle, say), by encoding a few kilobytes of zeros.
func (f *File) checkEncoders(ds *driver.DatasetSpec) error {
	p, err := f.env.Codecs.Pipeline(ds.Compressor, rawConfigs(ds.Filters))
	if err != nil {
		return err
	}
	if ds.DType.Kind == zarrmeta.KindObject {
		_, err = p.EncodeObjects([]any{""}, []int{1})
	} else {
		is := ds.DType.Size
		_, err = p.Encode(nil, make([]byte, is*max(1, 4096/is)), is)
	}
	return err
}

func rawConfigs(c []json.RawMessage) [][]byte {
	out := make([][]byte, len(c))
	for i, b := range c {
		out[i] = b
	}
	return out
}

// fillJSON is the .zarray fill_value of v for dtype dt.
func fillJSON(v any, dt zarrmeta.DType) (json.RawMessage, error) {
	switch dt.Kind {
	case zarrmeta.KindFloat:
		f, err := floatValue(v)
		if err != nil {
			return nil, fmt.Errorf("%w: fill value for dtype %s: %v", ErrType, dt, err)
		}
		if name := zarrmeta.NonFiniteName(f); name != "" {
			return json.Marshal(name)
		}
		return json.Marshal(f)
	case zarrmeta.KindInt, zarrmeta.KindUint:
		switch v.(type) {
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
			return json.Marshal(v)
		}
	case zarrmeta.KindBool:
		if b, ok := v.(bool); ok {
			return json.Marshal(b)
		}
	case zarrmeta.KindBytes:
		if s, ok := v.(string); ok && len(s) <= dt.Size {
			return json.Marshal(s)
		}
	}
	return nil, fmt.Errorf("%w: fill value %v (%T) for dtype %s", ErrType, v, v, dt)
}

// Value is the set of Go element types Write and CreateDatasetFrom take.
type Value interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64 |
		int | uint | bool | string | Reference
}

// DTypeOf returns the dtype a dataset created from Go values of type T
// has: the matching little-endian number ("<i8" for int), "|b1" for bool,
// ObjectDType for strings and References.
func DTypeOf[T Value]() zarrmeta.DType {
	var z T
	switch any(z).(type) {
	case bool:
		return zarrmeta.DType{Kind: zarrmeta.KindBool, Size: 1}
	case string, Reference:
		return ObjectDType
	case float32, float64:
		return numberDType(zarrmeta.KindFloat, int(unsafe.Sizeof(z)))
	case uint8, uint16, uint32, uint64, uint:
		return numberDType(zarrmeta.KindUint, int(unsafe.Sizeof(z)))
	}
	return numberDType(zarrmeta.KindInt, int(unsafe.Sizeof(z)))
}

func numberDType(k zarrmeta.Kind, size int) zarrmeta.DType {
	o := zarrmeta.LittleEndian
	if size == 1 {
		o = zarrmeta.NoOrder
	}
	return zarrmeta.DType{Kind: k, Size: size, Order: o}
}

// CreateDatasetFrom makes the dataset name holding data, of the given
// shape (nil for one dimension of len(data); empty, []int{}, for a scalar),
// and writes it. spec may be nil; its Shape and DType, when zero, come from
// shape and T (DTypeOf).
func CreateDatasetFrom[T Value](ctx context.Context, g *Group, name string, data []T, shape []int, spec *DatasetSpec) (*Dataset, error) {
	if shape == nil {
		shape = []int{len(data)}
	}
	var s DatasetSpec
	if spec != nil {
		s = *spec
	}
	if s.Shape == nil {
		s.Shape = shape
	}
	if s.DType.Kind == zarrmeta.KindInvalid {
		s.DType = DTypeOf[T]()
	}
	n := 1
	for _, x := range s.Shape {
		n *= x
	}
	if n != len(data) {
		return nil, fmt.Errorf("h5: create dataset %s: %d values for shape %v", joinPath(g.path, name), len(data), s.Shape)
	}
	d, err := g.CreateDataset(ctx, name, s)
	if err != nil {
		return nil, err
	}
	if err := Write(ctx, d, nil, data); err != nil {
		return nil, err
	}
	return d, nil
}

// Write writes data, the values of the selection sel of d in C order (an
// empty Selection writes the whole dataset), into d: every chunk the
// selection touches is encoded on the file's workers; a chunk it covers in
// part is read, changed and written back. Numbers are converted to d's
// dtype when the value is exactly representable (1e9 does not fit "<i2",
// 0.5 is not an integer: both are errors naming the element); strings go to
// string datasets (|O, |S n, and LINDI's <U n scalars), References to
// object datasets. Nothing is committed before Flush or Close.
func Write[T Value](ctx context.Context, d *Dataset, sel selection.Selection, data []T) error {
	if err := write(ctx, d, sel, data); err != nil {
		return fmt.Errorf("h5: write %s[%s]: %w", d.path, sel, err)
	}
	return nil
}

func write[T Value](ctx context.Context, d *Dataset, sel selection.Selection, data []T) error {
	w, err := d.startWrite(ctx, sel)
	if err != nil {
		return err
	}
	if len(data) != w.n {
		return fmt.Errorf("%d values for a selection of shape %v (%d elements)", len(data), w.shape, w.n)
	}
	var items []any
	var elems engine.Elements
	if w.a.Objects {
		items, err = objectItems(ctx, w.ed, d, data)
	} else {
		elems, err = storedElements(d, w.a.ItemSize, data)
	}
	if err != nil {
		return err
	}
	if w.points != nil {
		var raw []byte
		if elems != nil {
			raw = make([]byte, len(data)*w.a.ItemSize)
			if err := elems.Store(raw, 0, len(data)); err != nil {
				return err
			}
		}
		return d.writePoints(ctx, w, w.points, raw, items)
	}
	if items != nil {
		return d.f.failIf(engine.WriteObjects(ctx, w.a, w.stored, items, w.opt))
	}
	return d.f.failIf(engine.WriteElements(ctx, w.a, w.stored, elems, w.opt))
}

// datasetWrite is a write checked and resolved: the selection as stored
// (stored; nil for a pointwise one, whose points are points), its shape
// and element count as users see them, the engine's array and options.
type datasetWrite struct {
	ed     driver.Editor
	stored *selection.Resolved
	points *selection.Pointwise
	shape  []int
	n      int
	a      *engine.Chunked
	opt    engine.WriteOptions
}

// startWrite checks that sel of d can be written and resolves it.
func (d *Dataset) startWrite(ctx context.Context, sel selection.Selection) (*datasetWrite, error) {
	ed, err := d.f.editor()
	if err != nil {
		return nil, err
	}
	if d.d.Err != nil {
		return nil, d.d.Err
	}
	if err := ed.Writable(ctx, d.path); err != nil {
		return nil, err
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return nil, err
	}
	w := &datasetWrite{ed: ed, a: st.Array}
	if pw, ok, err := sel.Split(d.d.Shape); err != nil {
		return nil, err
	} else if ok {
		before, err := pw.Before.Resolve(d.d.Shape[:pw.Axis])
		if err != nil {
			return nil, err
		}
		after, err := pw.After.Resolve(d.d.Shape[pw.Axis+pw.Axes:])
		if err != nil {
			return nil, err
		}
		w.points = pw
		w.shape = slices.Concat(before.Shape(), []int{len(pw.Points)}, after.Shape())
		w.n = before.Len() * len(pw.Points) * after.Len()
	} else {
		r, stored, err := d.resolve(sel)
		if err != nil {
			return nil, err
		}
		w.stored, w.shape, w.n = stored, r.Shape(), r.Len()
	}
	w.opt = engine.WriteOptions{
		Workers: d.f.workers,
		Put: func(ctx context.Context, coords []int, chunk []byte) error {
			return ed.PutChunk(ctx, d.path, coords, chunk)
		},
	}
	return w, nil
}

// objectItems turns values into the items of an object dataset.
func objectItems[T Value](ctx context.Context, ed driver.Editor, d *Dataset, data []T) ([]any, error) {
	items := make([]any, len(data))
	if d.d.DType.Kind == zarrmeta.KindStruct {
		return nil, fmt.Errorf("%w: writing compound rows is not supported", ErrType)
	}
	for i, v := range data {
		switch v := any(v).(type) {
		case string:
			if !utf8.ValidString(v) {
				return nil, fmt.Errorf("element %d is not valid UTF-8", i)
			}
			items[i] = v
		case Reference:
			item, err := ed.RefItem(ctx, v.Path)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			items[i] = item
		default:
			return nil, fmt.Errorf("%w: %T values into a dataset of dtype %s (strings and references)", ErrType, v, d.d.DType)
		}
	}
	return items, nil
}

// storedBytes converts values into d's stored elements of itemSize bytes.
func storedElements[T Value](d *Dataset, itemSize int, data []T) (engine.Elements, error) {
	dt := d.d.DType
	var z T
	switch any(z).(type) {
	case string:
		b, err := stringBytes(d, itemSize, any(data).([]string))
		return engine.StoredElements(b, itemSize), err
	case Reference:
		return nil, fmt.Errorf("%w: references into a dataset of dtype %s", ErrType, dt)
	case bool:
		if dt.Kind != zarrmeta.KindBool {
			return nil, fmt.Errorf("%w: bool values into a dataset of dtype %s", ErrType, dt)
		}
		out := make([]byte, len(data))
		for i, b := range any(data).([]bool) {
			if b {
				out[i] = 1
			}
		}
		return engine.StoredElements(out, 1), nil
	}
	if dt.Kind != zarrmeta.KindInt && dt.Kind != zarrmeta.KindUint && dt.Kind != zarrmeta.KindFloat {
		return nil, fmt.Errorf("%w: %T values into a dataset of dtype %s", ErrType, z, dt)
	}
	if exact, ok := sameNumber[T](dt); ok && exact {
		// Stored as T is in memory: the caller's slice is the data.
		return engine.StoredElements(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), len(data)*dt.Size), dt.Size), nil
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if dt.Order == zarrmeta.BigEndian {
		order = binary.BigEndian
	}
	put := numberWriter(dt, order)
	if put == nil {
		return nil, fmt.Errorf("%w: cannot write dtype %s", ErrType, dt)
	}
	e := numberElements[T]{data: data, size: dt.Size, put: put}
	// Every value is checked before any chunk is written, so that a value
	// that does not fit fails the write, not half of it.
	var one [8]byte
	for i, v := range data {
		if err := put(one[:dt.Size], any(v)); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return e, nil
}

// numberElements converts Go numbers into a dataset's dtype chunk by chunk,
// so that a converting write holds converted chunks, not a converted copy.
type numberElements[T Value] struct {
	data []T
	size int
	put  func([]byte, any) error
}

func (e numberElements[T]) Len() int { return len(e.data) }

func (e numberElements[T]) Store(dst []byte, from, n int) error {
	for i, v := range e.data[from : from+n] {
		if err := e.put(dst[i*e.size:], any(v)); err != nil {
			return fmt.Errorf("element %d: %w", from+i, err)
		}
	}
	return nil
}

func (e numberElements[T]) Stored(int, int) ([]byte, bool) { return nil, false }

// sameNumber reports whether T's memory layout is dt's: same kind, size and
// byte order.
func sameNumber[T Value](dt zarrmeta.DType) (exact, ok bool) {
	var z T
	k := reflect.TypeFor[T]().Kind()
	var kind zarrmeta.Kind
	switch {
	case k >= reflect.Int && k <= reflect.Int64:
		kind = zarrmeta.KindInt
	case k >= reflect.Uint && k <= reflect.Uint64:
		kind = zarrmeta.KindUint
	case k == reflect.Float32 || k == reflect.Float64:
		kind = zarrmeta.KindFloat
	default:
		return false, false
	}
	size := int(unsafe.Sizeof(z))
	native := dt.Order == zarrmeta.NativeOrder || dt.Order == zarrmeta.NoOrder
	return kind == dt.Kind && size == dt.Size && native, true
}

// numberWriter returns the function that stores one number in dt, refusing
// a value dt cannot hold exactly.
func numberWriter(dt zarrmeta.DType, order binary.ByteOrder) func([]byte, any) error {
	switch dt.Kind {
	case zarrmeta.KindFloat:
		if dt.Size != 4 && dt.Size != 8 {
			return nil
		}
		return func(b []byte, v any) error { return putFloat(b, v, dt, order) }
	case zarrmeta.KindInt, zarrmeta.KindUint:
		if dt.Size != 1 && dt.Size != 2 && dt.Size != 4 && dt.Size != 8 {
			return nil
		}
		return func(b []byte, v any) error { return putInt(b, v, dt, order) }
	}
	return nil
}

// putFloat stores v in b as dt, a float of 4 or 8 bytes, refusing a value
// dt cannot hold exactly.
func putFloat(b []byte, v any, dt zarrmeta.DType, order binary.ByteOrder) error {
	f, err := floatValue(v)
	if err != nil {
		return err
	}
	if dt.Size == 8 {
		order.PutUint64(b, math.Float64bits(f))
		return nil
	}
	x := float32(f)
	if math.IsInf(float64(x), 0) && !math.IsInf(f, 0) {
		return fmt.Errorf("%v overflows %s", f, dt)
	}
	if _, isInt := intValue(v); isInt && float64(x) != f {
		return fmt.Errorf("%v is not exactly a %s", v, dt)
	}
	order.PutUint32(b, math.Float32bits(x))
	return nil
}

// putInt stores v in b as dt, an integer of 1, 2, 4 or 8 bytes, refusing a
// value dt cannot hold exactly.
func putInt(b []byte, v any, dt zarrmeta.DType, order binary.ByteOrder) error {
	bits := uint(dt.Size * 8)
	var u uint64
	if dt.Kind == zarrmeta.KindInt {
		i, err := exactInt(v)
		if err != nil {
			return err
		}
		if bits < 64 && (i < -(1<<(bits-1)) || i >= 1<<(bits-1)) {
			return fmt.Errorf("%v does not fit %s", v, dt)
		}
		u = uint64(i)
	} else {
		x, err := exactUint(v)
		if err != nil {
			return err
		}
		if bits < 64 && x >= 1<<bits {
			return fmt.Errorf("%v does not fit %s", v, dt)
		}
		u = x
	}
	zarrmeta.PutUint(b[:dt.Size], order, u)
	return nil
}

// floatValue gives a Go number as a float64, refusing an integer that a
// float64 does not hold exactly.
func floatValue(v any) (float64, error) {
	switch x := v.(type) {
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	case uint:
		return uintFloat(uint64(x))
	case uint64:
		return uintFloat(x)
	}
	i, ok := intValue(v)
	if !ok {
		return 0, fmt.Errorf("%v is not a number", v)
	}
	f := float64(i)
	if f >= 1<<63 || int64(f) != i {
		return 0, fmt.Errorf("%d is not exactly a float64", i)
	}
	return f, nil
}

func uintFloat(x uint64) (float64, error) {
	f := float64(x)
	if f >= 1<<64 || uint64(f) != x {
		return 0, fmt.Errorf("%d is not exactly a float64", x)
	}
	return f, nil
}

// intValue gives v as an int64 when it is a Go integer that fits.
func intValue(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint:
		return int64(x), uint64(x) <= math.MaxInt64
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		return int64(x), x <= math.MaxInt64
	}
	return 0, false
}

func exactInt(v any) (int64, error) {
	if i, ok := intValue(v); ok {
		return i, nil
	}
	f, err := floatValue(v)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, fmt.Errorf("%v is not an integer that fits int64", v)
	}
	return int64(f), nil
}

func exactUint(v any) (uint64, error) {
	switch x := v.(type) {
	case uint:
		return uint64(x), nil
	case uint64:
		return x, nil
	}
	if i, ok := intValue(v); ok {
		if i < 0 {
			return 0, fmt.Errorf("%v is negative", v)
		}
		return uint64(i), nil
	}
	f, err := floatValue(v)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || f < 0 || f >= 1<<64 {
		return 0, fmt.Errorf("%v is not a non-negative integer that fits uint64", v)
	}
	return uint64(f), nil
}

// stringBytes stores strings in a fixed-size string dataset: NUL-padded
// bytes (|S n) or UTF-32 (LINDI's <U n scalars, which read as |O).
func stringBytes(d *Dataset, itemSize int, data []string) ([]byte, error) {
	out := make([]byte, len(data)*itemSize)
	switch {
	case d.d.DType.Kind == zarrmeta.KindBytes:
		for i, s := range data {
			if len(s) > itemSize {
				return nil, fmt.Errorf("element %d: %d bytes do not fit dtype %s", i, len(s), d.d.DType)
			}
			copy(out[i*itemSize:], s)
		}
	case d.d.DType.Kind == zarrmeta.KindObject && d.d.Strings != nil:
		for i, s := range data {
			b := out[i*itemSize : (i+1)*itemSize]
			k := 0
			for _, r := range s {
				if k+4 > len(b) {
					return nil, fmt.Errorf("element %d: %d characters do not fit the stored <U%d", i, utf8.RuneCountInString(s), itemSize/4)
				}
				binary.LittleEndian.PutUint32(b[k:], uint32(r))
				k += 4
			}
		}
	default:
		return nil, fmt.Errorf("%w: strings into a dataset of dtype %s", ErrType, d.d.DType)
	}
	return out, nil
}

// WriteArray writes a, the values of the selection sel of d (in C order,
// its data in its dtype's byte order, as Read gives them), into d: numbers
// and bools of d's kind and size (any byte order), strings (|S n, <U n, |O)
// into string datasets. Converting numbers between dtypes is Write's.
func (d *Dataset) WriteArray(ctx context.Context, sel selection.Selection, a *Array) error {
	if err := d.writeArray(ctx, sel, a); err != nil {
		return fmt.Errorf("h5: write %s[%s]: %w", d.path, sel, err)
	}
	return nil
}

func (d *Dataset) writeArray(ctx context.Context, sel selection.Selection, a *Array) error {
	switch a.DType.Kind {
	case zarrmeta.KindBytes, zarrmeta.KindUnicode, zarrmeta.KindObject:
		s, err := As[string](a)
		if err != nil {
			return err
		}
		return write(ctx, d, sel, s.Data)
	}
	dt := d.d.DType
	if a.DType.Kind != dt.Kind || a.DType.Size != dt.Size || a.Data == nil {
		return fmt.Errorf("%w: %s values into a dataset of dtype %s (Write converts numbers)", ErrType, a.DType, dt)
	}
	switch dt.Kind {
	case zarrmeta.KindBool, zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat:
	default:
		return fmt.Errorf("%w: cannot write dtype %s", ErrType, dt)
	}
	data := a.Data
	if a.DType.Order != dt.Order && dt.Size > 1 {
		// The orders differ, so one of them is not the machine's: swapping
		// "to native" from that one turns a's bytes into d's.
		data = append([]byte(nil), data...)
		swap := a.DType
		if swap.Order == zarrmeta.NativeOrder {
			swap = dt
		}
		if err := swap.SwapToNative(data); err != nil {
			return err
		}
	}
	return d.writeRaw(ctx, sel, data)
}

// writeRaw writes stored elements.
func (d *Dataset) writeRaw(ctx context.Context, sel selection.Selection, raw []byte) error {
	w, err := d.startWrite(ctx, sel)
	if err != nil {
		return err
	}
	if w.a.Objects || len(raw) != w.n*w.a.ItemSize {
		return fmt.Errorf("%d bytes for a selection of shape %v (%d elements of %d bytes)", len(raw), w.shape, w.n, w.a.ItemSize)
	}
	if w.points != nil {
		return d.writePoints(ctx, w, w.points, raw, nil)
	}
	return d.f.failIf(engine.Write(ctx, w.a, w.stored, raw, w.opt))
}
