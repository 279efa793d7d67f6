package index

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/zarrmeta"
)

// dataset indexes one dataset: .zattrs, .zarray and its chunks, inline or as
// refs, or an _EXTERNAL_ARRAY_LINK.
func (b *builder) dataset(ctx context.Context, ds *hdf5.Dataset, key string) error {
	attrs, err := b.attrs(ctx, ds)
	if err != nil {
		return err
	}
	space := ds.Space()
	d := &dsIndex{b: b, ds: ds, key: key, attrs: attrs, scalar: space.Kind == hdf5.SpaceScalar, n: int(space.NumElements())}
	for _, x := range space.Dims {
		d.shape = append(d.shape, int(x))
	}
	if space.Kind == hdf5.SpaceNull {
		// No shape, no elements: Python lindi cannot index it; kept as an
		// array of shape [0] marked _EMPTY, which this module reads back.
		d.null, d.shape = true, []int{0}
		d.attrs[zarrmeta.AttrEmpty] = true
	}
	if addr := ds.Datatype().Committed; addr != 0 {
		// A type no hard link reaches has no path ("") to name.
		if d.named, err = b.f.PathOf(ctx, addr); err != nil {
			return fmt.Errorf("index: %s: its committed datatype: %w", ds.Path(), err)
		}
	}
	if err := d.build(ctx); err != nil {
		return fmt.Errorf("index: %s: %w", ds.Path(), err)
	}
	return nil
}

// dsIndex is the index of one dataset being built.
type dsIndex struct {
	b      *builder
	ds     *hdf5.Dataset
	key    string
	attrs  map[string]any
	scalar bool
	null   bool // a null dataspace
	n      int
	shape  []int
	descr  string
	named  string         // the path of the committed datatype of the elements
	refs   map[string]any // the chunk refs
}

func (d *dsIndex) build(ctx context.Context) error {
	t := d.ds.Datatype()
	descr, err := t.NumpyDescr()
	if err != nil {
		return nil // a type with no numpy form (time, bare arrays): lindi cannot write it either
	}
	d.descr = descr
	// Fixed-size elements read as stored (numbers, opaque bytes, h5py's
	// datetime64): inline when small, else refs to the file's chunks.
	numeric := len(descr) >= 3 && strings.ContainsRune("iufVMm", rune(descr[1]))
	if t.Class == hdf5.ClassCompound || descr == "|b1" {
		numeric = false
	}
	if c, ok := complexDescr(t); ok {
		// h5py's complex numbers: zarr's own complex dtype over the same
		// bytes, where a compound of r and i would read as records.
		d.descr, numeric = c, true
	}
	if d.ds.Layout() == hdf5.LayoutVirtual {
		return d.virtual(ctx, t, numeric)
	}
	if d.scalar || d.null || !numeric || d.n > 0 && d.n < inlineElements {
		ok, err := d.inline(ctx, t)
		if errors.Is(err, hdf5.ErrUnsupported) {
			// Data this reader cannot read (external storage): h5py
			// reads it through the link.
			return d.external(ctx, false)
		}
		if err != nil || ok {
			return err
		}
		return d.external(ctx, false)
	}
	return d.chunked(ctx)
}

// zarray is the .zarray lindi writes: no compressor, the filters (nil for none).
func (d *dsIndex) zarray(shape, chunks []int, dtype, fill any, filters []any) map[string]any {
	var f any
	if len(filters) > 0 {
		f = filters
	}
	return map[string]any{
		"chunks": chunks, "compressor": nil, "dtype": dtype, "fill_value": fill,
		"filters": f, "order": "C", "shape": shape, "zarr_format": 2,
	}
}

// commit writes the dataset's keys; a dataset of a committed datatype names
// it in .zarray (zarrmeta.ArrayNamedType).
func (d *dsIndex) commit(zarray map[string]any) {
	if d.named != "" {
		zarray[zarrmeta.ArrayNamedType] = d.named
	}
	if len(d.attrs) > 0 {
		d.b.put(d.key+"/.zattrs", d.attrs)
	}
	d.b.put(d.key+"/.zarray", zarray)
	for k, v := range d.refs {
		d.b.put(d.key+"/"+k, v)
	}
}

// chunks returns the shape and chunk shape of a whole-array chunk, as lindi
// writes them: [1] for a scalar, ones for an empty array.
func (d *dsIndex) whole() (shape, chunks []int) {
	if d.scalar {
		return []int{1}, []int{1}
	}
	chunks = append([]int(nil), d.shape...)
	if d.n == 0 {
		for i := range chunks {
			chunks[i] = 1
		}
	}
	return d.shape, chunks
}

// zeroKey is the key of the first chunk.
func (d *dsIndex) zeroKey() string {
	if d.scalar || len(d.shape) == 0 {
		return "0"
	}
	return strings.TrimSuffix(strings.Repeat("0.", len(d.shape)), ".")
}

// inline writes the dataset's values into the JSON; ok is false for a type
// lindi cannot inline.
func (d *dsIndex) inline(ctx context.Context, t *hdf5.Datatype) (bool, error) {
	shape, chunks := d.whole()
	var raw []byte
	var err error
	if d.n > 0 {
		if raw, err = d.readAll(ctx); err != nil {
			return false, err
		}
	}
	if d.scalar {
		d.attrs["_SCALAR"] = true
	}
	dtype, fill := d.descr, d.fill(ctx)
	var filters []any
	var chunk []byte
	switch {
	case strings.HasPrefix(d.descr, "["): // a compound (not a complex number)
		var rows, ctype []any
		var ok bool
		rows, ctype, ok, err = d.compound(ctx, t, raw)
		if !ok || err != nil {
			return false, err
		}
		d.attrs["_COMPOUND_DTYPE"] = ctype
		dtype, fill, filters = "|O", 0, []any{json2Config}
		if chunk, err = json2(rows, shape); err != nil {
			return false, err
		}
	case d.descr == "|O":
		var items []any
		var ok bool
		items, ok, err = d.objects(ctx, t, raw)
		if !ok || err != nil {
			return false, err
		}
		if d.scalar && t.Class != hdf5.ClassReference {
			// lindi writes a scalar string as numpy's <U n: UTF-32LE.
			s := items[0].(string)
			dtype, fill = "<U"+strconv.Itoa(max(1, utf8.RuneCountInString(s))), ""
			chunk = utf32(s, max(1, utf8.RuneCountInString(s)))
			break
		}
		dtype, fill, filters = "|O", 0, []any{json2Config}
		if chunk, err = json2(items, shape); err != nil {
			return false, err
		}
	default: // numbers, bytes and opaque (|V n) elements: their stored bytes
		chunk = raw
	}
	zarray := d.zarray(shape, chunks, dtype, fill, filters)
	if d.n > 0 {
		p, err := pack(chunk, packItem(dtype))
		if err != nil {
			return false, err
		}
		d.refs = map[string]any{d.zeroKey(): p.ref}
		if p.compressor != nil {
			zarray["compressor"] = p.compressor
		}
	}
	d.commit(zarray)
	return true, nil
}

// packItem is the element size by which an inline chunk of dtype is
// compressed (blosc's typesize): a number's size, 4 for a fixed-width
// string's UTF-32 characters, 1 for bytes and JSON.
func packItem(dtype string) int {
	if len(dtype) < 3 {
		return 1
	}
	n, err := strconv.Atoi(dtype[2:])
	switch {
	case err != nil:
		return 1
	case dtype[1] == 'U':
		return 4
	case strings.ContainsRune("iufcmM", rune(dtype[1])):
		return n
	}
	return 1
}

// objects decodes variable-length strings and references into JSON items.
func (d *dsIndex) objects(ctx context.Context, t *hdf5.Datatype, raw []byte) ([]any, bool, error) {
	v, err := d.ds.File().Decode(ctx, t, raw, d.n)
	if err != nil {
		return nil, false, err
	}
	switch v := v.(type) {
	case []string:
		items := make([]any, len(v))
		for i, s := range v {
			items[i] = s
		}
		return items, true, nil
	case []hdf5.ObjectRef:
		items := make([]any, len(v))
		for i, r := range v {
			if items[i], err = d.b.reference(ctx, r); err != nil {
				return nil, false, err
			}
		}
		return items, true, nil
	}
	return nil, false, nil
}

// compound decodes compound elements into rows and the _COMPOUND_DTYPE
// lindi writes for them.
func (d *dsIndex) compound(ctx context.Context, t *hdf5.Datatype, raw []byte) ([]any, []any, bool, error) {
	var ctype []any
	for _, f := range t.Fields {
		name, err := fieldType(f.Type)
		if err != nil {
			return nil, nil, false, nil
		}
		ctype = append(ctype, []any{f.Name, name})
	}
	if d.n == 0 {
		return nil, ctype, true, nil
	}
	v, err := d.ds.File().Decode(ctx, t, raw, d.n)
	if err != nil {
		return nil, nil, false, err
	}
	elems, ok := v.([]map[string]any)
	if !ok {
		return nil, nil, false, nil
	}
	rows := make([]any, len(elems))
	for i, e := range elems {
		row := make([]any, len(t.Fields))
		for j, f := range t.Fields {
			x, ok, err := d.b.scalar(ctx, e[f.Name])
			if err != nil || !ok {
				return nil, nil, false, err
			}
			row[j] = x
		}
		rows[i] = row
	}
	return rows, ctype, true, nil
}

// complexDescr recognises h5py's complex numbers, a compound of two floats
// of one size named "r" and "i", and gives their numpy dtype ("<c16").
func complexDescr(t *hdf5.Datatype) (string, bool) {
	if t.Class != hdf5.ClassCompound || len(t.Fields) != 2 {
		return "", false
	}
	r, i := t.Fields[0], t.Fields[1]
	if r.Name != "r" || i.Name != "i" || r.Type.Class != hdf5.ClassFloat || i.Type.Class != hdf5.ClassFloat ||
		r.Type.Size != i.Type.Size || r.Type.BigEndian != i.Type.BigEndian || r.Offset != 0 ||
		i.Offset != r.Type.Size || t.Size != 2*r.Type.Size || (r.Type.Size != 4 && r.Type.Size != 8) {
		return "", false
	}
	order := "<"
	if r.Type.BigEndian {
		order = ">"
	}
	return order + "c" + strconv.Itoa(int(t.Size)), true
}

// fieldType names a compound member's type as numpy's str(dtype) does.
func fieldType(t *hdf5.Datatype) (string, error) {
	switch t.Class {
	case hdf5.ClassReference:
		return "<REFERENCE>", nil
	case hdf5.ClassCompound:
		// _COMPOUND_DTYPE names no nested compound: such a dataset is an
		// external array link.
		return "", fmt.Errorf("%w: a compound member of a compound in %s", hdf5.ErrUnsupported, zarrmeta.AttrCompoundDType)
	}
	descr, err := t.NumpyDescr()
	if err != nil {
		return "", err
	}
	if name, ok := numpyNames[descr]; ok {
		return name, nil
	}
	return descr, nil
}

var numpyNames = map[string]string{
	"|i1": "int8", "<i2": "int16", "<i4": "int32", "<i8": "int64",
	"|u1": "uint8", "<u2": "uint16", "<u4": "uint32", "<u8": "uint64",
	"<f4": "float32", "<f8": "float64", "|b1": "bool",
}

// fill is the dataset's fill value as zarr writes it (h5py's fillvalue: 0
// when none is defined).
func (d *dsIndex) fill(ctx context.Context) any {
	fv := d.ds.Fill()
	t := d.ds.Datatype()
	if d.descr[1] == 'c' {
		return complexFill(d.descr, fv)
	}
	switch {
	case d.descr == "|b1":
		return fv.Defined && len(fv.Value) > 0 && fv.Value[0] != 0
	case strings.HasPrefix(d.descr, "|V"):
		return d.voidFill()
	case strings.HasPrefix(d.descr, "|S"), strings.HasPrefix(d.descr, "<U"):
		return ""
	case t.Class != hdf5.ClassFixed && t.Class != hdf5.ClassFloat && t.Class != hdf5.ClassEnum:
		return 0
	}
	if !fv.Defined || len(fv.Value) != int(t.Size) {
		if t.Class == hdf5.ClassFloat {
			return pyFloat(0)
		}
		return 0
	}
	v, err := d.ds.File().Decode(ctx, t, fv.Value, 1)
	if err != nil {
		return 0
	}
	switch v := v.(type) {
	case []int64:
		return v[0]
	case []uint64:
		return v[0]
	case []float64:
		return finite(v[0])
	}
	return 0
}

// voidFill is the fill value zarr writes for a void or structured dtype:
// the element's bytes in base64 (h5py's fillvalue: zeros when none is
// defined).
func (d *dsIndex) voidFill() string {
	fv, size := d.ds.Fill(), int(d.ds.Datatype().Size)
	b := make([]byte, size)
	if fv.Defined && len(fv.Value) == size {
		b = fv.Value
	}
	return base64.StdEncoding.EncodeToString(b)
}

// complexFill is a complex fill value as zarr writes it: [real, imag].
func complexFill(descr string, fv hdf5.FillValue) []any {
	r, i := 0.0, 0.0
	if size, _ := strconv.Atoi(descr[2:]); fv.Defined && len(fv.Value) == size {
		var order binary.ByteOrder = binary.LittleEndian
		if descr[0] == '>' {
			order = binary.BigEndian
		}
		if half := size / 2; half == 4 {
			r = float64(math.Float32frombits(order.Uint32(fv.Value)))
			i = float64(math.Float32frombits(order.Uint32(fv.Value[4:])))
		} else {
			r = math.Float64frombits(order.Uint64(fv.Value))
			i = math.Float64frombits(order.Uint64(fv.Value[8:]))
		}
	}
	return []any{finite(r), finite(i)}
}

// json2Config is numcodecs.JSON's configuration, as lindi writes it.
var json2Config = map[string]any{
	"allow_nan": true, "check_circular": true, "encoding": "utf-8", "ensure_ascii": true, "id": "json2",
	"indent": nil, "separators": []any{",", ":"}, "skipkeys": false, "sort_keys": true, "strict": true,
}

// json2 encodes items (in C order) as numcodecs.JSON does: the array's
// tolist() — nested lists for 2 or more dimensions — then "|O" and the shape.
func json2(items []any, shape []int) ([]byte, error) {
	list := items
	if len(shape) > 1 && len(items) > 0 {
		list = nest(items, shape).([]any)
	}
	return json.Marshal(append(append([]any(nil), list...), "|O", shape))
}

// utf32 encodes s as numpy's <U n: UTF-32LE, NUL-padded to n characters.
func utf32(s string, n int) []byte {
	out := make([]byte, 4*n)
	i := 0
	for _, r := range s {
		binary.LittleEndian.PutUint32(out[4*i:], uint32(r))
		i++
	}
	return out
}

// inlineRef is a chunk stored in the JSON, as lindi's _add_ref writes it:
// ASCII as text, anything else (or text that starts "base64:") as base64.
func inlineRef(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii && !strings.HasPrefix(string(b), "base64:") {
		return string(b)
	}
	return "base64:" + base64.StdEncoding.EncodeToString(b)
}

// external makes the dataset an _EXTERNAL_ARRAY_LINK to the HDF5 file: its
// reads go there.
func (d *dsIndex) external(ctx context.Context, keepShape bool) error {
	d.attrs["_EXTERNAL_ARRAY_LINK"] = map[string]any{"link_type": "hdf5_dataset", "url": d.b.o.url, "name": strings.TrimPrefix(d.ds.Path(), "/")}
	delete(d.attrs, "_SCALAR")
	delete(d.attrs, "_COMPOUND_DTYPE")
	shape, chunks := d.whole()
	if c := d.ds.Chunks(); keepShape && c != nil {
		chunks = gridOf(d.ds)
	}
	var dtype any = d.descr
	fill := d.fill(ctx)
	if strings.HasPrefix(d.descr, "[") {
		// A compound kept in the HDF5 file has its numpy dtype, as zarr
		// writes it for lindi's links: the stored elements read as they
		// are, padding entries and subarray members included.
		dtype, fill = json.RawMessage(d.descr), d.voidFill()
		if holdsObjects(d.ds.Datatype()) {
			// Members stored as heap IDs or addresses have no bytes a
			// reader's item holds: no fill value (zarr allows null for any
			// dtype), where the stored bytes would not fit the item.
			fill = nil
		}
	}
	var filters []any
	if keepShape {
		filters, _ = numcodecs(d.ds) // as lindi writes them; an unmappable pipeline is left out
	}
	if dtype == "|O" && len(filters) == 0 {
		filters = []any{json2Config} // zarr refuses to open an object array without an object codec
	}
	d.refs = nil
	d.commit(d.zarray(shape, chunks, dtype, fill, filters))
	return nil
}

func gridOf(ds *hdf5.Dataset) []int {
	var out []int
	for _, c := range ds.Chunks() {
		out = append(out, int(c))
	}
	return out[:len(ds.Shape())]
}

// holdsObjects reports whether elements of t hold variable-length data or
// references, which numpy holds as objects.
func holdsObjects(t *hdf5.Datatype) bool {
	switch {
	case t.Class == hdf5.ClassVlen || t.Class == hdf5.ClassReference:
		return true
	case t.Base != nil && holdsObjects(t.Base):
		return true
	}
	for _, f := range t.Fields {
		if holdsObjects(f.Type) {
			return true
		}
	}
	return false
}
