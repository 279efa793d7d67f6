package npy

import (
	"fmt"
	"math"
	"strconv"
)

// maxItemSize bounds the item size of one element; numpy's own limit is
// far below this, and it keeps every size product inside an int.
const maxItemSize = 1 << 31

// itemSize returns the size in bytes of one element of the dtype described
// by v, the parsed 'descr' value of a header.
func itemSize(v pyValue, depth int) (int, error) {
	if depth > maxDepth {
		return 0, fmt.Errorf("%w: descr nested deeper than %d", ErrHeader, maxDepth)
	}
	switch v.kind {
	case pyStr:
		return simpleSize(v.str)
	case pyList:
		return structSize(v.items, depth)
	}
	return 0, fmt.Errorf("%w: descr %s is neither a string nor a list", ErrHeader, v.text)
}

// simpleSize sizes a typestr such as "<i2", "|S8", "<U17" or "<M8[ns]".
func simpleSize(s string) (int, error) {
	t := s
	if t != "" && (t[0] == '<' || t[0] == '>' || t[0] == '|' || t[0] == '=') {
		t = t[1:]
	}
	if t == "" {
		return 0, fmt.Errorf("%w: empty descr %q", ErrHeader, s)
	}
	kind, rest := t[0], t[1:]
	if kind == 'O' {
		return 0, fmt.Errorf("%w (descr %q)", ErrObject, s)
	}
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	unit := rest[digits:]
	if digits == 0 || digits > 10 {
		return 0, fmt.Errorf("%w: descr %q has no valid item size", ErrHeader, s)
	}
	n, err := strconv.Atoi(rest[:digits])
	if err != nil {
		return 0, fmt.Errorf("%w: descr %q: %v", ErrHeader, s, err)
	}
	switch kind {
	case 'M', 'm':
		if !validUnit(unit) {
			return 0, fmt.Errorf("%w: descr %q has a bad datetime unit", ErrHeader, s)
		}
	case 'b', 'i', 'u', 'f', 'c', 'S', 'a', 'V':
		if unit != "" {
			return 0, fmt.Errorf("%w: descr %q has trailing text %q", ErrHeader, s, unit)
		}
	case 'U':
		if unit != "" {
			return 0, fmt.Errorf("%w: descr %q has trailing text %q", ErrHeader, s, unit)
		}
		n *= 4
	default:
		return 0, fmt.Errorf("%w: descr %q has unknown kind %q", ErrHeader, s, kind)
	}
	if n > maxItemSize {
		return 0, fmt.Errorf("%w: descr %q item size too large", ErrHeader, s)
	}
	return n, nil
}

// validUnit accepts an empty unit or a bracketed datetime unit like "[ns]".
func validUnit(u string) bool {
	if u == "" {
		return true
	}
	if len(u) < 3 || u[0] != '[' || u[len(u)-1] != ']' {
		return false
	}
	for _, c := range u[1 : len(u)-1] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// structSize sizes a structured descr: a list of (name, format) or
// (name, format, shape) tuples, where name may be a (title, name) tuple and
// format may itself be a structured list.
func structSize(fields []pyValue, depth int) (int, error) {
	if len(fields) == 0 {
		return 0, fmt.Errorf("%w: structured descr has no fields", ErrHeader)
	}
	total := 0
	for _, f := range fields {
		if f.kind != pyTuple || len(f.items) < 2 || len(f.items) > 3 {
			return 0, fmt.Errorf("%w: structured field %s is not a (name, format[, shape]) tuple", ErrHeader, f.text)
		}
		if !validName(f.items[0]) {
			return 0, fmt.Errorf("%w: structured field name %s is not a string", ErrHeader, f.items[0].text)
		}
		size, err := itemSize(f.items[1], depth+1)
		if err != nil {
			return 0, err
		}
		if len(f.items) == 3 {
			count, err := subshapeCount(f.items[2])
			if err != nil {
				return 0, err
			}
			if count != 0 && size > maxItemSize/count {
				return 0, fmt.Errorf("%w: structured field %s too large", ErrHeader, f.text)
			}
			size *= count
		}
		total += size
		if total > maxItemSize {
			return 0, fmt.Errorf("%w: structured descr item size too large", ErrHeader)
		}
	}
	return total, nil
}

func validName(v pyValue) bool {
	if v.kind == pyStr {
		return true
	}
	return v.kind == pyTuple && len(v.items) == 2 && v.items[0].kind == pyStr && v.items[1].kind == pyStr
}

// subshapeCount returns the number of elements of a field's subarray shape,
// given as an int or a tuple of ints.
func subshapeCount(v pyValue) (int, error) {
	dims := []pyValue{v}
	if v.kind == pyTuple {
		dims = v.items
	}
	count := 1
	for _, d := range dims {
		if d.kind != pyInt || d.num < 0 || d.num > math.MaxInt32 {
			return 0, fmt.Errorf("%w: bad field shape %s", ErrHeader, v.text)
		}
		if d.num != 0 && count > maxItemSize/int(d.num) {
			return 0, fmt.Errorf("%w: field shape %s too large", ErrHeader, v.text)
		}
		count *= int(d.num)
	}
	return count, nil
}
