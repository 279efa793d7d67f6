package hdf5

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sync"

	"github.com/lindigo/lindi/hdf5"
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

	env  *driver.Env // opens the source files of a virtual dataset
	name string      // the file's path or URL, which those are resolved against

	mu sync.Mutex
	st *driver.Stored
}

func newStorage(hf *hdf5.File, hd *hdf5.Dataset, path string) (*storage, error) {
	if err := hd.Err(); err != nil {
		return nil, err
	}
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
	switch t := hd.Datatype(); {
	case t.Class == hdf5.ClassVlen || t.Class == hdf5.ClassReference:
		s.items = &itemDecoder{hf: hf, t: t}
	case t.Class == hdf5.ClassCompound && decodedMembers(t):
		// Rows whose references or variable-length members cannot be read
		// from their stored bytes: decoded into rows, as LINDI stores them.
		s.items = &rowDecoder{hf: hf, t: t}
		markReferences(&s.dtype, t)
	}
	s.fill = fill(hd, s.dtype, s.items != nil)
	for _, c := range hd.Chunks() { // nil unless chunked: describe uses them only then
		s.chunks = append(s.chunks, int(c))
	}
	full, err := hd.Pipeline() // an unknown filter fails here, naming it
	if err != nil {
		return nil, err
	}
	s.codecs = full.IDs()
	return s, nil
}

// fill gives the fill value users see, by the rule LINDI's fill_value
// follows: an HDF5 file that sets no fill value reads unwritten elements as
// zeros (h5py's fillvalue is then 0), so it is zeros, never Null; a
// variable-length string or reference dataset's is the empty string. The
// engine fills with its Bytes, which stay zeros for elements decoded by
// items (their stored bytes are heap IDs or addresses).
func fill(hd *hdf5.Dataset, dt zarrmeta.DType, items bool) zarrmeta.Fill {
	size := int(hd.Datatype().Size)
	f := zarrmeta.Fill{Bytes: make([]byte, size)}
	if fv := hd.Fill(); fv.Defined && len(fv.Value) == size && !items {
		f.Bytes = fv.Value
	}
	if dt.Kind == zarrmeta.KindObject {
		return zarrmeta.Fill{Object: ""}
	}
	if items && dt.HoldsVarLen() {
		// A compound with variable-length members: its item holds
		// objects, which have no bytes to fill with. (A compound of
		// numbers and references fills with zeros: a null reference.)
		return zarrmeta.Fill{Null: true, Bytes: make([]byte, dt.Size)}
	}
	return f
}

// engineFill is the stored element unwritten elements read as: zeros for
// elements the items decode (a zero heap ID or address).
func (s *storage) engineFill() []byte {
	if s.fill.Bytes == nil || s.items != nil {
		return make([]byte, s.hd.Datatype().Size)
	}
	return s.fill.Bytes
}

// describe fills in the dataset's metadata.
func (s *storage) describe(d *driver.Dataset) {
	d.Shape, d.DType, d.Fill, d.Codecs, d.Scalar = s.shape, s.dtype, s.fill, s.codecs, s.scalar
	d.Null = s.hd.Space().Kind == hdf5.SpaceNull
	describeMore(d, s.hd)
	switch s.hd.Layout() {
	case hdf5.LayoutCompact:
		d.Layout = driver.Compact
	case hdf5.LayoutContiguous:
		d.Layout = driver.Contiguous
	case hdf5.LayoutVirtual:
		d.Layout = driver.Virtual
	default:
		d.Layout, d.Chunks = driver.Chunked, s.chunks
	}
}

// numpyDType gives the numpy dtype of an HDF5 datatype. A compound of two
// floats of one size named "r" and "i" is a complex number, as h5py writes
// and reads complex64 and complex128.
func numpyDType(t *hdf5.Datatype) (zarrmeta.DType, error) {
	if dt, ok := complexDType(t); ok {
		return dt, nil
	}
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

// itemDecoder turns stored variable-length or reference elements into items.
type itemDecoder struct {
	hf *hdf5.File
	t  *hdf5.Datatype
}

func (it *itemDecoder) Items(ctx context.Context, raw []byte, _ []any) ([]any, []byte, error) {
	vals, err := it.hf.Decode(ctx, it.t, raw, len(raw)/int(it.t.Size))
	if err != nil {
		return nil, nil, err
	}
	rv := reflect.ValueOf(vals)
	if rv.Kind() != reflect.Slice {
		return nil, nil, fmt.Errorf("%w: %s elements decode to %T", driver.ErrFormat, it.t.Class, vals)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = value(rv.Index(i).Interface())
	}
	return out, nil, nil
}

// decodedMembers reports whether a compound has a member whose stored bytes
// are not its value: an object reference (an address) or a variable-length
// member (a heap ID).
func decodedMembers(t *hdf5.Datatype) bool {
	for _, f := range t.Fields {
		ft := f.Type
		if ft.Class == hdf5.ClassArray {
			ft = ft.Base
		}
		if ft.Class == hdf5.ClassReference || ft.Class == hdf5.ClassVlen ||
			ft.Class == hdf5.ClassCompound && decodedMembers(ft) {
			return true
		}
	}
	return false
}

// markReferences gives the reference members of a compound the dtype kind
// LINDI's _COMPOUND_DTYPE gives them ("<REFERENCE>"), so that both forms
// of a file have one dtype; numpy's descr calls them objects.
func markReferences(dt *zarrmeta.DType, t *hdf5.Datatype) {
	if len(dt.Fields) != len(t.Fields) {
		return
	}
	for i, f := range t.Fields {
		if f.Type.Class == hdf5.ClassReference {
			dt.Fields[i].DType = zarrmeta.DType{Kind: zarrmeta.KindReference, Size: dt.Fields[i].DType.Size}
		}
	}
}

// rowDecoder turns stored compound elements into rows: one []any per
// element holding its members in declaration order, references as Refs.
type rowDecoder struct {
	hf *hdf5.File
	t  *hdf5.Datatype
}

func (r *rowDecoder) Items(ctx context.Context, raw []byte, _ []any) ([]any, []byte, error) {
	vals, err := r.hf.Decode(ctx, r.t, raw, len(raw)/int(r.t.Size))
	if err != nil {
		return nil, nil, err
	}
	maps, ok := vals.([]map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("%w: compound elements decode to %T", driver.ErrFormat, vals)
	}
	out := make([]any, len(maps))
	for i, m := range maps {
		row := make([]any, len(r.t.Fields))
		for j, f := range r.t.Fields {
			row[j] = value(m[f.Name])
		}
		out[i] = row
	}
	return out, nil, nil
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

func (s *storage) build(ctx context.Context) (*engine.Chunked, error) {
	if s.hd.Layout() == hdf5.LayoutVirtual {
		return s.virtual(ctx)
	}
	return engine.HDF5(ctx, s.hd, s.dims, s.engineFill(), s.path)
}

// complexDType recognises h5py's complex numbers.
func complexDType(t *hdf5.Datatype) (zarrmeta.DType, bool) {
	if t.Class != hdf5.ClassCompound || len(t.Fields) != 2 {
		return zarrmeta.DType{}, false
	}
	r, i := t.Fields[0], t.Fields[1]
	if r.Name != "r" || i.Name != "i" || r.Type.Class != hdf5.ClassFloat || i.Type.Class != hdf5.ClassFloat ||
		r.Type.Size != i.Type.Size || r.Type.BigEndian != i.Type.BigEndian || r.Offset != 0 ||
		i.Offset != r.Type.Size || t.Size != 2*r.Type.Size || (r.Type.Size != 4 && r.Type.Size != 8) {
		return zarrmeta.DType{}, false
	}
	order := zarrmeta.LittleEndian
	if r.Type.BigEndian {
		order = zarrmeta.BigEndian
	}
	return zarrmeta.DType{Kind: zarrmeta.KindComplex, Order: order, Size: int(t.Size)}, true
}
