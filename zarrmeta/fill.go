package zarrmeta

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"
)

// Fill is a decoded fill_value: the value of every element of a chunk that
// is not stored.
type Fill struct {
	// Null reports that fill_value was null (or absent): the array has no
	// fill value. Zarr readers then leave missing chunks uninitialised,
	// which in practice, and in this package's advice, means zeros: Bytes
	// holds Size zero bytes so callers can use it unconditionally.
	Null bool
	// Bytes is one item in the dtype's own byte order (not necessarily
	// native). It is nil for object and reference dtypes, whose items
	// have no byte representation.
	Bytes []byte
	// Object is the fill value of an object dtype as decoded JSON (see
	// DecodeJSON). LINDI and numcodecs write 0 for object arrays, meaning
	// the empty string, so 0 decodes to "". It is nil for other dtypes and
	// when Null is set.
	Object any
}

// ParseFill decodes fill_value (raw JSON, nil meaning absent) for dtype d:
// numbers, booleans, null, the strings "NaN", "Infinity" and "-Infinity"
// (or Python's bare tokens) for floats, [real, imag] for complex numbers,
// base64 for bytes (|S, shorter values are NUL-padded), void and struct
// items, the text itself for unicode (<U), and any JSON value for objects.
// Integer values must be integral and in range for the dtype.
func ParseFill(raw json.RawMessage, d DType) (Fill, error) {
	var v any
	if len(raw) > 0 {
		var err error
		if v, err = DecodeJSON(raw); err != nil {
			return Fill{}, fmt.Errorf("%w: %v", ErrFill, err)
		}
	}
	if d.Size <= 0 || d.Size > maxItemSize {
		return Fill{}, fmt.Errorf("%w: dtype %s has no valid item size", ErrFill, d)
	}
	if d.Kind == KindObject || d.Kind == KindReference {
		if v == nil {
			return Fill{Null: true}, nil
		}
		if n, ok := v.(int64); ok && n == 0 {
			v = ""
		}
		return Fill{Object: v}, nil
	}
	if v == nil {
		return Fill{Null: true, Bytes: make([]byte, d.Size)}, nil
	}
	b, err := fillBytes(v, d)
	if err != nil {
		return Fill{}, fmt.Errorf("%w: %s for dtype %s: %v", ErrFill, jsonText(v), d, err)
	}
	return Fill{Bytes: b}, nil
}

// fillBytes encodes a non-null fill value as one item of d.
func fillBytes(v any, d DType) ([]byte, error) {
	order := byteOrder(d.Order)
	b := make([]byte, d.Size)
	switch d.Kind {
	case KindBool:
		t, err := fillBool(v)
		if t {
			b[0] = 1
		}
		return b, err
	case KindInt, KindUint:
		u, err := fillInt(v, d)
		PutUint(b, order, u)
		return b, err
	case KindDatetime, KindTimedelta: // an int64 count; NaT is math.MinInt64
		u, err := fillInt(v, DType{Kind: KindInt, Size: 8})
		PutUint(b, order, u)
		return b, err
	case KindFloat:
		return b, putFloat(b, order, v)
	case KindComplex:
		return b, fillComplex(b, order, v)
	case KindUnicode:
		return b, fillUnicode(b, order, v)
	case KindBytes, KindVoid, KindStruct:
		return b, fillBase64(b, v, d.Kind == KindStruct)
	}
	return nil, fmt.Errorf("unsupported dtype kind %s", d.Kind)
}

func byteOrder(o ByteOrder) binary.ByteOrder {
	if o == BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func fillBool(v any) (bool, error) {
	switch v := v.(type) {
	case bool:
		return v, nil
	case int64:
		if v == 0 || v == 1 {
			return v == 1, nil
		}
	}
	return false, fmt.Errorf("not a boolean")
}

// fillInt returns the two's complement bits of an integral value that fits
// the integer dtype d.
func fillInt(v any, d DType) (uint64, error) {
	bits := uint(8 * d.Size)
	var neg bool
	var mag uint64
	switch v := v.(type) {
	case int64:
		neg, mag = v < 0, uint64(v)
		if neg {
			mag = -mag
		}
	case uint64:
		mag = v
	case float64:
		if v != math.Trunc(v) || math.IsInf(v, 0) || math.Abs(v) >= 1<<64 {
			return 0, fmt.Errorf("not an integer")
		}
		neg, mag = v < 0, uint64(math.Abs(v))
	default:
		return 0, fmt.Errorf("not an integer")
	}
	if d.Kind == KindUint {
		if neg && mag != 0 || bits < 64 && mag >= 1<<bits {
			return 0, fmt.Errorf("out of range")
		}
		return mag, nil
	}
	limit := uint64(1) << (bits - 1) // |min|; max is limit-1
	if neg && mag > limit || !neg && mag >= limit {
		return 0, fmt.Errorf("out of range")
	}
	if neg {
		return -mag, nil
	}
	return mag, nil
}

// PutUint stores the low len(b) bytes of u in b, in order; b holds 1, 2, 4
// or 8 bytes (other lengths are left untouched).
func PutUint(b []byte, order binary.ByteOrder, u uint64) {
	switch len(b) {
	case 1:
		b[0] = byte(u)
	case 2:
		order.PutUint16(b, uint16(u))
	case 4:
		order.PutUint32(b, uint32(u))
	case 8:
		order.PutUint64(b, u)
	}
}

// fillFloat reads a float fill: a number or a non-finite spelling.
func fillFloat(v any) (float64, error) {
	switch v := v.(type) {
	case float64:
		return v, nil
	case int64:
		return float64(v), nil
	case uint64:
		return float64(v), nil
	case string:
		switch v {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
	}
	return 0, fmt.Errorf("not a number")
}

// putFloat stores a float fill in b (2, 4 or 8 bytes). NaN is stored as
// numpy's canonical quiet NaN so missing chunks match numpy bit for bit.
func putFloat(b []byte, order binary.ByteOrder, v any) error {
	f, err := fillFloat(v)
	if err != nil {
		return err
	}
	switch len(b) {
	case 2:
		h, ok := float16Bits(f)
		if !ok {
			return fmt.Errorf("out of range for float16")
		}
		order.PutUint16(b, h)
	case 4:
		bits := math.Float32bits(float32(f))
		if math.IsNaN(f) {
			bits = 0x7fc00000
		} else if !math.IsInf(f, 0) && math.IsInf(float64(float32(f)), 0) {
			return fmt.Errorf("out of range for float32")
		}
		order.PutUint32(b, bits)
	case 8:
		bits := math.Float64bits(f)
		if math.IsNaN(f) {
			bits = 0x7ff8000000000000
		}
		order.PutUint64(b, bits)
	default:
		return fmt.Errorf("unsupported float size %d", len(b))
	}
	return nil
}

func fillComplex(b []byte, order binary.ByteOrder, v any) error {
	parts, ok := v.([]any)
	if !ok {
		parts = []any{v, int64(0)}
	}
	if len(parts) != 2 {
		return fmt.Errorf("complex fill needs [real, imag]")
	}
	half := len(b) / 2
	if err := putFloat(b[:half], order, parts[0]); err != nil {
		return err
	}
	return putFloat(b[half:], order, parts[1])
}

// fillUnicode encodes the text as UTF-32 in the dtype's order, NUL-padded.
func fillUnicode(b []byte, order binary.ByteOrder, v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("not a string")
	}
	if n := utf8.RuneCountInString(s); n > len(b)/4 {
		return fmt.Errorf("%d characters do not fit", n)
	}
	i := 0
	for _, r := range s {
		order.PutUint32(b[i:], uint32(r))
		i += 4
	}
	return nil
}

// fillBase64 decodes base64 text into b, NUL-padding a shorter value unless
// exact is set.
func fillBase64(b []byte, v any, exact bool) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("not a base64 string")
	}
	if base64.StdEncoding.DecodedLen(len(s)) > len(b)+3 {
		return fmt.Errorf("longer than the %d-byte item", len(b))
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("bad base64: %v", err)
	}
	if len(raw) > len(b) || exact && len(raw) != len(b) {
		return fmt.Errorf("%d bytes for a %d-byte item", len(raw), len(b))
	}
	copy(b, raw)
	return nil
}

// roundShift returns x >> s rounded half to even.
func roundShift(x uint64, s uint) uint64 {
	q := x >> s
	rem := x & (1<<s - 1)
	half := uint64(1) << (s - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}
