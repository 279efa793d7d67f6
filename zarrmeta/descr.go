package zarrmeta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

var kindChars = [...]byte{KindBool: 'b', KindInt: 'i', KindUint: 'u', KindFloat: 'f',
	KindComplex: 'c', KindBytes: 'S', KindUnicode: 'U', KindObject: 'O', KindVoid: 'V',
	KindReference: 'O', KindDatetime: 'M', KindTimedelta: 'm'}

// typestr returns the numpy typestr of a non-struct dtype, like "<i2".
func (d DType) typestr() string {
	order := byte('|')
	switch d.Order {
	case LittleEndian:
		order = '<'
	case BigEndian:
		order = '>'
	}
	if d.Kind == KindObject || d.Kind == KindReference {
		return "|O"
	}
	var c byte = '?'
	if int(d.Kind) < len(kindChars) && kindChars[d.Kind] != 0 {
		c = kindChars[d.Kind]
	}
	n := d.Size
	if d.Kind == KindUnicode {
		n /= 4
	}
	if d.Kind == KindDatetime || d.Kind == KindTimedelta {
		return string([]byte{order, c}) + strconv.Itoa(n) + "[" + d.Unit + "]"
	}
	return string([]byte{order, c}) + strconv.Itoa(n)
}

// String returns the dtype as numpy writes it in a .npy header: a typestr
// such as "<i2" or "|S8", or for a struct a Python list such as
// "[('a', '<i4'), ('b', '<f8', (2,))]", with (”, '|Vn') entries for the
// padding between and after fields. KindReference fields are written as
// "|O", numpy's type for the objects they hold.
func (d DType) String() string {
	if d.Kind != KindStruct {
		return d.typestr()
	}
	var b strings.Builder
	b.WriteByte('[')
	d.eachEntry(func(i int, name string, dt *DType, shape []int, pad int) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		b.WriteString(pyQuote(name))
		b.WriteString(", ")
		if dt == nil {
			b.WriteString("'|V" + strconv.Itoa(pad) + "'")
		} else if dt.Kind == KindStruct {
			b.WriteString(dt.String())
		} else {
			b.WriteString(pyQuote(dt.typestr()))
		}
		if len(shape) > 0 {
			b.WriteString(", " + Tuple(shape))
		}
		b.WriteByte(')')
	})
	b.WriteByte(']')
	return b.String()
}

// eachEntry calls fn for each entry of a struct's descr list in order,
// with dt nil and pad > 0 for a padding entry.
func (d DType) eachEntry(fn func(i int, name string, dt *DType, shape []int, pad int)) {
	i, end := 0, 0
	for k := range d.Fields {
		f := &d.Fields[k]
		if f.Offset > end {
			fn(i, "", nil, nil, f.Offset-end)
			i++
		}
		fn(i, f.Name, &f.DType, f.Shape, 0)
		i++
		end = max(end, f.Offset+f.DType.Size*f.Count())
	}
	if d.Size > end {
		fn(i, "", nil, nil, d.Size-end)
	}
}

// pyQuote quotes s as a Python string literal in single quotes.
func pyQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// Tuple formats a shape as numpy writes it, a Python tuple: (), (2,) or (2, 3).
func Tuple(shape []int) string {
	parts := make([]string, len(shape))
	for i, n := range shape {
		parts[i] = strconv.Itoa(n)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// MarshalJSON returns the dtype in the JSON form of .zarray: a string for a
// simple dtype, a list of [name, dtype] or [name, dtype, shape] entries for
// a struct, with ["", "|Vn"] entries for padding. ParseDType reads it back.
// The '<' and '>' of typestrs are written as is; encoding/json escapes them
// as \u003c and \u003e when d is marshalled inside another value, which is
// equally valid JSON.
func (d DType) MarshalJSON() ([]byte, error) {
	if d.Kind != KindStruct {
		return marshalPlain(d.typestr())
	}
	var entries []any
	var err error
	d.eachEntry(func(_ int, name string, dt *DType, shape []int, pad int) {
		var e []any
		switch {
		case dt == nil:
			e = []any{"", "|V" + strconv.Itoa(pad)}
		case dt.Kind == KindStruct:
			var sub []byte
			if sub, err = dt.MarshalJSON(); err == nil {
				e = []any{name, json.RawMessage(sub)}
			}
		default:
			e = []any{name, dt.typestr()}
		}
		if len(shape) > 0 {
			e = append(e, shape)
		}
		entries = append(entries, e)
	})
	if err != nil {
		return nil, err
	}
	return marshalPlain(entries)
}

// marshalPlain is json.Marshal without escaping '<' and '>', which every
// little- and big-endian typestr contains.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Equal reports whether d and o describe the same dtype, fields included.
func (d DType) Equal(o DType) bool {
	if d.Kind != o.Kind || d.Order != o.Order || d.Size != o.Size || d.Unit != o.Unit || len(d.Fields) != len(o.Fields) {
		return false
	}
	for i, f := range d.Fields {
		g := o.Fields[i]
		if f.Name != g.Name || f.Offset != g.Offset || !slices.Equal(f.Shape, g.Shape) || !f.DType.Equal(g.DType) {
			return false
		}
	}
	return true
}

// Field returns the field called name of a struct dtype.
func (d DType) Field(name string) (Field, bool) {
	for _, f := range d.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// HoldsObjects reports whether an item of d holds Python objects: d is an
// object or reference dtype, or a struct with such a field at any depth.
// Such an item has no bytes to fill with.
func (d DType) HoldsObjects() bool {
	if d.Kind == KindObject || d.Kind == KindReference {
		return true
	}
	for _, f := range d.Fields {
		if f.DType.HoldsObjects() {
			return true
		}
	}
	return false
}

// HoldsVarLen reports whether d is, or has at any depth, a variable-length
// member (KindObject: a string or a sequence). Unlike HoldsObjects it does
// not count references, whose zero bytes are a null reference: an element
// of numbers and references has a fill value, one with a string has none.
func (d DType) HoldsVarLen() bool {
	if d.Kind == KindObject {
		return true
	}
	for _, f := range d.Fields {
		if f.DType.HoldsVarLen() {
			return true
		}
	}
	return false
}
