package zarrmeta

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrValue is wrapped by errors for values that do not fit a dtype.
var ErrValue = errors.New("zarrmeta: value does not fit the dtype")

// Fixed reports whether every element of dt has a fixed-size byte form that
// EncodeValue writes: a bool, number or bytes dtype, or a compound of such
// fields without subarrays.
func (dt DType) Fixed() bool {
	if len(dt.Fields) == 0 {
		return fixedKind(dt.Kind)
	}
	for _, f := range dt.Fields {
		if !fixedKind(f.DType.Kind) || len(f.Shape) > 0 {
			return false
		}
	}
	return true
}

func fixedKind(k Kind) bool {
	switch k {
	case KindBool, KindInt, KindUint, KindFloat, KindBytes:
		return true
	}
	return false
}

// EncodeValue writes v — a bool, int64, uint64 or float64 for a number
// dtype, a string or []byte for a bytes dtype — as one element of dt, in
// dt's byte order, into dst (dt.Size bytes). A value that does not fit wraps
// ErrValue.
func (dt DType) EncodeValue(dst []byte, v any) error {
	var order binary.ByteOrder = binary.LittleEndian
	if dt.Order == BigEndian {
		order = binary.BigEndian
	}
	if dt.Kind == KindBytes {
		var b []byte
		switch x := v.(type) {
		case string:
			b = []byte(x)
		case []byte:
			b = x
		default:
			return fmt.Errorf("%w: %v (%T) is not bytes", ErrValue, v, v)
		}
		if len(b) > len(dst) {
			return fmt.Errorf("%w: %v does not fit %s", ErrValue, v, dt)
		}
		clear(dst[copy(dst, b):])
		return nil
	}
	f, i, err := numberOf(v, dt.Kind != KindFloat)
	if err != nil {
		return err
	}
	switch {
	case dt.Kind == KindFloat && dt.Size == 4:
		order.PutUint32(dst, math.Float32bits(float32(f)))
	case dt.Kind == KindFloat && dt.Size == 8:
		order.PutUint64(dst, math.Float64bits(f))
	case dt.Kind == KindFloat:
		return fmt.Errorf("%w: cannot encode %s", ErrValue, dt)
	case dt.Size == 1:
		dst[0] = byte(i)
	case dt.Size == 2:
		order.PutUint16(dst, uint16(i))
	case dt.Size == 4:
		order.PutUint32(dst, uint32(i))
	case dt.Size == 8:
		order.PutUint64(dst, uint64(i))
	default:
		return fmt.Errorf("%w: cannot encode %s", ErrValue, dt)
	}
	return nil
}

// numberOf gives v as a float and an integer; integral requires an integer.
func numberOf(v any, integral bool) (float64, int64, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, 1, nil
		}
		return 0, 0, nil
	case int64:
		return float64(x), x, nil
	case uint64:
		return float64(x), int64(x), nil
	case float64:
		if integral && x != math.Trunc(x) {
			return 0, 0, fmt.Errorf("%w: %v is not an integer", ErrValue, x)
		}
		return x, int64(x), nil
	}
	return 0, 0, fmt.Errorf("%w: %v (%T) is not a number", ErrValue, v, v)
}
