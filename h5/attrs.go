package h5

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/lindigo/lindi/internal/driver"
)

// Reference is an object reference: the path of the object it points at. Deref
// a Reference with File.Deref.
type Reference struct {
	Path string
}

// Attrs holds an object's attributes. Values have one of these Go types,
// whatever the file format:
//
//	nil, bool, int64, uint64, float64, string, Reference,
//	RegionReference, Datetime, Timedelta, []byte             scalars ([]byte: opaque, numpy void)
//	[]bool, []int64, []uint64, []float64, []string, []Reference,
//	[]Datetime, []Timedelta, [][]byte                        1-D arrays
//	map[string]any                                           a compound element: field name → value
//	[]any                                                    anything else: an N-d array as nested
//	                                                         lists (rows of 1-D arrays), an array
//	                                                         of compound elements, a mixed list
//
// The same attribute reads as the same Go value from an HDF5 file and from
// its LINDI JSON:
//   - integers are int64 whatever their stored width and signedness (JSON
//     keeps no type); uint64 only holds values above math.MaxInt64;
//   - floats of every width are float64 (a float32 0.1 reads as
//     float64(float32(0.1)), as LINDI writes it);
//   - an attribute of 2 or more dimensions is nested lists of its rows, as
//     LINDI writes it and as numpy's tolist gives it;
//   - h5py's datetime64 and timedelta64 (HDF5 opaque types tagged
//     "NUMPY:<M8[s]") are Datetime and Timedelta, which keep the unit;
//     other opaque values are their bytes.
//
// An attribute that cannot be decoded (a datatype this package does not
// read) is still listed by Names; Get and the typed getters return its
// error. The zero value holds no attributes.
type Attrs struct {
	vals  map[string]any
	errs  map[string]error
	types map[string]*Type // HDF5 types, where the format stores them
	shape map[string][]int // and the shapes of their dataspaces
}

// newAttrs builds Attrs from a driver's values, normalising them to the
// types above, keeping their HDF5 types and setting aside the errors of
// attributes not decoded.
func newAttrs(vals map[string]any) Attrs {
	a := Attrs{vals: vals}
	for k, v := range vals {
		if ta, ok := v.(driver.TypedAttr); ok {
			if a.types == nil {
				a.types, a.shape = map[string]*Type{}, map[string][]int{}
			}
			a.types[k], a.shape[k], v = typeOf(ta.Type), ta.Shape, ta.Value
			vals[k] = v
		}
		if err, ok := v.(error); ok {
			if a.errs == nil {
				a.errs = map[string]error{}
			}
			a.errs[k] = err
			delete(vals, k)
			continue
		}
		vals[k] = normalize(v)
	}
	return a
}

// Names returns the attribute names, sorted, including those that could not
// be decoded.
func (a Attrs) Names() []string {
	names := make([]string, 0, len(a.vals)+len(a.errs))
	for k := range a.vals {
		names = append(names, k)
	}
	for k := range a.errs {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Type is the HDF5 type of the attribute name (h5py's
// attrs.get_id(name).get_type()), readable or not; nil when there is no
// such attribute or the format stores no HDF5 type (LINDI, Zarr).
func (a Attrs) Type(name string) *Type { return a.types[name] }

// Shape is the shape of the dataspace of the attribute name as HDF5 stores
// it (h5py's attrs.get_id(name).shape: nil for a null dataspace, [] for a
// scalar), readable or not; ok is false when there is no such attribute or
// the format does not record it (LINDI, Zarr: see the value).
func (a Attrs) Shape(name string) (shape []int, ok bool) {
	shape, ok = a.shape[name]
	return shape, ok
}

// Len is the number of attributes.
func (a Attrs) Len() int { return len(a.vals) + len(a.errs) }

// Get returns the value of the attribute name. It fails with ErrNotFound
// when there is no such attribute, and with the reason (wrapping
// ErrAttribute) when the attribute exists but could not be decoded.
func (a Attrs) Get(name string) (any, error) { return a.get(name) }

// Has reports whether the object has an attribute called name, readable or not.
func (a Attrs) Has(name string) bool {
	_, ok := a.vals[name]
	_, bad := a.errs[name]
	return ok || bad
}

func (a Attrs) get(name string) (any, error) {
	if err, ok := a.errs[name]; ok {
		return nil, fmt.Errorf("%w: attribute %q: %w", ErrAttribute, name, err)
	}
	v, ok := a.vals[name]
	if !ok {
		return nil, fmt.Errorf("%w: attribute %q", ErrNotFound, name)
	}
	return v, nil
}

// Int returns an integer attribute; a float with an integral value is accepted.
func (a Attrs) Int(name string) (int64, error) {
	v, err := a.get(name)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), nil
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), nil
		}
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, attrTypeError(name, v, "an integer")
}

// Float returns a numeric attribute as float64.
func (a Attrs) Float(name string) (float64, error) {
	v, err := a.get(name)
	if err != nil {
		return 0, err
	}
	if f, ok := toFloat(v); ok {
		return f, nil
	}
	return 0, attrTypeError(name, v, "a number")
}

// String returns a string attribute.
func (a Attrs) String(name string) (string, error) {
	v, err := a.get(name)
	if err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", attrTypeError(name, v, "a string")
}

// Bool returns a boolean attribute.
func (a Attrs) Bool(name string) (bool, error) {
	v, err := a.get(name)
	if err != nil {
		return false, err
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	}
	return false, attrTypeError(name, v, "a bool")
}

// Floats returns a numeric attribute (a scalar or a 1-D array) as []float64.
func (a Attrs) Floats(name string) ([]float64, error) {
	v, err := a.get(name)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case []float64:
		return x, nil
	case []int64:
		return convertSlice[float64](x), nil
	case []uint64:
		return convertSlice[float64](x), nil
	}
	if f, ok := toFloat(v); ok {
		return []float64{f}, nil
	}
	return nil, attrTypeError(name, v, "numbers")
}

// Ints returns an integer attribute (a scalar or a 1-D array) as []int64.
func (a Attrs) Ints(name string) ([]int64, error) {
	v, err := a.get(name)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case []int64:
		return x, nil
	case int64:
		return []int64{x}, nil
	}
	return nil, attrTypeError(name, v, "integers")
}

// Strings returns a string attribute (a scalar or a 1-D array) as []string.
func (a Attrs) Strings(name string) ([]string, error) {
	v, err := a.get(name)
	if err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case []string:
		return x, nil
	case string:
		return []string{x}, nil
	}
	return nil, attrTypeError(name, v, "strings")
}

// Ref returns an object-reference attribute.
func (a Attrs) Ref(name string) (Reference, error) {
	v, err := a.get(name)
	if err != nil {
		return Reference{}, err
	}
	if r, ok := v.(Reference); ok {
		return r, nil
	}
	return Reference{}, attrTypeError(name, v, "an object reference")
}

func attrTypeError(name string, v any, want string) error {
	return fmt.Errorf("%w: attribute %q is %T, not %s", ErrType, name, v, want)
}

// nonFinite maps the strings LINDI writes for non-finite attribute values.
var nonFinite = map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case string:
		f, ok := nonFinite[x]
		return f, ok
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	}
	return 0, false
}

func convertSlice[T, S int64 | uint64 | float64](s []S) []T {
	out := make([]T, len(s))
	for i, x := range s {
		out[i] = T(x)
	}
	return out
}

// normalize turns the drivers' references into References, integers that
// fit into int64, and a homogeneous []any into the typed slice for its
// element type.
func normalize(v any) any {
	switch x := v.(type) {
	case driver.Ref, driver.RegionRef, uint64:
		return references(x) // one item, as a read gives it
	case driver.Time:
		return timeValue(x)
	case []driver.Time:
		return timeValues(x)
	case []driver.Ref:
		out := make([]Reference, len(x))
		for i, r := range x {
			out[i] = Reference{Path: r.Path}
		}
		return out
	case []uint64:
		if slices.ContainsFunc(x, func(u uint64) bool { return u > math.MaxInt64 }) {
			return x
		}
		return convertSlice[int64](x)
	case map[string]any:
		for k, f := range x {
			x[k] = normalize(f)
		}
		return x
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
		return typedAny(x)
	}
	return v
}

// timeValues is a list of a driver's Times as Timedeltas (when the first
// is one) or Datetimes.
func timeValues(x []driver.Time) any {
	if len(x) > 0 && x[0].Delta {
		out := make([]Timedelta, len(x))
		for i, t := range x {
			out[i] = Timedelta{t.Count, t.Unit}
		}
		return out
	}
	out := make([]Datetime, len(x))
	for i, t := range x {
		out[i] = Datetime{t.Count, t.Unit}
	}
	return out
}

// typedAny is a list of normalized values as the typed slice of its first
// element's type, or as it is when it holds several kinds.
func typedAny(list []any) any {
	if len(list) == 0 {
		return list
	}
	switch list[0].(type) {
	case bool:
		return typedList[bool](list)
	case Reference:
		return typedList[Reference](list)
	case Datetime:
		return typedList[Datetime](list)
	case Timedelta:
		return typedList[Timedelta](list)
	case []byte:
		return typedList[[]byte](list)
	case int64, float64, uint64:
		return numberList(list)
	case string:
		// A list of numbers that holds "NaN" or "Infinity" is a list of floats.
		if l, ok := numberList(list).([]float64); ok {
			return l
		}
		return typedList[string](list)
	}
	return list
}

// timeValue is a driver's Time as a Datetime or a Timedelta.
func timeValue(t driver.Time) any {
	if t.Delta {
		return Timedelta{t.Count, t.Unit}
	}
	return Datetime{t.Count, t.Unit}
}

func typedList[T any](list []any) any {
	out := make([]T, len(list))
	for i, x := range list {
		t, ok := x.(T)
		if !ok {
			return list
		}
		out[i] = t
	}
	return out
}

// numberList gives []int64 when every item is an int64, []uint64 when every item
// is a uint64, and []float64 when the items mix floats, integers and the
// strings LINDI writes for non-finite floats (with at least one number).
func numberList(list []any) any {
	numbers := 0
	for _, x := range list {
		if _, ok := x.(string); !ok {
			numbers++
		}
	}
	if numbers == 0 {
		return list
	}
	if ints, ok := typedList[int64](list).([]int64); ok {
		return ints
	}
	if uints, ok := typedList[uint64](list).([]uint64); ok {
		return uints
	}
	out := make([]float64, len(list))
	for i, x := range list {
		f, ok := toFloat(x)
		if !ok {
			return list
		}
		out[i] = f
	}
	return out
}
