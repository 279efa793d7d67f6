package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/pyfloat"
	"github.com/lindigo/lindi/zarrmeta"
)

// formatValue renders an attribute value or an element for people.
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	case float64:
		return textFloat(x, 64)
	case float32:
		return textFloat(float64(x), 32)
	case complex128:
		return textComplex(x, 64)
	case complex64:
		return textComplex(complex128(x), 32)
	case map[string]any:
		b, err := json.Marshal(jsonValue(x)) // a JSON object attribute, as JSON
		if err != nil {
			return "<error: " + printable(err.Error()) + ">"
		}
		return printable(string(b))
	case timeText:
		return printable(string(x))
	case h5.Datetime, h5.Timedelta:
		return fmt.Sprint(x) // as numpy prints it: 2024-01-02T03:04:05, 1500 milliseconds
	case opaque:
		return hex.EncodeToString(x)
	case record:
		parts := make([]string, len(x.names))
		for i, n := range x.names {
			parts[i] = printable(n) + ": " + formatValue(x.vals[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case h5.Reference:
		return "<ref " + printable(x.Path) + ">"
	case h5.RegionReference:
		return "<region " + printable(regionText(x)) + ">"
	case []byte:
		return fmt.Sprintf("b%q", x)
	case error:
		return "<error: " + printable(x.Error()) + ">"
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice {
		parts := make([]string, rv.Len())
		for i := range parts {
			parts[i] = formatValue(rv.Index(i).Interface())
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// attrForm marks the bytes in an attribute value as opaque (numpy void),
// the only attribute values that are bytes, so that they show as hex.
func attrForm(v any) any {
	switch x := v.(type) {
	case []byte:
		return opaque(x)
	case [][]byte:
		out := make([]any, len(x))
		for i, b := range x {
			out[i] = opaque(b)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = attrForm(e)
		}
		return out
	}
	return v
}

// jsonValue makes a value encodable by encoding/json: floats spelled as
// jsonFloat spells them, complex numbers {"real": …, "imag": …}, references
// {"reference": path}.
func jsonValue(v any) any {
	switch x := v.(type) {
	case float64:
		return jsonNumber{x, 64}
	case float32:
		return jsonNumber{float64(x), 32}
	case complex128:
		return map[string]jsonNumber{"real": {real(x), 64}, "imag": {imag(x), 64}}
	case complex64:
		return map[string]jsonNumber{"real": {float64(real(x)), 32}, "imag": {float64(imag(x)), 32}}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case record:
		return x
	case timeText:
		return string(x)
	case h5.Datetime:
		return x.String()
	case h5.Timedelta:
		if x.Count == h5.NaT {
			return "NaT"
		}
		return x.Count // as a timedelta64 dataset's elements
	case opaque:
		return hex.EncodeToString(x)
	case h5.Reference:
		return map[string]string{"reference": x.Path}
	case h5.RegionReference:
		return map[string]string{"region": regionText(x)}
	case []byte:
		return string(x)
	case error:
		return map[string]string{"error": x.Error()}
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = jsonValue(rv.Index(i).Interface())
		}
		return out
	}
	return v
}

// Numbers are spelled once per output format:
//
//   - text and CSV: floats as numpy prints a float64 or float32 scalar
//     (Python's repr: the shortest digits that read back, positional for
//     decimal exponents from -4 to 15 with ".0" when integral, else
//     scientific: 30000.0, 0.0001, 1e-05, 1.5e+20), non-finite ones as nan,
//     inf and -inf; complex numbers as numpy prints them, (1+2j);
//   - JSON: the same digits, a valid JSON number, non-finite floats as the
//     strings "NaN", "Infinity" and "-Infinity" (as LINDI stores them:
//     JSON has no such numbers).

// textFloat spells a float for text and CSV.
func textFloat(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return pyfloat.Repr(x, bits)
}

// jsonFloat spells a float for JSON.
func jsonFloat(x float64, bits int) string {
	if s := zarrmeta.NonFiniteName(x); s != "" {
		return strconv.Quote(s)
	}
	return pyfloat.Repr(x, bits)
}

// jsonNumber is a float that encoding/json writes as jsonFloat spells it.
type jsonNumber struct {
	x    float64
	bits int
}

// MarshalJSON writes the number as jsonFloat spells it.
func (n jsonNumber) MarshalJSON() ([]byte, error) { return []byte(jsonFloat(n.x, n.bits)), nil }

// textComplex spells a complex number as numpy and Python do: (1+2j), 2j
// when the real part is +0, each part without a ".0".
func textComplex(c complex128, bits int) string {
	part := func(x float64) string {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strings.TrimPrefix(textFloat(x, bits), "-")
		}
		return strings.TrimSuffix(pyfloat.Repr(math.Abs(x), bits), ".0")
	}
	re, im := real(c), imag(c)
	sign := "+"
	if math.Signbit(im) {
		sign = "-"
	}
	if re == 0 && !math.Signbit(re) {
		return strings.TrimPrefix(sign, "+") + part(im) + "j"
	}
	reSign := ""
	if math.Signbit(re) {
		reSign = "-"
	}
	return "(" + reSign + part(re) + sign + part(im) + "j)"
}

// elements returns the elements of an array as Go values: int64, uint64,
// float32, float64, complex64, complex128, bool, string, h5.Reference, a
// timeText for datetime64 (timedelta64 is its int64 count), or a record for
// compound elements.
func elements(a *h5.Array) ([]any, error) {
	if a.Objects != nil {
		return a.Objects, nil
	}
	dt := a.DType
	switch dt.Kind {
	case zarrmeta.KindBytes, zarrmeta.KindUnicode:
		s, err := h5.As[string](a)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(s.Data))
		for i, x := range s.Data {
			out[i] = x
		}
		return out, nil
	}
	n := a.Len()
	out := make([]any, n)
	for i := range n {
		v, err := element(a.Data[i*dt.Size:(i+1)*dt.Size], dt)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// element decodes one native-order element of dt.
func element(b []byte, dt zarrmeta.DType) (any, error) {
	ne := binary.NativeEndian
	switch {
	case dt.Kind == zarrmeta.KindBool:
		return b[0] != 0, nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 1:
		return int64(int8(b[0])), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 2:
		return int64(int16(ne.Uint16(b))), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 4:
		return int64(int32(ne.Uint32(b))), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 8:
		return int64(ne.Uint64(b)), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 1:
		return uint64(b[0]), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 2:
		return uint64(ne.Uint16(b)), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 4:
		return uint64(ne.Uint32(b)), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 8:
		return ne.Uint64(b), nil
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 4:
		return math.Float32frombits(ne.Uint32(b)), nil
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 8:
		return math.Float64frombits(ne.Uint64(b)), nil
	case dt.Kind == zarrmeta.KindComplex && dt.Size == 8:
		return complex(math.Float32frombits(ne.Uint32(b)), math.Float32frombits(ne.Uint32(b[4:]))), nil
	case dt.Kind == zarrmeta.KindComplex && dt.Size == 16:
		return complex(math.Float64frombits(ne.Uint64(b)), math.Float64frombits(ne.Uint64(b[8:]))), nil
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 2:
		t, err := h5.As[float64](&h5.Array{DType: dt, Shape: []int{}, Data: b})
		if err != nil {
			return nil, err
		}
		return t.Data[0], nil
	case dt.Kind == zarrmeta.KindStruct:
		row := record{names: fieldNames(dt), vals: make([]any, len(dt.Fields))}
		for i, f := range dt.Fields {
			v, err := subarray(b[f.Offset:f.Offset+f.DType.Size*f.Count()], f.DType, f.Shape)
			if err != nil {
				return nil, err
			}
			row.vals[i] = v
		}
		return row, nil
	case dt.Kind == zarrmeta.KindVoid:
		return opaque(append([]byte(nil), b...)), nil
	case dt.Kind == zarrmeta.KindBytes:
		// numpy's S n drops trailing NULs, as h5py reads a field of it.
		return append([]byte(nil), bytes.TrimRight(b, "\x00")...), nil
	case dt.Kind == zarrmeta.KindDatetime && dt.Size == 8:
		return datetimeText(b, dt)
	case dt.Kind == zarrmeta.KindTimedelta && dt.Size == 8:
		// A count of the dtype's unit, as numpy prints a timedelta64 array.
		if n := int64(ne.Uint64(b)); n != h5.NaT {
			return n, nil
		}
		return timeText("NaT"), nil
	case dt.Kind == zarrmeta.KindReference:
		// A reference's stored bytes, as a fill value holds them (reads
		// resolve references to paths): only the null reference is known.
		if !slices.ContainsFunc(b, func(c byte) bool { return c != 0 }) {
			return nil, nil
		}
		return fmt.Errorf("an unresolved reference %x", b), nil
	}
	return nil, fmt.Errorf("cannot show elements of dtype %s", dt)
}

// subarray decodes a field's elements as nested lists of its shape; a
// field of no shape is one element.
func subarray(b []byte, dt zarrmeta.DType, shape []int) (any, error) {
	if len(shape) == 0 {
		return element(b, dt)
	}
	out := make([]any, shape[0])
	step := len(b) / max(shape[0], 1)
	for i := range out {
		v, err := subarray(b[i*step:(i+1)*step], dt, shape[1:])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// opaque is an element of an opaque (numpy void) dtype: shown as hex.
type opaque []byte

// timeText is a datetime64 (or NaT) as numpy prints it: bare in text and
// CSV, a string in JSON.
type timeText string

// datetimeText decodes one native-order datetime64 element.
func datetimeText(b []byte, dt zarrmeta.DType) (any, error) {
	d := h5.Datetime{Count: int64(binary.NativeEndian.Uint64(b)), Unit: dt.Unit}
	if _, err := d.Time(); err != nil {
		return nil, err
	}
	return timeText(d.String()), nil
}

// regionText shows a region reference as its dataset and selection
// ("/grid[1:3, 2:5]"), or its points or blocks when it is no selection.
func regionText(r h5.RegionReference) string {
	if sel, err := r.Selection(); err == nil {
		return r.Path + "[" + sel.String() + "]"
	}
	if len(r.Points) > 0 {
		return fmt.Sprintf("%s points %v", r.Path, r.Points)
	}
	return fmt.Sprintf("%s blocks %v", r.Path, r.Blocks)
}

// record is a compound element: its fields' names and values, in order.
type record struct {
	names []string
	vals  []any
}

// MarshalJSON writes the record as an object with its fields in order.
func (r record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, n := range r.names {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(n)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(jsonValue(r.vals[i]))
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func fieldNames(dt zarrmeta.DType) []string {
	names := make([]string, len(dt.Fields))
	for i, f := range dt.Fields {
		names[i] = f.Name
	}
	return names
}

// asRecord names the fields of a compound row kept as an object ([]any in
// field order); other values pass unchanged.
func asRecord(v any, dt zarrmeta.DType) any {
	row, ok := v.([]any)
	if !ok || dt.Kind != zarrmeta.KindStruct || len(row) != len(dt.Fields) {
		return v
	}
	return record{names: fieldNames(dt), vals: row}
}

// shapeText is a dataset's shape as a Python tuple, or "empty" for a null
// dataspace (h5py's Empty, whose shape is None).
func shapeText(d *h5.Dataset) string {
	if d.Null() {
		return "empty"
	}
	return zarrmeta.Tuple(d.Shape())
}

// writeNull writes a dataset with a null dataspace, which has no array to
// write: null in JSON, "empty" in text, nothing in CSV.
func writeNull(w io.Writer, format string, d *h5.Dataset) error {
	var err error
	switch format {
	case "npy":
		return fmt.Errorf("%s has a null dataspace (h5py's Empty): no array to write as .npy", printable(d.Path()))
	case "json":
		_, err = io.WriteString(w, "null\n")
	case "text":
		_, err = fmt.Fprintf(w, "# shape empty, dtype %s\nempty\n", printable(d.DType().String()))
	}
	return err
}

// datatypeLine is ls's line for a committed datatype: its dtype, as h5ls
// lists a "Type".
func datatypeLine(path string, t *h5.Datatype) []string {
	if err := t.Err(); err != nil {
		return []string{path, "datatype", "unreadable: " + printable(err.Error())}
	}
	return []string{path, "datatype", printable(t.DType().String())}
}
