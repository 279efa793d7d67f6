package zarr

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/zarrmeta"
)

// userAttrs converts the user attributes of a .zattrs document.
func (t *tree) userAttrs(za zarrmeta.Attrs) (map[string]any, error) {
	vals, err := userAttrs(za)
	if err != nil || t.lindi == nil {
		return vals, err
	}
	// LINDI stores a NaN or infinite float attribute as the string "NaN",
	// "Infinity" or "-Infinity" and refuses those strings as strings: they
	// read as the floats they stand for, as in Python lindi.
	for k, v := range vals {
		if s, ok := v.(string); ok {
			if f, ok := nonFinite(s); ok {
				vals[k] = f
			}
		}
	}
	return vals, nil
}

// nonFinite is the float LINDI's string s stands for.
func nonFinite(s string) (float64, bool) {
	switch s {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	return 0, false
}

func userAttrs(za zarrmeta.Attrs) (map[string]any, error) {
	vals := make(map[string]any, za.Len())
	for _, name := range za.Names() {
		v, _ := za.Get(name)
		x, err := fromJSON(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		vals[name] = x
	}
	return vals, nil
}

// jsonItems turns the decoded JSON items of an object array into Go values
// and, for LINDI's _COMPOUND_DTYPE rows of fixed-size fields (rows set),
// packs them into elements of dtype.
type jsonItems struct {
	rows  bool
	dtype zarrmeta.DType
}

func (it jsonItems) Items(_ context.Context, _ []byte, objs []any) ([]any, []byte, error) {
	for i, v := range objs {
		x, err := fromJSON(v)
		if err != nil {
			return nil, nil, fmt.Errorf("element %d: %w", i, err)
		}
		objs[i] = x
	}
	if !it.rows || !it.dtype.Fixed() {
		return objs, nil, nil
	}
	size := it.dtype.Size
	data := make([]byte, len(objs)*size)
	for i, row := range objs {
		if err := packRow(data[i*size:(i+1)*size], it.dtype, row); err != nil {
			return nil, nil, fmt.Errorf("row %d: %w", i, err)
		}
	}
	return nil, data, nil
}

// fromJSON turns decoded JSON into the documented values: LINDI's
// {"_REFERENCE": …} objects into Refs and json.Numbers into int64, uint64 or
// float64, recursively through lists and objects.
func fromJSON(v any) (any, error) {
	if n, ok := v.(json.Number); ok {
		return number(n)
	}
	r, ok, err := zarrmeta.AsReference(v)
	if err != nil {
		return nil, err
	}
	if ok {
		return driver.Ref{Path: r.Path}, nil
	}
	o, ok, err := zarrmeta.AsOpaque(v)
	if err != nil {
		return nil, err
	}
	if ok {
		return opaqueValue(o), nil
	}
	switch x := v.(type) {
	case []any:
		for i := range x {
			if x[i], err = fromJSON(x[i]); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		// An object attribute: the index writes a compound element so.
		for k, e := range x {
			if x[k], err = fromJSON(e); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// opaqueValue gives an opaque attribute the values the HDF5 driver gives
// the attribute it came from: Times for h5py's datetime64 and timedelta64,
// else bytes; a 1-D array as a typed slice, more dimensions as nested
// lists of them.
func opaqueValue(o zarrmeta.Opaque) any {
	dt := o.DType
	if o.Shape == nil {
		return opaqueItem(o.Items[0], dt)
	}
	return nestOpaque(o.Items, o.Shape, dt)
}

func nestOpaque(items []any, shape []int, dt zarrmeta.DType) any {
	if len(shape) == 1 {
		if dt.Kind == zarrmeta.KindVoid {
			out := make([][]byte, len(items))
			for i, it := range items {
				out[i] = it.([]byte)
			}
			return out
		}
		out := make([]driver.Time, len(items))
		for i, it := range items {
			out[i] = opaqueItem(it, dt).(driver.Time)
		}
		return out
	}
	step := len(items) / max(shape[0], 1)
	out := make([]any, shape[0])
	for i := range out {
		out[i] = nestOpaque(items[i*step:(i+1)*step], shape[1:], dt)
	}
	return out
}

// opaqueItem is one element: an int64 count becomes a Time, bytes stay.
func opaqueItem(it any, dt zarrmeta.DType) any {
	if n, ok := it.(int64); ok {
		return driver.Time{Count: n, Unit: dt.Unit, Delta: dt.Kind == zarrmeta.KindTimedelta}
	}
	return it
}

// number converts a JSON number: int64 or uint64 for an integer literal in
// range, float64 otherwise.
func number(n json.Number) (any, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("%w: number %q: %v", driver.ErrFormat, s, err)
	}
	return f, nil
}

// unicodeItems turns fixed-size UTF-32 elements ("<U n") into strings,
// dropping trailing NULs as numpy does.
type unicodeItems struct{ dtype zarrmeta.DType }

func (u unicodeItems) Items(_ context.Context, raw []byte, _ []any) ([]any, []byte, error) {
	size := u.dtype.Size
	if size == 0 || len(raw)%size != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes of %s elements", driver.ErrFormat, len(raw), u.dtype)
	}
	out := make([]any, len(raw)/size)
	for i := range out {
		s, err := u.decode(raw[i*size : (i+1)*size])
		if err != nil {
			return nil, nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = s
	}
	return out, nil, nil
}

func (u unicodeItems) decode(b []byte) (string, error) {
	var order binary.ByteOrder = binary.LittleEndian
	if u.dtype.Order == zarrmeta.BigEndian {
		order = binary.BigEndian
	}
	var sb strings.Builder
	for i := 0; i+4 <= len(b); i += 4 {
		r := rune(order.Uint32(b[i:]))
		if !utf8.ValidRune(r) {
			return "", fmt.Errorf("%w: invalid code point %#x in a unicode string", driver.ErrFormat, uint32(r))
		}
		sb.WriteRune(r)
	}
	return strings.TrimRight(sb.String(), "\x00"), nil
}
