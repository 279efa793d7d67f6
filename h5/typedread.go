package h5

import (
	"context"
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// Read reads the selection sel of a numeric dataset as a Typed[T]. T must be
// the Go type of the dataset's dtype (int16 for "<i2", float64 for ">f8", uint8
// for "|b1", …); use ReadFloat64 or Convert to change type.
func Read[T Number](ctx context.Context, d *Dataset, sel selection.Selection) (*Typed[T], error) {
	a, err := d.Read(ctx, sel)
	if err != nil {
		return nil, err
	}
	t, err := As[T](a)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s: %w", d.path, err)
	}
	return t, nil
}

// As returns the elements of a as a Typed[T], sharing a's memory when it is
// suitably aligned (no copy). T must be the Go type of a's dtype.
func As[T Number](a *Array) (*Typed[T], error) {
	var zero T
	kind, size := numberKind(zero)
	dt := a.DType
	if !(dt.Kind == kind || kind == zarrmeta.KindUint && dt.Kind == zarrmeta.KindBool) || dt.Size != size {
		return nil, fmt.Errorf("dtype %s does not read as %T: %w", dt, zero, ErrType)
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

// numberKind gives the dtype kind and size that the Go type of v reads.
func numberKind(v any) (zarrmeta.Kind, int) {
	t := reflect.TypeOf(v)
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return zarrmeta.KindInt, int(t.Size())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return zarrmeta.KindUint, int(t.Size())
	case reflect.Float32, reflect.Float64:
		return zarrmeta.KindFloat, int(t.Size())
	}
	return zarrmeta.KindInvalid, 0
}

// ReadFloat64 reads the selection sel of a numeric or boolean dataset and
// converts every element to float64 (booleans read as 0 and 1).
func ReadFloat64(ctx context.Context, d *Dataset, sel selection.Selection) (*Typed[float64], error) {
	a, err := d.Read(ctx, sel)
	if err != nil {
		return nil, err
	}
	t, err := AsFloat64(a)
	if err != nil {
		return nil, fmt.Errorf("h5: read %s: %w", d.path, err)
	}
	return t, nil
}

// AsFloat64 converts the elements of a numeric or boolean array to float64.
// The result is a copy unless a is already float64.
func AsFloat64(a *Array) (*Typed[float64], error) {
	dt := a.DType
	switch {
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 8:
		return As[float64](a)
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 4:
		return convert[float64](view[float32](a.Data), a.Shape), nil
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 2:
		out := make([]float64, len(a.Data)/2)
		for i := range out {
			out[i] = zarrmeta.Float16(binary.NativeEndian.Uint16(a.Data[2*i:]))
		}
		return &Typed[float64]{Shape: a.Shape, Data: out}, nil
	case (dt.Kind == zarrmeta.KindUint || dt.Kind == zarrmeta.KindBool) && dt.Size == 1:
		return convert[float64](view[uint8](a.Data), a.Shape), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 2:
		return convert[float64](view[uint16](a.Data), a.Shape), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 4:
		return convert[float64](view[uint32](a.Data), a.Shape), nil
	case dt.Kind == zarrmeta.KindUint && dt.Size == 8:
		return convert[float64](view[uint64](a.Data), a.Shape), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 1:
		return convert[float64](view[int8](a.Data), a.Shape), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 2:
		return convert[float64](view[int16](a.Data), a.Shape), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 4:
		return convert[float64](view[int32](a.Data), a.Shape), nil
	case dt.Kind == zarrmeta.KindInt && dt.Size == 8:
		return convert[float64](view[int64](a.Data), a.Shape), nil
	}
	return nil, fmt.Errorf("dtype %s does not convert to float64: %w", dt, ErrType)
}

// ReadStrings reads the selection sel of a string dataset: fixed-size bytes
// ("|S n", trailing NULs dropped, as numpy does), fixed-size unicode ("<U n")
// or variable-length strings stored as objects.
func (d *Dataset) ReadStrings(ctx context.Context, sel selection.Selection) (*Typed[string], error) {
	a, err := d.Read(ctx, sel)
	if err != nil {
		return nil, err
	}
	t, err := a.Strings()
	if err != nil {
		return nil, fmt.Errorf("h5: read %s: %w", d.path, err)
	}
	return t, nil
}

// Strings returns the elements of a string array as Go strings.
func (a *Array) Strings() (*Typed[string], error) {
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
				return nil, fmt.Errorf("element %d: %w", i, err)
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
				return nil, fmt.Errorf("element %d is %T, not a string: %w", i, v, ErrType)
			}
		}
	default:
		return nil, fmt.Errorf("dtype %s holds no strings: %w", dt, ErrType)
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

// ReadRefs reads the selection sel of an object-reference dataset.
func (d *Dataset) ReadRefs(ctx context.Context, sel selection.Selection) (*Typed[Reference], error) {
	a, err := d.Read(ctx, sel)
	if err != nil {
		return nil, err
	}
	out := &Typed[Reference]{Shape: a.Shape, Data: make([]Reference, len(a.Objects))}
	if a.Objects == nil && a.Len() > 0 {
		return nil, fmt.Errorf("h5: read %s: dtype %s holds no references: %w", d.path, a.DType, ErrType)
	}
	for i, v := range a.Objects {
		r, ok := v.(Reference)
		if !ok {
			return nil, fmt.Errorf("h5: read %s: element %d is %T, not a reference: %w", d.path, i, v, ErrType)
		}
		out.Data[i] = r
	}
	return out, nil
}

// Field returns one field of a compound array as an array of its own dtype (a copy).
func (a *Array) Field(name string) (*Array, error) {
	f, ok := a.DType.Field(name)
	if !ok {
		return nil, fmt.Errorf("h5: no field %q in %s: %w", name, a.DType, ErrNotFound)
	}
	if a.Data == nil {
		// Rows kept as objects: pick the field's item from each row.
		idx := fieldIndex(a.DType, name)
		out := &Array{DType: f.DType, Shape: a.Shape, Objects: make([]any, len(a.Objects))}
		for i, row := range a.Objects {
			items, ok := row.([]any)
			if !ok || idx >= len(items) {
				return nil, fmt.Errorf("h5: row %d has no field %q: %w", i, name, ErrFormat)
			}
			out.Objects[i] = items[idx]
		}
		return out, nil
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
