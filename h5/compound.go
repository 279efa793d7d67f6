package h5

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/lindigo/lindi/zarrmeta"
)

// packable reports whether every field of a compound dtype has a fixed-size
// byte representation (no references or objects), so rows can be packed.
func packable(dt zarrmeta.DType) bool {
	for _, f := range dt.Fields {
		switch f.DType.Kind {
		case zarrmeta.KindBool, zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat, zarrmeta.KindBytes:
		default:
			return false
		}
		if len(f.Shape) > 0 {
			return false
		}
	}
	return true
}

// packItems moves the items of a (a field picked from rows kept as objects)
// into Data when its dtype has a fixed-size form, so it reads like any
// other numeric or bytes array.
func packItems(a *Array) (*Array, error) {
	if !packable(zarrmeta.DType{Fields: []zarrmeta.Field{{DType: a.DType}}}) {
		return a, nil
	}
	size := a.DType.Size
	data := make([]byte, len(a.Objects)*size)
	for i, v := range a.Objects {
		if err := putValue(data[i*size:(i+1)*size], a.DType, v); err != nil {
			return nil, fmt.Errorf("h5: element %d: %w", i, err)
		}
	}
	if err := a.DType.SwapToNative(data); err != nil {
		return nil, err
	}
	return &Array{DType: a.DType.Native(), Shape: a.Shape, Data: data}, nil
}

// packRow writes one JSON row (a list with an item per field) as an element of dt.
func packRow(dst []byte, dt zarrmeta.DType, row any) error {
	items, ok := row.([]any)
	if !ok || len(items) != len(dt.Fields) {
		return fmt.Errorf("%w: compound row %v does not have %d fields", ErrFormat, row, len(dt.Fields))
	}
	for i, f := range dt.Fields {
		if err := putValue(dst[f.Offset:f.Offset+f.DType.Size], f.DType, items[i]); err != nil {
			return fmt.Errorf("field %q: %w", f.Name, err)
		}
	}
	return nil
}

// putValue encodes a decoded JSON scalar as one element of dt, in dt's byte order.
func putValue(dst []byte, dt zarrmeta.DType, v any) error {
	var order binary.ByteOrder = binary.LittleEndian
	if dt.Order == zarrmeta.BigEndian {
		order = binary.BigEndian
	}
	if dt.Kind == zarrmeta.KindBytes {
		s, ok := v.(string)
		if !ok || len(s) > len(dst) {
			return fmt.Errorf("%w: %v does not fit %s", ErrType, v, dt)
		}
		clear(dst[copy(dst, s):])
		return nil
	}
	var f float64
	var i int64
	switch x := v.(type) {
	case bool:
		if x {
			f, i = 1, 1
		}
	case int64:
		f, i = float64(x), x
	case uint64:
		f, i = float64(x), int64(x)
	case float64:
		f, i = x, int64(x)
		if dt.Kind != zarrmeta.KindFloat && x != math.Trunc(x) {
			return fmt.Errorf("%w: %v is not an integer", ErrType, x)
		}
	default:
		return fmt.Errorf("%w: %v (%T) is not a number", ErrType, v, v)
	}
	switch {
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 4:
		order.PutUint32(dst, math.Float32bits(float32(f)))
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 8:
		order.PutUint64(dst, math.Float64bits(f))
	case dt.Kind == zarrmeta.KindFloat:
		return fmt.Errorf("%w: cannot pack %s", ErrType, dt)
	case dt.Size == 1:
		dst[0] = byte(i)
	case dt.Size == 2:
		order.PutUint16(dst, uint16(i))
	case dt.Size == 4:
		order.PutUint32(dst, uint32(i))
	case dt.Size == 8:
		order.PutUint64(dst, uint64(i))
	default:
		return fmt.Errorf("%w: cannot pack %s", ErrType, dt)
	}
	return nil
}
