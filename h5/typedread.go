package h5

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// Read reads the selection sel of a dataset as a Typed[T], converting its
// elements to T:
//   - a Number T takes any numeric or boolean dtype, converted as Go
//     conversions do (float to integer truncates toward zero; booleans read
//     as 0 and 1); the result shares the read's memory when the dtype is T's;
//     datetime64 and timedelta64 give their int64 counts of the dtype's
//     Unit (Times and Durations convert them);
//   - int and uint, the types Go indexes with, take the same dtypes but are
//     range-checked: a value that does not fit (a uint64 above math.MaxInt,
//     a negative number as uint, a float that is not finite or is out of
//     range) fails with ErrType naming it, rather than wrap;
//   - string takes fixed-size bytes ("|S n", trailing NULs dropped, as numpy
//     does), fixed-size unicode ("<U n") and variable-length strings;
//   - Reference takes object references;
//   - complex64 and complex128 take complex dtypes (h5py's {r, i}
//     compounds too) and any real numeric dtype (imaginary part 0).
//
// Any other dtype fails with ErrType. ReadExact reads without conversion.
func Read[T Element](ctx context.Context, d *Dataset, sel selection.Selection) (*Typed[T], error) {
	a, err := d.Read(ctx, sel)
	if err != nil {
		return nil, err
	}
	// Converting allocates anew: the converted elements face the read limit too.
	if err := d.f.checkSize(a.Len(), int(reflect.TypeFor[T]().Size())); err != nil {
		return nil, fmt.Errorf("h5: read %s as %s: %w", d.path, reflect.TypeFor[T](), unprefixed{err})
	}
	t, err := As[T](a)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s: %w", d.path, unprefixed{err})
	}
	return t, nil
}

// ReadScalar reads the one element of a scalar dataset (or of an array of
// one element) as T, by the rules of Read: a string dataset's text, a
// float attribute-like value, a reference. A dataset of another size fails
// with ErrType naming it.
func ReadScalar[T Element](ctx context.Context, d *Dataset) (T, error) {
	var zero T
	if n := d.Size(); n != 1 {
		return zero, fmt.Errorf("h5: read %s as one %s: %w: it has %d elements", d.path, reflect.TypeFor[T](), ErrType, n)
	}
	t, err := Read[T](ctx, d, nil)
	if err != nil {
		return zero, err
	}
	return t.Data[0], nil
}

// ReadExact reads the selection sel of a numeric dataset as a Typed[T] without
// converting: T must be the Go type of the dataset's dtype (int16 for "<i2",
// float64 for ">f8", uint8 for "|b1", …), or the read fails with ErrType. The
// result shares the read's memory.
func ReadExact[T Number](ctx context.Context, d *Dataset, sel selection.Selection) (*Typed[T], error) {
	a, err := d.Read(ctx, sel)
	if err != nil {
		return nil, err
	}
	t, err := AsExact[T](a)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s: %w", d.path, unprefixed{err})
	}
	return t, nil
}

// As returns the elements of a as a Typed[T], converted by the rules of Read.
func As[T Element](a *Array) (*Typed[T], error) {
	var out any
	var err error
	switch any(*new(T)).(type) {
	case string:
		out, err = asStrings(a)
	case Reference:
		out, err = asRefs(a)
	default:
		if k := reflect.TypeFor[T]().Kind(); k == reflect.Complex64 || k == reflect.Complex128 {
			out, err = asComplex[T](a)
		} else {
			out, err = asNumbers[T](a)
		}
	}
	if err != nil {
		return nil, err
	}
	return out.(*Typed[T]), nil
}

// AsExact returns the elements of a as a Typed[T], sharing a's memory when it
// is suitably aligned (no copy). T must be the Go type of a's dtype.
func AsExact[T Number](a *Array) (*Typed[T], error) {
	var zero T
	kind, size := numberKind(reflect.TypeOf(zero))
	dt := a.DType
	if !(dt.Kind == kind || kind == zarrmeta.KindUint && dt.Kind == zarrmeta.KindBool) || dt.Size != size {
		return nil, fmt.Errorf("%w: dtype %s does not read as %T", ErrType, dt, zero)
	}
	return &Typed[T]{Shape: a.Shape, Data: view[T](a.Data)}, nil
}

// view reinterprets native-order bytes as elements of T, copying only when b
// is not aligned for T.
func view[T Number](b []byte) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	n := len(b) / size
	if n == 0 {
		return []T{}
	}
	if uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(zero) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]T, n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(b)), b)
	return out
}

// numberKind gives the dtype kind and size that a Go numeric type reads.
func numberKind(t reflect.Type) (zarrmeta.Kind, int) {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return zarrmeta.KindInt, int(t.Size())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return zarrmeta.KindUint, int(t.Size())
	case reflect.Float32, reflect.Float64:
		return zarrmeta.KindFloat, int(t.Size())
	}
	return zarrmeta.KindInvalid, 0
}

// asNumbers converts a numeric array to T, an Element that is a Number: it
// converts to the basic type under T and reinterprets the result as []T.
func asNumbers[T Element](a *Array) (*Typed[T], error) {
	var data any
	var err error
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int:
		data, err = fitting[int](a, math.MinInt, math.MaxInt)
	case reflect.Uint:
		data, err = fitting[uint](a, 0, math.MaxUint)
	case reflect.Int8:
		data, err = numbers[int8](a)
	case reflect.Int16:
		data, err = numbers[int16](a)
	case reflect.Int32:
		data, err = numbers[int32](a)
	case reflect.Int64:
		data, err = numbers[int64](a)
	case reflect.Uint8:
		data, err = numbers[uint8](a)
	case reflect.Uint16:
		data, err = numbers[uint16](a)
	case reflect.Uint32:
		data, err = numbers[uint32](a)
	case reflect.Uint64:
		data, err = numbers[uint64](a)
	case reflect.Float32:
		data, err = numbers[float32](a)
	default:
		data, err = numbers[float64](a)
	}
	if err != nil {
		return nil, err
	}
	v := reflect.ValueOf(data)
	out := unsafe.Slice((*T)(v.UnsafePointer()), v.Len())
	return &Typed[T]{Shape: a.Shape, Data: out}, nil
}

// numbers converts the elements of a numeric or boolean array to T; the result
// shares a's memory when its dtype is T's.
func numbers[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](a *Array) ([]T, error) {
	if t, err := AsExact[T](a); err == nil {
		return t.Data, nil
	}
	dt := a.DType
	switch {
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 8:
		return convert[T](view[float64](a.Data)), nil
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 4:
		return convert[T](view[float32](a.Data)), nil
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 2:
		out := make([]T, len(a.Data)/2)
		for i := range out {
			out[i] = T(zarrmeta.Float16(binary.NativeEndian.Uint16(a.Data[2*i:])))
		}
		return out, nil
	case (dt.Kind == zarrmeta.KindUint || dt.Kind == zarrmeta.KindBool) && dt.Size == 1:
		return convert[T](view[uint8](a.Data)), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 2:
		return convert[T](view[uint16](a.Data)), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 4:
		return convert[T](view[uint32](a.Data)), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 8:
		return convert[T](view[uint64](a.Data)), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 1:
		return convert[T](view[int8](a.Data)), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 2:
		return convert[T](view[int16](a.Data)), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 4:
		return convert[T](view[int32](a.Data)), nil
	case (dt.Kind == zarrmeta.KindInt || isTime(dt)) && dt.Size == 8:
		return convert[T](view[int64](a.Data)), nil
	}
	return nil, fmt.Errorf("%w: dtype %s does not convert to %s", ErrType, dt, reflect.TypeFor[T]())
}

// fitting converts the elements of a numeric or boolean array to T, int or
// uint, whose values run from lo to hi: every element must be a whole or
// fractional number in that range (fractions truncate toward zero, as Go
// conversions do). The result shares a's memory when its dtype is T's.
func fitting[T int | uint](a *Array, lo int64, hi uint64) ([]T, error) {
	if t, err := AsExact[T](a); err == nil {
		return t.Data, nil
	}
	dt := a.DType
	out := make([]T, a.Len())
	switch {
	case dt.Kind == zarrmeta.KindUint || dt.Kind == zarrmeta.KindBool:
		v, err := numbers[uint64](a)
		if err != nil {
			return nil, err
		}
		for i, x := range v {
			if x > hi {
				return nil, overflow[T](dt, i, x)
			}
			out[i] = T(x)
		}
	case dt.Kind == zarrmeta.KindFloat:
		v, err := numbers[float64](a)
		if err != nil {
			return nil, err
		}
		for i, x := range v {
			// float64(hi)+1 is the power of two just above hi (rounding takes
			// it there from a 64-bit hi), the first whole value that does not fit.
			if t := math.Trunc(x); !(t >= float64(lo) && t < float64(hi)+1) {
				return nil, overflow[T](dt, i, x)
			}
			out[i] = T(x)
		}
	default:
		v, err := numbers[int64](a)
		if err != nil {
			return nil, err
		}
		for i, x := range v {
			if x < lo || x >= 0 && uint64(x) > hi {
				return nil, overflow[T](dt, i, x)
			}
			out[i] = T(x)
		}
	}
	return out, nil
}

// overflow is the error for element i of dtype dt, whose value x does not fit in T.
func overflow[T any](dt zarrmeta.DType, i int, x any) error {
	return fmt.Errorf("%w: element %d of dtype %s is %v, which does not fit in %s", ErrType, i, dt, x, reflect.TypeFor[T]())
}

// asStrings returns the elements of a string array as Go strings.
func asStrings(a *Array) (*Typed[string], error) {
	out := &Typed[string]{Shape: a.Shape, Data: make([]string, a.Len())}
	dt := a.DType
	switch dt.Kind {
	case zarrmeta.KindBytes:
		for i := range out.Data {
			out.Data[i] = strings.TrimRight(string(a.Data[i*dt.Size:(i+1)*dt.Size]), "\x00")
		}
	case zarrmeta.KindUnicode:
		for i := range out.Data {
			s, err := utf32(a.Data[i*dt.Size : (i+1)*dt.Size])
			if err != nil {
				return nil, fmt.Errorf("%w (element %d)", err, i)
			}
			out.Data[i] = s
		}
	case zarrmeta.KindObject:
		for i, v := range a.Objects {
			switch x := v.(type) {
			case string:
				out.Data[i] = x
			case []byte:
				out.Data[i] = string(x)
			default:
				return nil, fmt.Errorf("%w: element %d is %T, not a string", ErrType, i, v)
			}
		}
	default:
		return nil, fmt.Errorf("%w: dtype %s holds no strings", ErrType, dt)
	}
	return out, nil
}

// utf32 decodes native-order UTF-32 code units, dropping trailing NULs.
func utf32(b []byte) (string, error) {
	var sb strings.Builder
	for i := 0; i+4 <= len(b); i += 4 {
		r := rune(binary.NativeEndian.Uint32(b[i:]))
		if !utf8.ValidRune(r) {
			return "", fmt.Errorf("%w: invalid code point %#x in a unicode string", ErrFormat, uint32(r))
		}
		sb.WriteRune(r)
	}
	return strings.TrimRight(sb.String(), "\x00"), nil
}

// asRefs returns the elements of an object-reference array.
func asRefs(a *Array) (*Typed[Reference], error) {
	if a.Objects == nil && a.Len() > 0 {
		return nil, fmt.Errorf("%w: dtype %s holds no references", ErrType, a.DType)
	}
	out := &Typed[Reference]{Shape: a.Shape, Data: make([]Reference, len(a.Objects))}
	for i, v := range a.Objects {
		r, ok := v.(Reference)
		if !ok {
			return nil, fmt.Errorf("%w: element %d is %T, not a reference", ErrType, i, v)
		}
		out.Data[i] = r
	}
	return out, nil
}

// Field returns one field of a compound array as an array of its own dtype (a
// copy). A field of numbers, booleans or bytes is in Data whether the rows
// were packed or kept as objects, so As and AsExact read it; a reference or
// object field is in Objects.
func (a *Array) Field(name string) (*Array, error) {
	f, ok := a.DType.Field(name)
	if !ok {
		return nil, fmt.Errorf("%w: no field %q in %s", ErrNotFound, name, a.DType)
	}
	if a.Data == nil {
		return a.rowField(f, fieldIndex(a.DType, name))
	}
	n, size, w := a.Len(), a.DType.Size, f.DType.Size*f.Count()
	out := &Array{DType: f.DType, Shape: append(append([]int(nil), a.Shape...), f.Shape...), Data: make([]byte, n*w)}
	for i := range n {
		copy(out.Data[i*w:(i+1)*w], a.Data[i*size+f.Offset:])
	}
	return out, nil
}

func fieldIndex(dt zarrmeta.DType, name string) int {
	for i, f := range dt.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// asComplex converts a complex or real array to T, whose underlying type is
// complex64 or complex128.
func asComplex[T Element](a *Array) (*Typed[T], error) {
	dt := a.DType
	var out []T
	if dt.Kind == zarrmeta.KindComplex {
		n := len(a.Data) / dt.Size
		out = make([]T, n)
		for i := range n {
			var re, im float64
			if dt.Size == 8 {
				re = float64(math.Float32frombits(binary.NativeEndian.Uint32(a.Data[8*i:])))
				im = float64(math.Float32frombits(binary.NativeEndian.Uint32(a.Data[8*i+4:])))
			} else if dt.Size == 16 {
				re = math.Float64frombits(binary.NativeEndian.Uint64(a.Data[16*i:]))
				im = math.Float64frombits(binary.NativeEndian.Uint64(a.Data[16*i+8:]))
			} else {
				return nil, fmt.Errorf("%w: dtype %s does not convert to %T", ErrType, dt, *new(T))
			}
			out[i] = fromComplex[T](re, im)
		}
		return &Typed[T]{Shape: a.Shape, Data: out}, nil
	}
	re, err := numbers[float64](a)
	if err != nil {
		return nil, err
	}
	out = make([]T, len(re))
	for i, x := range re {
		out[i] = fromComplex[T](x, 0)
	}
	return &Typed[T]{Shape: a.Shape, Data: out}, nil
}

// fromComplex builds a T (whose underlying type is complex64 or complex128)
// from its parts.
func fromComplex[T Element](re, im float64) T {
	var t T
	reflect.ValueOf(&t).Elem().SetComplex(complex(re, im))
	return t
}

// unprefixed is an error whose text drops a leading "h5: ", for wrapping an
// error that starts with a sentinel's text under a message that already says
// "h5: " (errors.Is still sees the sentinel).
type unprefixed struct{ err error }

func (u unprefixed) Error() string { return strings.TrimPrefix(u.err.Error(), "h5: ") }
func (u unprefixed) Unwrap() error { return u.err }
