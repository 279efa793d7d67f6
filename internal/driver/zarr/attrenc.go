package zarr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/lindigo/lindi/internal/pyfloat"
)

// errAttrValue is the cause of every refused attribute value.
var errAttrValue = errors.New("unsupported attribute value")

// encodeAttr writes v as Python lindi writes an attribute value: integers
// as integers, floats always with a fraction or exponent (30000.0, so that
// they read back as floats), NaN and ±Inf as the strings "NaN",
// "Infinity", "-Infinity", those exact strings refused as strings, and
// slices as homogeneous nested lists (an empty one reads as int64).
func encodeAttr(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := appendAttr(&b, reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var (
	rawType   = reflect.TypeFor[json.RawMessage]()
	bytesType = reflect.TypeFor[[]byte]()
)

func appendAttr(b *bytes.Buffer, v reflect.Value) error {
	switch {
	case !v.IsValid():
		return fmt.Errorf("%w: nil", errAttrValue)
	case v.Type() == rawType:
		b.Write(v.Bytes()) // a value prepared already (a reference object)
		return nil
	case v.Type() == bytesType:
		return appendString(b, string(v.Bytes())) // as lindi: bytes are UTF-8 text
	}
	switch v.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		appendFloat(b, v.Float())
	case reflect.String:
		return appendString(b, v.String())
	case reflect.Slice, reflect.Array:
		return appendList(b, v)
	default:
		return fmt.Errorf("%w: %s", errAttrValue, v.Kind())
	}
	return nil
}

func appendFloat(b *bytes.Buffer, f float64) {
	switch {
	case math.IsNaN(f):
		b.WriteString(`"NaN"`)
	case math.IsInf(f, 1):
		b.WriteString(`"Infinity"`)
	case math.IsInf(f, -1):
		b.WriteString(`"-Infinity"`)
	default:
		b.Write(pyfloat.Append(nil, f, 64))
	}
}

func appendString(b *bytes.Buffer, s string) error {
	switch s {
	case "NaN", "Infinity", "-Infinity":
		return fmt.Errorf("%w: the string %q is reserved for a float", errAttrValue, s)
	}
	q, err := json.Marshal(s)
	if err != nil {
		return err
	}
	b.Write(q)
	return nil
}

// appendList writes a slice, refusing elements of different kinds (the
// lists lindi can give a numpy dtype).
func appendList(b *bytes.Buffer, v reflect.Value) error {
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Interface {
		if err := homogeneous(v); err != nil {
			return err
		}
	}
	b.WriteByte('[')
	for i := range v.Len() {
		if i > 0 {
			b.WriteByte(',')
		}
		e := v.Index(i)
		if e.Kind() == reflect.Interface {
			e = e.Elem()
		}
		if err := appendAttr(b, e); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

func homogeneous(v reflect.Value) error {
	var first reflect.Type
	for i := range v.Len() {
		e := v.Index(i).Elem()
		if !e.IsValid() {
			return fmt.Errorf("%w: nil list element", errAttrValue)
		}
		if first == nil {
			first = e.Type()
		} else if e.Type() != first {
			return fmt.Errorf("%w: mixed list of %s and %s", errAttrValue, first, e.Type())
		}
	}
	return nil
}
