package zarrmeta

import (
	"fmt"
	"math"
)

// CommittedType is the value of the _DATATYPE marker (AttrDatatype): an
// HDF5 committed (named) datatype, which Zarr and LINDI have no object for,
// kept as a group whose .zattrs hold the type's attributes and
//
//	"_DATATYPE": {"dtype": "|u1", "enum": {"RED": 0, "GREEN": 1}}
//
// dtype is the numpy dtype in .zarray's JSON form (a typestr or a
// structured list); enum, present for an enumerated type, maps its names to
// their values. A type with no numpy dtype has "unreadable", the reason,
// in place of dtype.
type CommittedType struct {
	// DType is the type's numpy dtype; the zero DType when Unreadable is set.
	DType DType
	// Enum maps the names of an enumerated type to their values; nil for
	// other types.
	Enum map[string]int64
	// Unreadable says why the type has no numpy dtype; "" when it has one.
	Unreadable string
}

// MarshalJSON writes the marker's value.
func (c CommittedType) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if c.Unreadable != "" {
		m["unreadable"] = c.Unreadable
	} else {
		m["dtype"] = c.DType
	}
	if c.Enum != nil {
		m["enum"] = c.Enum
	}
	return marshalPlain(m)
}

// ParseCommittedType validates the decoded JSON value of a _DATATYPE
// marker: an object with a dtype ParseDType reads or a string
// "unreadable", and optionally an "enum" object of integer values.
func ParseCommittedType(v any) (CommittedType, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return CommittedType{}, fmt.Errorf("%s %s is not an object", AttrDatatype, jsonText(v))
	}
	var c CommittedType
	dt, hasDType := m["dtype"]
	why, hasWhy := m["unreadable"].(string)
	switch {
	case hasDType && !hasWhy:
		d, err := dtypeFromJSON(dt, 0)
		if err != nil {
			return CommittedType{}, fmt.Errorf("%s dtype: %w", AttrDatatype, err)
		}
		c.DType = d
	case hasWhy && !hasDType && why != "":
		c.Unreadable = why
	default:
		return CommittedType{}, fmt.Errorf("%s %s needs a \"dtype\" or a string \"unreadable\"", AttrDatatype, jsonText(v))
	}
	if e, ok := m["enum"]; ok {
		members, ok := e.(map[string]any)
		if !ok {
			return CommittedType{}, fmt.Errorf("%s enum %s is not an object", AttrDatatype, jsonText(e))
		}
		c.Enum = make(map[string]int64, len(members))
		for name, x := range members {
			switch n := x.(type) {
			case int64:
				c.Enum[name] = n
			case uint64:
				if n > math.MaxInt64 {
					return CommittedType{}, fmt.Errorf("%s enum member %q: %d is out of range", AttrDatatype, name, n)
				}
				c.Enum[name] = int64(n)
			default:
				return CommittedType{}, fmt.Errorf("%s enum member %q: %s is not an integer", AttrDatatype, name, jsonText(x))
			}
		}
	}
	return c, nil
}
