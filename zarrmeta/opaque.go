package zarrmeta

import (
	"encoding/hex"
	"fmt"
	"strconv"
)

// Opaque is an attribute value whose type JSON cannot say: HDF5 opaque
// data (numpy void, |V n) and h5py's datetime64 and timedelta64 (stored as
// opaque types tagged "NUMPY:<M8[s]"). This module writes it in .zattrs as
// a list of strings, which Python lindi reads (as an object array of the
// strings) without error:
//
//	["_OPAQUE", "<M8[s]", "1645568542"]         a scalar
//	["_OPAQUE", "|V4", ["deadbeef", "00ff0010"]]  an array: nested lists of its shape
//
// An element is the lowercase hex of its bytes (void) or the decimal int64
// count of the unit (times; NaT is -9223372036854775808).
type Opaque struct {
	// DType is the elements' dtype: KindVoid, KindDatetime or KindTimedelta.
	DType DType
	// Shape is the attribute's shape; nil for a scalar.
	Shape []int
	// Items holds the elements in C order: []byte of DType.Size bytes for
	// void, int64 counts for times.
	Items []any
}

// JSON returns the attribute value written as the doc of Opaque says. It
// fails for a dtype or item that is not one of Opaque's.
func (o Opaque) JSON() ([]any, error) {
	if !opaqueKind(o.DType) {
		return nil, fmt.Errorf("%w: %s is not an opaque dtype", ErrDType, o.DType)
	}
	n := 1
	for _, d := range o.Shape {
		n *= d
	}
	if len(o.Items) != n {
		return nil, fmt.Errorf("%d opaque items for shape %v", len(o.Items), o.Shape)
	}
	flat := make([]any, len(o.Items))
	for i, it := range o.Items {
		switch x := it.(type) {
		case []byte:
			if o.DType.Kind != KindVoid || len(x) != o.DType.Size {
				return nil, fmt.Errorf("opaque item of %d bytes for dtype %s", len(x), o.DType)
			}
			flat[i] = hex.EncodeToString(x)
		case int64:
			if o.DType.Kind == KindVoid {
				return nil, fmt.Errorf("an integer opaque item for dtype %s", o.DType)
			}
			flat[i] = strconv.FormatInt(x, 10)
		default:
			return nil, fmt.Errorf("opaque item %T for dtype %s", it, o.DType)
		}
	}
	var value any = flat
	if o.Shape == nil {
		value = flat[0]
	} else {
		value = nestItems(flat, o.Shape)
	}
	return []any{AttrOpaque, o.DType.typestr(), value}, nil
}

// nestItems shapes flat into nested lists.
func nestItems(flat []any, shape []int) []any {
	if len(shape) <= 1 {
		return flat
	}
	step := len(flat) / max(shape[0], 1)
	out := make([]any, shape[0])
	for i := range out {
		out[i] = nestItems(flat[i*step:(i+1)*step], shape[1:])
	}
	return out
}

func opaqueKind(d DType) bool {
	return d.Kind == KindVoid || (d.Kind == KindDatetime || d.Kind == KindTimedelta) && d.Size == 8
}

// AsOpaque recognises an Opaque attribute value in decoded JSON (a list
// whose first item is "_OPAQUE"). It returns false and no error for any
// other value, and an error wrapping ErrAttrs when the list is malformed.
func AsOpaque(v any) (Opaque, bool, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 || list[0] != AttrOpaque {
		return Opaque{}, false, nil
	}
	fail := func(format string, args ...any) (Opaque, bool, error) {
		return Opaque{}, true, fmt.Errorf("%w: %s %s: %s", ErrAttrs, AttrOpaque, jsonText(v), fmt.Sprintf(format, args...))
	}
	if len(list) != 3 {
		return fail("not [%q, dtype, value]", AttrOpaque)
	}
	ts, ok := list[1].(string)
	if !ok {
		return fail("the dtype is not a string")
	}
	dt, err := parseTypestr(ts)
	if err != nil || !opaqueKind(dt) {
		return fail("dtype %q is not |V n, M8[unit] or m8[unit]", ts)
	}
	o := Opaque{DType: dt}
	var flat []any
	if s, ok := list[2].(string); ok {
		flat = []any{s}
	} else {
		if o.Shape, err = listShape(list[2], 0); err != nil {
			return fail("%v", err)
		}
		flat = flattenItems(list[2], nil)
	}
	o.Items = make([]any, len(flat))
	for i, x := range flat {
		s, ok := x.(string)
		if !ok {
			return fail("item %s is not a string", jsonText(x))
		}
		if o.Items[i], err = opaqueItem(s, dt); err != nil {
			return fail("item %q: %v", s, err)
		}
	}
	return o, true, nil
}

// listShape is the shape of rectangular nested lists.
func listShape(v any, depth int) ([]int, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, nil
	}
	if depth > maxRank {
		return nil, fmt.Errorf("nested more than %d deep", maxRank)
	}
	if len(l) == 0 {
		return []int{0}, nil
	}
	inner, err := listShape(l[0], depth+1)
	if err != nil {
		return nil, err
	}
	for _, x := range l[1:] {
		s, err := listShape(x, depth+1)
		if err != nil {
			return nil, err
		}
		if fmt.Sprint(s) != fmt.Sprint(inner) {
			return nil, fmt.Errorf("ragged lists")
		}
	}
	return append([]int{len(l)}, inner...), nil
}

func flattenItems(v any, out []any) []any {
	l, ok := v.([]any)
	if !ok {
		return append(out, v)
	}
	for _, x := range l {
		out = flattenItems(x, out)
	}
	return out
}

func opaqueItem(s string, dt DType) (any, error) {
	if dt.Kind != KindVoid {
		return strconv.ParseInt(s, 10, 64)
	}
	b, err := hex.DecodeString(s)
	if err == nil && len(b) != dt.Size {
		err = fmt.Errorf("%d bytes, not %d", len(b), dt.Size)
	}
	return b, err
}
