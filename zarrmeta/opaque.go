package zarrmeta

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Opaque is an attribute value whose type JSON cannot say: HDF5 opaque
// data (numpy void, |V n) and h5py's datetime64 and timedelta64 (stored as
// opaque types tagged "NUMPY:<M8[s]"). This module writes it in .zattrs as
// a flat list of strings: the marker, the dtype, the shape as numpy prints
// a tuple, and the elements in C order, which Python lindi reads (as a 1-D
// object array of the strings) without error:
//
//	["_OPAQUE", "<M8[s]", "()", "1645568542"]              a scalar
//	["_OPAQUE", "|V4", "(2,)", "deadbeef", "00ff0010"]     an array
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
	out := make([]any, 3, 3+len(o.Items))
	out[0], out[1], out[2] = AttrOpaque, o.DType.typestr(), "()"
	if o.Shape != nil {
		out[2] = Tuple(o.Shape)
	}
	for _, it := range o.Items {
		switch x := it.(type) {
		case []byte:
			if o.DType.Kind != KindVoid || len(x) != o.DType.Size {
				return nil, fmt.Errorf("opaque item of %d bytes for dtype %s", len(x), o.DType)
			}
			out = append(out, hex.EncodeToString(x))
		case int64:
			if o.DType.Kind == KindVoid {
				return nil, fmt.Errorf("an integer opaque item for dtype %s", o.DType)
			}
			out = append(out, strconv.FormatInt(x, 10))
		default:
			return nil, fmt.Errorf("opaque item %T for dtype %s", it, o.DType)
		}
	}
	return out, nil
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
	if len(list) < 3 {
		return fail("not [%q, dtype, shape, items…]", AttrOpaque)
	}
	ts, ok1 := list[1].(string)
	tuple, ok2 := list[2].(string)
	if !ok1 || !ok2 {
		return fail("the dtype and the shape are not strings")
	}
	dt, err := parseTypestr(ts)
	if err != nil || !opaqueKind(dt) {
		return fail("dtype %q is not |V n, M8[unit] or m8[unit]", ts)
	}
	o := Opaque{DType: dt}
	items := list[3:]
	if tuple != "()" {
		if o.Shape, err = parseTuple(tuple, len(items)); err != nil {
			return fail("shape %q: %v", tuple, err)
		}
	} else if len(items) != 1 {
		return fail("%d items for a scalar", len(items))
	}
	o.Items = make([]any, len(items))
	for i, x := range items {
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

// parseTuple reads a shape as numpy prints a tuple ("(2,)", "(2, 3)") whose
// elements number n.
func parseTuple(s string, n int) ([]int, error) {
	inner, ok := strings.CutPrefix(s, "(")
	if inner, ok2 := strings.CutSuffix(inner, ")"); ok && ok2 {
		parts := strings.Split(inner, ",")
		if len(parts) > 1 && strings.TrimSpace(parts[len(parts)-1]) == "" {
			parts = parts[:len(parts)-1]
		}
		if len(parts) > maxRank {
			return nil, fmt.Errorf("more than %d dimensions", maxRank)
		}
		shape := make([]int, len(parts))
		count := 1
		for i, p := range parts {
			d, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || d < 0 {
				return nil, fmt.Errorf("not a tuple of sizes")
			}
			shape[i] = d
			if d > 0 && count > n/d {
				count = n + 1 // more than the items there are
			} else {
				count *= d
			}
		}
		if count != n {
			return nil, fmt.Errorf("%d items", n)
		}
		return shape, nil
	}
	return nil, fmt.Errorf("not a tuple")
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
