package zarrmeta

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Kind is the category of a DType.
type Kind uint8

// The kinds of dtype. KindReference is not a numpy kind: it marks a field of
// a LINDI _COMPOUND_DTYPE (or an HDF5 compound member) that holds an object
// reference.
const (
	KindInvalid Kind = iota
	KindBool
	KindInt
	KindUint
	KindFloat
	KindComplex
	KindBytes   // numpy 'S': fixed-size, NUL-padded bytes
	KindUnicode // numpy 'U': fixed number of UTF-32 code units
	KindObject  // numpy 'O': Python objects (LINDI stores them as JSON)
	KindVoid    // numpy 'V': opaque bytes
	KindStruct  // a structured dtype with named fields
	KindReference
	KindDatetime  // numpy 'M': datetime64, an int64 count of Unit since 1970-01-01
	KindTimedelta // numpy 'm': timedelta64, an int64 count of Unit
)

var kindNames = [...]string{"invalid", "bool", "int", "uint", "float", "complex",
	"bytes", "unicode", "object", "void", "struct", "reference", "datetime", "timedelta"}

// String returns the kind's lowercase name, such as "int" or "struct".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ByteOrder is the byte order of a dtype's multi-byte numbers.
type ByteOrder uint8

// The byte orders. NoOrder applies to dtypes whose items have no byte order:
// one-byte numbers, bool, bytes, void, object and struct (whose fields carry
// their own order).
const (
	NoOrder ByteOrder = iota
	LittleEndian
	BigEndian
)

// String returns the numpy typestr prefix of the order: "<", ">" or "|".
func (o ByteOrder) String() string {
	switch o {
	case LittleEndian:
		return "<"
	case BigEndian:
		return ">"
	}
	return "|"
}

// NativeOrder is the byte order of the machine running the program. It is
// set when the package initialises; do not modify it.
var NativeOrder = func() ByteOrder {
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
		return LittleEndian
	}
	return BigEndian
}()

// maxItemSize bounds the size of one item; it keeps size products in range.
const maxItemSize = 1 << 30

// maxDTypeDepth bounds the nesting of structured dtypes.
const maxDTypeDepth = 16

// DType is a numpy dtype as Zarr v2 describes it.
type DType struct {
	// Kind is the category of the items.
	Kind Kind
	// Order is the byte order of numeric and unicode items; NoOrder for
	// the others.
	Order ByteOrder
	// Size is the size of one item in bytes. For KindUnicode it is four
	// times the number of characters; for KindObject and KindReference it
	// is 8, the size of numpy's object pointer.
	Size int
	// Fields lists the fields of a KindStruct dtype in declaration order.
	Fields []Field
	// Unit is the unit of a KindDatetime or KindTimedelta dtype, as numpy
	// writes it between brackets: "Y", "M", "W", "D", "h", "m", "s", "ms",
	// "us", "ns", "ps", "fs" or "as".
	Unit string
}

// Field is one named field of a structured dtype.
type Field struct {
	// Name is the field name.
	Name string
	// DType is the dtype of one element of the field.
	DType DType
	// Offset is the byte offset of the field within an item.
	Offset int
	// Shape is the subarray shape of the field, nil for a single element.
	Shape []int
}

// Count returns the number of elements in the field: the product of Shape.
func (f Field) Count() int {
	n := 1
	for _, d := range f.Shape {
		n *= d
	}
	return n
}

// ParseDType parses a dtype from its JSON form in .zarray: a string such as
// "<i2", "|b1", ">f8", "<c16", "|S8", "<U17", "|V12" or "|O", or a
// structured list such as [["a", "<i4"], ["b", "<f8", [2]]]. Fields named ""
// of a void type are numpy's padding: they advance the offset but are not
// fields. A typestr with "=" or no order character is in NativeOrder.
// Datetime and timedelta dtypes ("<M8[ns]") and long doubles are refused
// with ErrDType.
func ParseDType(raw json.RawMessage) (DType, error) {
	v, err := DecodeJSON(raw)
	if err != nil {
		return DType{}, fmt.Errorf("%w: %v", ErrDType, err)
	}
	return dtypeFromJSON(v, 0)
}

func dtypeFromJSON(v any, depth int) (DType, error) {
	switch v := v.(type) {
	case string:
		return parseTypestr(v)
	case []any:
		return parseStruct(v, depth)
	}
	return DType{}, fmt.Errorf("%w: %s is neither a string nor a list", ErrDType, jsonText(v))
}

// parseTypestr parses a numpy typestr: an optional byte order character,
// a kind character and a size.
func parseTypestr(s string) (DType, error) {
	order, rest := NativeOrder, s
	explicit := false
	if rest != "" {
		switch rest[0] {
		case '<':
			order, explicit = LittleEndian, true
		case '>':
			order, explicit = BigEndian, true
		case '|':
			order, explicit = NoOrder, true
		case '=':
			explicit = true
		}
		if explicit {
			rest = rest[1:]
		}
	}
	if rest == "" {
		return DType{}, fmt.Errorf("%w: %q has no kind", ErrDType, s)
	}
	kind, digits := rest[0], rest[1:]
	if kind == 'O' && (digits == "" || digits == "8") {
		return DType{Kind: KindObject, Size: 8}, nil
	}
	if kind == 'M' || kind == 'm' {
		return parseTime(s, kind, digits, order)
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 || n > maxItemSize || digits[0] == '+' || digits[0] == '0' {
		return DType{}, fmt.Errorf("%w: %q has no valid item size", ErrDType, s)
	}
	d, err := typestrKind(kind, n)
	if err != nil {
		return DType{}, fmt.Errorf("%w: %q: %v", ErrDType, s, err)
	}
	if d.Size == 1 || d.Kind == KindBytes || d.Kind == KindVoid {
		return d, nil
	}
	if order == NoOrder {
		return DType{}, fmt.Errorf("%w: %q: a %d-byte %s needs a byte order", ErrDType, s, d.Size, d.Kind)
	}
	d.Order = order
	return d, nil
}

// typestrKind maps a kind character and count to a DType without order.
func typestrKind(kind byte, n int) (DType, error) {
	pow2 := n == 1 || n == 2 || n == 4 || n == 8
	switch {
	case kind == 'b' && n == 1:
		return DType{Kind: KindBool, Size: 1}, nil
	case kind == 'i' && pow2:
		return DType{Kind: KindInt, Size: n}, nil
	case kind == 'u' && pow2:
		return DType{Kind: KindUint, Size: n}, nil
	case kind == 'f' && (n == 2 || n == 4 || n == 8):
		return DType{Kind: KindFloat, Size: n}, nil
	case kind == 'c' && (n == 8 || n == 16):
		return DType{Kind: KindComplex, Size: n}, nil
	case kind == 'S' || kind == 'a':
		return DType{Kind: KindBytes, Size: n}, nil
	case kind == 'U' && n <= maxItemSize/4:
		return DType{Kind: KindUnicode, Size: 4 * n}, nil
	case kind == 'V':
		return DType{Kind: KindVoid, Size: n}, nil
	case strings.IndexByte("biufcU", kind) >= 0:
		return DType{}, fmt.Errorf("unsupported item size %d", n)
	}
	return DType{}, fmt.Errorf("unknown kind %q", kind)
}

// parseStruct parses a structured dtype list.
func parseStruct(list []any, depth int) (DType, error) {
	if depth >= maxDTypeDepth {
		return DType{}, fmt.Errorf("%w: structured dtype nested deeper than %d", ErrDType, maxDTypeDepth)
	}
	if len(list) == 0 {
		return DType{}, fmt.Errorf("%w: structured dtype has no fields", ErrDType)
	}
	d := DType{Kind: KindStruct}
	seen := map[string]bool{}
	for _, item := range list {
		f, err := parseField(item, depth)
		if err != nil {
			return DType{}, err
		}
		size := f.DType.Size * f.Count()
		if f.Name != "" {
			if seen[f.Name] {
				return DType{}, fmt.Errorf("%w: duplicate field name %q", ErrDType, f.Name)
			}
			seen[f.Name] = true
			f.Offset = d.Size
			d.Fields = append(d.Fields, f)
		}
		if d.Size += size; d.Size > maxItemSize {
			return DType{}, fmt.Errorf("%w: structured dtype larger than %d bytes", ErrDType, maxItemSize)
		}
	}
	if len(d.Fields) == 0 {
		return DType{}, fmt.Errorf("%w: structured dtype has only padding", ErrDType)
	}
	if d.Size == 0 {
		return DType{}, fmt.Errorf("%w: structured dtype has zero size", ErrDType)
	}
	return d, nil
}

// parseField parses one [name, format] or [name, format, shape] entry.
// A padding entry is returned with an empty name.
func parseField(item any, depth int) (Field, error) {
	entry, ok := item.([]any)
	if !ok || len(entry) < 2 || len(entry) > 3 {
		return Field{}, fmt.Errorf("%w: field %s is not [name, dtype] or [name, dtype, shape]", ErrDType, jsonText(item))
	}
	name, err := fieldName(entry[0])
	if err != nil {
		return Field{}, err
	}
	dt, err := dtypeFromJSON(entry[1], depth+1)
	if err != nil {
		return Field{}, fmt.Errorf("field %q: %w", name, err)
	}
	f := Field{Name: name, DType: dt}
	if len(entry) == 3 {
		if f.Shape, err = subshape(entry[2], dt.Size); err != nil {
			return Field{}, fmt.Errorf("field %q: %w", name, err)
		}
	}
	if name == "" && (dt.Kind != KindVoid || f.Shape != nil) {
		return Field{}, fmt.Errorf("%w: field with an empty name is not void padding", ErrDType)
	}
	return f, nil
}

// fieldName accepts a name, or numpy's [title, name] pair.
func fieldName(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	if pair, ok := v.([]any); ok && len(pair) == 2 {
		if _, ok := pair[0].(string); ok {
			if s, ok := pair[1].(string); ok && s != "" {
				return s, nil
			}
		}
	}
	return "", fmt.Errorf("%w: field name %s is not a string", ErrDType, jsonText(v))
}

// subshape parses a field's subarray shape: an integer or a list of them.
// The element count times size must stay below maxItemSize.
func subshape(v any, size int) ([]int, error) {
	dims, ok := v.([]any)
	if !ok {
		dims = []any{v}
	}
	shape := make([]int, 0, len(dims))
	count := size
	for _, d := range dims {
		n, ok := d.(int64)
		if !ok || n < 0 || n > maxItemSize {
			return nil, fmt.Errorf("%w: bad subarray shape %s", ErrDType, jsonText(v))
		}
		if n > 0 && count > maxItemSize/int(n) {
			return nil, fmt.Errorf("%w: subarray shape %s too large", ErrDType, jsonText(v))
		}
		count *= int(n)
		shape = append(shape, int(n))
	}
	if len(shape) == 0 {
		return nil, nil
	}
	return shape, nil
}

// jsonText renders a decoded JSON value for error messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// timeUnits are numpy's datetime64 and timedelta64 units.
var timeUnits = map[string]bool{"Y": true, "M": true, "W": true, "D": true, "h": true, "m": true,
	"s": true, "ms": true, "us": true, "ns": true, "ps": true, "fs": true, "as": true}

// parseTime parses the rest of a datetime64 ("M") or timedelta64 ("m")
// typestr: "8[unit]". Generic units (no brackets) and multiples ("10s")
// are not supported.
func parseTime(s string, kind byte, rest string, order ByteOrder) (DType, error) {
	unit, ok := strings.CutPrefix(rest, "8[")
	if !ok || !strings.HasSuffix(unit, "]") || !timeUnits[strings.TrimSuffix(unit, "]")] {
		return DType{}, fmt.Errorf("%w: %q: datetime64 and timedelta64 need 8 bytes and a unit such as [s] or [ns]", ErrDType, s)
	}
	if order == NoOrder {
		return DType{}, fmt.Errorf("%w: %q needs a byte order", ErrDType, s)
	}
	d := DType{Kind: KindDatetime, Order: order, Size: 8, Unit: strings.TrimSuffix(unit, "]")}
	if kind == 'm' {
		d.Kind = KindTimedelta
	}
	return d, nil
}
