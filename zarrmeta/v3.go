package zarrmeta

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ErrV3 reports invalid Zarr v3 metadata (a zarr.json document).
var ErrV3 = errors.New("zarrmeta: bad zarr.json")

// V3Node is a parsed Zarr v3 zarr.json document: a group or an array.
type V3Node struct {
	// Array is set for an array node, nil for a group.
	Array *V3Array
	// Attributes holds the node's attributes as decoded JSON (see
	// DecodeJSON); empty when the document has none.
	Attributes map[string]any
	// Consolidated holds the consolidated metadata of a group, keyed by
	// the path relative to the group without a leading "/"; nil when the
	// document carries none.
	Consolidated map[string]*V3Node
}

// V3Array is the array part of a zarr.json document.
type V3Array struct {
	// Shape is the array's shape (empty for a 0-d array).
	Shape []int
	// DataType is the data type as decoded JSON: a name ("int16",
	// "float32", "string", …) or an extension's {"name", "configuration"}
	// object; V3DType interprets it.
	DataType any
	// ChunkShape is the regular chunk grid's chunk shape.
	ChunkShape []int
	// KeyEncoding is "default" or "v2"; Separator its separator ("/" or ".").
	KeyEncoding string
	Separator   string
	// FillValue is the fill_value as decoded JSON; V3Fill interprets it.
	FillValue any
	// Codecs is the codec chain, in the order the codecs were applied when
	// writing.
	Codecs []V3Codec
	// DimensionNames lists the dimension names (strings or nil); nil when
	// the document has none.
	DimensionNames []any
}

// V3Codec is one entry of a codec chain: its name and configuration (an
// empty map when the document gives none or uses the short-hand name form).
type V3Codec struct {
	Name          string
	Configuration map[string]any
}

// maxV3Depth bounds the nesting of consolidated metadata.
const maxV3Depth = 64

// ParseV3 parses a zarr.json document. It tolerates Python's bare NaN and
// Infinity tokens, as zarr-python 3.0 writes them in attributes. An unknown
// top-level member is an error naming it unless it is an object with
// "must_understand": false.
func ParseV3(b []byte) (*V3Node, error) {
	v, err := DecodeJSON(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrV3, err)
	}
	return V3FromJSON(v)
}

// V3FromJSON interprets a decoded zarr.json document, such as one entry of
// consolidated metadata.
func V3FromJSON(v any) (*V3Node, error) { return v3Node(v, 0) }

func v3Node(v any, depth int) (*V3Node, error) {
	if depth > maxV3Depth {
		return nil, fmt.Errorf("%w: consolidated metadata nested more than %d deep", ErrV3, maxV3Depth)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not an object", ErrV3, jsonText(v))
	}
	if f, ok := m["zarr_format"].(int64); !ok || f != 3 {
		return nil, fmt.Errorf("%w: zarr_format %s, want 3", ErrV3, jsonText(m["zarr_format"]))
	}
	n := &V3Node{Attributes: map[string]any{}}
	if a, ok := m["attributes"]; ok {
		am, ok := a.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: attributes %s is not an object", ErrV3, jsonText(a))
		}
		n.Attributes = am
	}
	known := map[string]bool{"zarr_format": true, "node_type": true, "attributes": true}
	switch t := m["node_type"]; t {
	case "group":
		known["consolidated_metadata"] = true
		if cm, ok := m["consolidated_metadata"]; ok && cm != nil {
			c, err := v3Consolidated(cm, depth)
			if err != nil {
				return nil, err
			}
			n.Consolidated = c
		}
	case "array":
		for _, k := range []string{"shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs", "dimension_names", "storage_transformers"} {
			known[k] = true
		}
		a, err := v3Array(m)
		if err != nil {
			return nil, err
		}
		n.Array = a
	default:
		return nil, fmt.Errorf("%w: node_type %s is neither \"group\" nor \"array\"", ErrV3, jsonText(t))
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !known[k] && mustUnderstand(m[k]) {
			return nil, fmt.Errorf("%w: unknown extension %q (without \"must_understand\": false)", ErrV3, k)
		}
	}
	return n, nil
}

// mustUnderstand reports whether an extension member must be understood:
// any value but an object with "must_understand": false.
func mustUnderstand(v any) bool {
	m, ok := v.(map[string]any)
	return !ok || m["must_understand"] != false
}

func v3Consolidated(v any, depth int) (map[string]*V3Node, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: consolidated_metadata %s is not an object", ErrV3, jsonText(v))
	}
	if k := m["kind"]; k != "inline" {
		return nil, fmt.Errorf("%w: consolidated_metadata kind %s, want \"inline\"", ErrV3, jsonText(k))
	}
	md, ok := m["metadata"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: consolidated_metadata has no \"metadata\" object", ErrV3)
	}
	out := make(map[string]*V3Node, len(md))
	for path, doc := range md {
		if path == "" || strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") {
			return nil, fmt.Errorf("%w: consolidated_metadata: bad path %q", ErrV3, path)
		}
		n, err := v3Node(doc, depth+1)
		if err != nil {
			return nil, fmt.Errorf("consolidated_metadata %q: %w", path, err)
		}
		out[path] = n
	}
	return out, nil
}

func v3Array(m map[string]any) (*V3Array, error) {
	a := &V3Array{}
	var err error
	if a.Shape, err = v3Ints(m["shape"], "shape", true); err != nil {
		return nil, err
	}
	a.DataType = m["data_type"]
	if _, err := V3Named(a.DataType, "data_type"); err != nil {
		return nil, err
	}
	grid, err := V3Named(m["chunk_grid"], "chunk_grid")
	if err != nil {
		return nil, err
	}
	if grid.Name != "regular" {
		return nil, fmt.Errorf("%w: chunk_grid %q is not supported (only \"regular\")", ErrV3, grid.Name)
	}
	if a.ChunkShape, err = v3Ints(grid.Configuration["chunk_shape"], "chunk_shape", false); err != nil {
		return nil, err
	}
	if len(a.ChunkShape) != len(a.Shape) {
		return nil, fmt.Errorf("%w: chunk_shape %v for shape %v", ErrV3, a.ChunkShape, a.Shape)
	}
	cke, err := V3Named(m["chunk_key_encoding"], "chunk_key_encoding")
	if err != nil {
		return nil, err
	}
	a.KeyEncoding = cke.Name
	switch cke.Name {
	case "default":
		a.Separator = "/"
	case "v2":
		a.Separator = "."
	default:
		return nil, fmt.Errorf("%w: chunk_key_encoding %q is not supported", ErrV3, cke.Name)
	}
	if s, ok := cke.Configuration["separator"]; ok {
		if s != "/" && s != "." {
			return nil, fmt.Errorf("%w: chunk_key_encoding separator %s", ErrV3, jsonText(s))
		}
		a.Separator = s.(string)
	}
	fill, ok := m["fill_value"]
	if !ok {
		return nil, fmt.Errorf("%w: array has no fill_value", ErrV3)
	}
	a.FillValue = fill
	if a.Codecs, err = V3Codecs(m["codecs"], "codecs"); err != nil {
		return nil, err
	}
	if len(a.Codecs) == 0 {
		return nil, fmt.Errorf("%w: empty codecs list", ErrV3)
	}
	if st, ok := m["storage_transformers"]; ok {
		if l, ok := st.([]any); !ok || len(l) > 0 {
			return nil, fmt.Errorf("%w: storage_transformers %s are not supported", ErrV3, jsonText(st))
		}
	}
	if dn, ok := m["dimension_names"]; ok && dn != nil {
		l, ok := dn.([]any)
		if !ok || len(l) != len(a.Shape) {
			return nil, fmt.Errorf("%w: dimension_names %s for %d dimensions", ErrV3, jsonText(dn), len(a.Shape))
		}
		for _, x := range l {
			if _, ok := x.(string); !ok && x != nil {
				return nil, fmt.Errorf("%w: dimension name %s is neither a string nor null", ErrV3, jsonText(x))
			}
		}
		a.DimensionNames = l
	}
	return a, nil
}

// V3Codecs parses a codec chain (the "codecs" of an array, or a sharding
// codec's "codecs" and "index_codecs"): a list of {"name", "configuration"}
// objects or short-hand names.
func V3Codecs(v any, what string) ([]V3Codec, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s %s is not a list", ErrV3, what, jsonText(v))
	}
	out := make([]V3Codec, len(l))
	for i, c := range l {
		var err error
		if out[i], err = V3Named(c, what); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// V3Named parses a named configuration: {"name": n, "configuration": {…}}
// or the short-hand string n. An object with "must_understand": false among
// its members is accepted as the others are.
func V3Named(v any, what string) (V3Codec, error) {
	if s, ok := v.(string); ok && s != "" {
		return V3Codec{Name: s, Configuration: map[string]any{}}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return V3Codec{}, fmt.Errorf("%w: %s %s is neither a name nor an object", ErrV3, what, jsonText(v))
	}
	name, ok := m["name"].(string)
	if !ok || name == "" {
		return V3Codec{}, fmt.Errorf("%w: %s %s has no name", ErrV3, what, jsonText(v))
	}
	c := V3Codec{Name: name, Configuration: map[string]any{}}
	if cfg, ok := m["configuration"]; ok && cfg != nil {
		cm, ok := cfg.(map[string]any)
		if !ok {
			return V3Codec{}, fmt.Errorf("%w: %s %q: configuration %s is not an object", ErrV3, what, name, jsonText(cfg))
		}
		c.Configuration = cm
	}
	return c, nil
}

// v3Ints reads a list of non-negative integers (positive unless zero is ok).
func v3Ints(v any, what string, zeroOK bool) ([]int, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s %s is not a list", ErrV3, what, jsonText(v))
	}
	out := make([]int, len(l))
	for i, x := range l {
		n, ok := x.(int64)
		if !ok || n < 0 || n == 0 && !zeroOK || n > math.MaxInt32*int64(1<<20) {
			return nil, fmt.Errorf("%w: %s %s: element %d is not a valid size", ErrV3, what, jsonText(v), i)
		}
		out[i] = int(n)
	}
	return out, nil
}

// Ints reads a list of integers from decoded JSON (a codec configuration's
// "chunk_shape" or "order"), naming what in errors.
func Ints(v any, what string) ([]int, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s %s is not a list of integers", ErrV3, what, jsonText(v))
	}
	out := make([]int, len(l))
	for i, x := range l {
		n, ok := x.(int64)
		if !ok || n < 0 || n > math.MaxInt32 {
			return nil, fmt.Errorf("%w: %s %s: element %d is not a valid integer", ErrV3, what, jsonText(v), i)
		}
		out[i] = int(n)
	}
	return out, nil
}

// V3DType returns the dtype of a Zarr v3 data type (decoded JSON: a name or
// an extension's {"name", "configuration"}), its multi-byte numbers in byte
// order (the bytes codec's endian): bool, int8…uint64, float16…64,
// complex64 and complex128, "string" (an object dtype of strings), raw bits
// "r8", "r16", … (void), and the extensions struct (and its legacy name
// structured), numpy.datetime64 and numpy.timedelta64 (scale factor 1),
// fixed_length_utf32.
func V3DType(v any, order ByteOrder) (DType, error) { return v3DType(v, order, 0) }

func v3DType(v any, order ByteOrder, depth int) (DType, error) {
	if depth > maxDTypeDepth {
		return DType{}, fmt.Errorf("%w: struct data types nested more than %d deep", ErrV3, maxDTypeDepth)
	}
	nc, err := V3Named(v, "data_type")
	if err != nil {
		return DType{}, err
	}
	name, cfg := nc.Name, nc.Configuration
	sized := func(k Kind, n int) DType {
		d := DType{Kind: k, Size: n}
		if n > 1 {
			d.Order = order
		}
		return d
	}
	switch name {
	case "bool":
		return DType{Kind: KindBool, Size: 1}, nil
	case "int8", "int16", "int32", "int64":
		n, _ := strconv.Atoi(name[3:])
		return sized(KindInt, n/8), nil
	case "uint8", "uint16", "uint32", "uint64":
		n, _ := strconv.Atoi(name[4:])
		return sized(KindUint, n/8), nil
	case "float16", "float32", "float64":
		n, _ := strconv.Atoi(name[5:])
		return sized(KindFloat, n/8), nil
	case "complex64", "complex128":
		n, _ := strconv.Atoi(name[7:])
		d := sized(KindComplex, n/8)
		d.Order = order
		return d, nil
	case "string":
		return DType{Kind: KindObject, Size: 8}, nil
	case "fixed_length_utf32":
		n, ok := cfg["length_bytes"].(int64)
		if !ok || n <= 0 || n%4 != 0 || n > maxItemSize {
			return DType{}, fmt.Errorf("%w: fixed_length_utf32 length_bytes %s", ErrV3, jsonText(cfg["length_bytes"]))
		}
		return DType{Kind: KindUnicode, Size: int(n), Order: order}, nil
	case "numpy.datetime64", "numpy.timedelta64", "datetime64", "timedelta64":
		unit, _ := cfg["unit"].(string)
		if unit == "μs" {
			unit = "us"
		}
		if !timeUnits[unit] {
			return DType{}, fmt.Errorf("%w: %s unit %s", ErrV3, name, jsonText(cfg["unit"]))
		}
		if sf, ok := cfg["scale_factor"]; ok && sf != int64(1) {
			return DType{}, fmt.Errorf("%w: %s scale_factor %s is not supported (only 1)", ErrV3, name, jsonText(sf))
		}
		d := DType{Kind: KindDatetime, Size: 8, Order: order, Unit: unit}
		if strings.HasSuffix(name, "timedelta64") {
			d.Kind = KindTimedelta
		}
		return d, nil
	case "struct", "structured":
		return v3Struct(name, cfg, order, depth)
	}
	if bits, ok := strings.CutPrefix(name, "r"); ok {
		if n, err := strconv.Atoi(bits); err == nil && n > 0 && n%8 == 0 && n <= 1<<20 {
			return DType{Kind: KindVoid, Size: n / 8}, nil
		}
	}
	return DType{}, fmt.Errorf("%w: data_type %q is not supported", ErrV3, name)
}

// v3Struct reads a struct data type: fields packed in order, as objects
// {"name", "data_type"} or, for the legacy name structured, [name, type]
// pairs.
func v3Struct(name string, cfg map[string]any, order ByteOrder, depth int) (DType, error) {
	list, ok := cfg["fields"].([]any)
	if !ok || len(list) == 0 {
		return DType{}, fmt.Errorf("%w: %s data type needs a non-empty \"fields\" list", ErrV3, name)
	}
	d := DType{Kind: KindStruct}
	seen := map[string]bool{}
	for i, f := range list {
		var fname string
		var ftype any
		switch f := f.(type) {
		case map[string]any:
			fname, _ = f["name"].(string)
			ftype = f["data_type"]
		case []any:
			if len(f) == 2 {
				fname, _ = f[0].(string)
				ftype = f[1]
			}
		}
		if fname == "" || ftype == nil || seen[fname] {
			return DType{}, fmt.Errorf("%w: %s field %d %s needs a unique name and a data_type", ErrV3, name, i, jsonText(f))
		}
		seen[fname] = true
		fd, err := v3DType(ftype, order, depth+1)
		if err != nil {
			return DType{}, fmt.Errorf("%s field %q: %w", name, fname, err)
		}
		if fd.Kind == KindObject {
			return DType{}, fmt.Errorf("%w: %s field %q has the variable-length type string", ErrV3, name, fname)
		}
		d.Fields = append(d.Fields, Field{Name: fname, DType: fd, Offset: d.Size})
		d.Size += fd.Size
		if d.Size > maxItemSize {
			return DType{}, fmt.Errorf("%w: %s of more than %d bytes", ErrV3, name, maxItemSize)
		}
	}
	return d, nil
}

// V3Fill decodes a Zarr v3 fill_value for dtype d (from V3DType): exact
// integers over the full 64-bit range, booleans, floats as numbers (rounded
// to the nearest value of the type), "NaN" (the canonical NaN), "Infinity",
// "-Infinity" or a "0x…" bit pattern, complex numbers as [re, im] pairs of
// those, strings for the string type, and raw bits as lists of byte values.
func V3Fill(v any, d DType) (Fill, error) {
	if v == nil {
		return Fill{}, fmt.Errorf("%w: fill_value null is not allowed in Zarr v3", ErrFill)
	}
	switch d.Kind {
	case KindObject:
		s, ok := v.(string)
		if !ok {
			return Fill{}, fmt.Errorf("%w: %s for a string array", ErrFill, jsonText(v))
		}
		return Fill{Object: s}, nil
	case KindStruct:
		b := make([]byte, d.Size)
		if err := v3StructFill(b, v, d); err != nil {
			return Fill{}, fmt.Errorf("%w: %s for %s: %v", ErrFill, jsonText(v), d, err)
		}
		return Fill{Bytes: b}, nil
	case KindDatetime, KindTimedelta:
		if v == "NaT" {
			v = int64(math.MinInt64)
		}
	case KindVoid:
		l, ok := v.([]any)
		if !ok || len(l) != d.Size {
			return Fill{}, fmt.Errorf("%w: %s for %d raw bytes", ErrFill, jsonText(v), d.Size)
		}
		b := make([]byte, d.Size)
		for i, x := range l {
			n, ok := x.(int64)
			if !ok || n < 0 || n > 255 {
				return Fill{}, fmt.Errorf("%w: %s: element %d is not a byte", ErrFill, jsonText(v), i)
			}
			b[i] = byte(n)
		}
		return Fill{Bytes: b}, nil
	case KindFloat:
		b := make([]byte, d.Size)
		if err := v3Float(b, byteOrder(d.Order), v); err != nil {
			return Fill{}, fmt.Errorf("%w: %s for %s: %v", ErrFill, jsonText(v), d, err)
		}
		return Fill{Bytes: b}, nil
	case KindComplex:
		parts, ok := v.([]any)
		if !ok || len(parts) != 2 {
			return Fill{}, fmt.Errorf("%w: %s for %s: want [real, imag]", ErrFill, jsonText(v), d)
		}
		b := make([]byte, d.Size)
		half := d.Size / 2
		for i, p := range parts {
			if err := v3Float(b[i*half:(i+1)*half], byteOrder(d.Order), p); err != nil {
				return Fill{}, fmt.Errorf("%w: %s for %s: %v", ErrFill, jsonText(v), d, err)
			}
		}
		return Fill{Bytes: b}, nil
	}
	b, err := fillBytes(v, d)
	if err != nil {
		return Fill{}, fmt.Errorf("%w: %s for %s: %v", ErrFill, jsonText(v), d, err)
	}
	return Fill{Bytes: b}, nil
}

// v3Float stores one float fill: a "0x…" bit pattern as given, otherwise
// as putFloat does.
func v3Float(b []byte, order binary.ByteOrder, v any) error {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, "0x") {
		return putFloat(b, order, v)
	}
	if len(s) != 2+2*len(b) {
		return fmt.Errorf("bit pattern of %d hex digits for a %d-byte float", len(s)-2, len(b))
	}
	u, err := strconv.ParseUint(s[2:], 16, 64)
	if err != nil {
		return fmt.Errorf("bad bit pattern: %v", err)
	}
	PutUint(b, order, u)
	return nil
}

// v3StructFill encodes a struct fill: an object of the fields' fills, or
// (as zarr-python writes the legacy structured type) base64 of the item.
func v3StructFill(b []byte, v any, d DType) error {
	if _, ok := v.(string); ok {
		return fillBase64(b, v, true)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object of field values")
	}
	for _, f := range d.Fields {
		fv, ok := m[f.Name]
		if !ok {
			return fmt.Errorf("no value for field %q", f.Name)
		}
		ff, err := V3Fill(fv, f.DType)
		if err != nil {
			return fmt.Errorf("field %q: %w", f.Name, err)
		}
		copy(b[f.Offset:], ff.Bytes)
	}
	return nil
}
