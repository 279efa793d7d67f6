package hdf5

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/lindigo/lindi/zarrmeta"
)

// ObjectRef is a decoded object reference: the address of the referenced
// object's header and its path (found by walking the file's tree once). Path
// is empty when no hard link in the file reaches the object.
type ObjectRef struct {
	Addr uint64
	Path string
}

// decodeValue decodes the elements in raw into the Go value Attribute
// documents.
func (f *File) decodeValue(ctx context.Context, t *Datatype, s Dataspace, raw []byte) (any, error) {
	if s.Kind == SpaceNull {
		return nil, nil
	}
	n := s.NumElements()
	vals, err := f.decodeElements(ctx, t, raw, int(n))
	if err != nil || s.Kind == SpaceSimple || t.Class == ClassArray {
		return vals, err
	}
	return first(vals), nil
}

// arrayLen returns the number of base elements in one element of an array
// datatype.
func arrayLen(t *Datatype) int {
	n := 1
	for _, d := range t.Dims {
		n *= int(d)
	}
	return n
}

// first returns element 0 of a slice decodeElements made, or nil for an
// empty one.
func first(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice || rv.Len() == 0 {
		return nil
	}
	return rv.Index(0).Interface()
}

// Decode decodes n elements of type t from raw, the stored bytes of a
// dataset or attribute (n × t.Size bytes, in the file's byte order), into
// the typed slice Attribute documents ([]int64, []float64, []string,
// []bool, []ObjectRef, …): the way to read variable-length strings, object
// references and compounds, which have no fixed-size in-memory form.
// Variable-length elements are resolved through the global heap and object
// references through PathOf.
func (f *File) Decode(ctx context.Context, t *Datatype, raw []byte, n int) (any, error) {
	v, err := f.decodeElements(ctx, t, raw, n)
	if err != nil {
		return nil, fmt.Errorf("hdf5: decode %d %s elements: %w", n, t.Class, err)
	}
	return v, nil
}

// decodeElements decodes n elements of type t from raw (n × t.Size bytes)
// into a typed slice.
func (f *File) decodeElements(ctx context.Context, t *Datatype, raw []byte, n int) (any, error) {
	size := int(t.Size)
	if size == 0 || n < 0 || n > len(raw)/size {
		return nil, fmt.Errorf("%w: %d bytes for %d elements of %d bytes", ErrFormat, len(raw), n, size)
	}
	elem := func(i int) []byte { return raw[i*size : (i+1)*size] }
	switch t.Class {
	case ClassFixed, ClassBitfield:
		return decodeInts(t, n, elem)
	case ClassFloat:
		out := make([]float64, n)
		for i := range out {
			v, err := decodeFloat(t, elem(i))
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case ClassString:
		out := make([]string, n)
		for i := range out {
			out[i] = trimString(elem(i), t.Pad)
		}
		return out, nil
	case ClassEnum:
		if !t.IsBool() {
			return decodeInts(t.Base, n, elem)
		}
		out := make([]bool, n)
		for i := range out {
			out[i] = elem(i)[0] != 0
		}
		return out, nil
	case ClassVlen:
		return f.decodeVlen(ctx, t, raw[:n*size])
	case ClassReference:
		return f.decodeRefs(ctx, t, n, elem)
	case ClassOpaque:
		if d, ok := t.NumpyTag(); ok {
			// h5py's datetime64 and timedelta64: an int64 count of the unit.
			return decodeInts(&Datatype{Class: ClassFixed, Size: 8, Signed: true, BigEndian: d[0] == '>'}, n, elem)
		}
		out := make([][]byte, n)
		for i := range out {
			out[i] = elem(i)
		}
		return out, nil
	case ClassCompound:
		return f.decodeCompound(ctx, t, n, elem)
	case ClassArray:
		// The array type's size is its base size times arrayLen, checked
		// when parsed, so the flat elements fill raw exactly.
		return f.decodeElements(ctx, t.Base, raw[:n*size], n*arrayLen(t))
	}
	return nil, fmt.Errorf("%w: values of %s datatype", ErrUnsupported, t.Class)
}

func decodeInts(t *Datatype, n int, elem func(int) []byte) (any, error) {
	if t.Size > 8 {
		return nil, fmt.Errorf("%w: %d-byte integers", ErrUnsupported, t.Size)
	}
	if t.Signed && t.Class == ClassFixed {
		out := make([]int64, n)
		shift := 64 - 8*uint(t.Size)
		for i := range out {
			out[i] = int64(uintOf(elem(i), t.BigEndian)<<shift) >> shift
		}
		return out, nil
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = uintOf(elem(i), t.BigEndian)
	}
	return out, nil
}

// uintOf decodes an unsigned integer of len(b) ≤ 8 bytes.
func uintOf(b []byte, bigEndian bool) uint64 {
	var v uint64
	if bigEndian {
		for _, c := range b {
			v = v<<8 | uint64(c)
		}
		return v
	}
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// decodeFloat decodes an IEEE 754 half, single or double.
func decodeFloat(t *Datatype, b []byte) (float64, error) {
	var order binary.ByteOrder = binary.LittleEndian
	if t.BigEndian {
		order = binary.BigEndian
	}
	switch t.Size {
	case 2:
		return zarrmeta.Float16(order.Uint16(b)), nil
	case 4:
		return float64(math.Float32frombits(order.Uint32(b))), nil
	case 8:
		return math.Float64frombits(order.Uint64(b)), nil
	}
	return 0, fmt.Errorf("%w: %d-byte floats", ErrUnsupported, t.Size)
}

// trimString removes a fixed-length string's padding.
func trimString(b []byte, pad StringPad) string {
	switch pad {
	case PadNullTerm:
		return cString(b)
	case PadSpacePad:
		return strings.TrimRight(string(b), " ")
	}
	return strings.TrimRight(string(b), "\x00")
}

func (f *File) decodeVlen(ctx context.Context, t *Datatype, raw []byte) (any, error) {
	items, err := f.ReadVlen(ctx, raw)
	if err != nil {
		return nil, err
	}
	if !t.VlenString {
		return f.decodeSequences(ctx, t.Base, items)
	}
	out := make([]string, len(items))
	for i, b := range items {
		out[i] = trimString(b, PadNullPad)
	}
	return out, nil
}

// decodeSequences decodes variable-length sequences: one typed slice of
// base elements per sequence.
func (f *File) decodeSequences(ctx context.Context, base *Datatype, items [][]byte) (any, error) {
	if base.Size == 0 {
		return nil, fmt.Errorf("%w: sequence of 0-byte elements", ErrFormat)
	}
	out := make([]any, len(items))
	for i, b := range items {
		if len(b)%int(base.Size) != 0 {
			return nil, fmt.Errorf("%w: %d-byte sequence of %d-byte elements", ErrFormat, len(b), base.Size)
		}
		v, err := f.decodeElements(ctx, base, b, len(b)/int(base.Size))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (f *File) decodeRefs(ctx context.Context, t *Datatype, n int, elem func(int) []byte) (any, error) {
	if t.Ref != RefObject {
		return f.decodeRegions(ctx, t, n, elem)
	}
	width := f.r.Sizes().OffsetSize
	if int(t.Size) < width {
		return nil, fmt.Errorf("%w: %d-byte object references with %d-byte addresses", ErrFormat, t.Size, width)
	}
	out := make([]ObjectRef, n)
	for i := range out {
		addr := uintOf(elem(i)[:width], false)
		path, err := f.PathOf(ctx, addr)
		if err != nil {
			return nil, err
		}
		out[i] = ObjectRef{Addr: addr, Path: path}
	}
	return out, nil
}

func (f *File) decodeCompound(ctx context.Context, t *Datatype, n int, elem func(int) []byte) (any, error) {
	out := make([]map[string]any, n)
	for i := range out {
		row := make(map[string]any, len(t.Fields))
		for _, fd := range t.Fields {
			b := elem(i)[fd.Offset : fd.Offset+fd.Type.Size]
			v, err := f.decodeElements(ctx, fd.Type, b, 1)
			if err != nil {
				return nil, fmt.Errorf("member %q: %w", fd.Name, err)
			}
			if fd.Type.Class == ClassArray {
				row[fd.Name] = v
			} else {
				row[fd.Name] = first(v)
			}
		}
		out[i] = row
	}
	return out, nil
}
