package hdf5

import (
	"encoding/json"
	"fmt"
	"strings"
)

// NumpyDescr returns the numpy dtype text of t, as zarr's .zarray and
// LINDI write it: "<i2", ">f8", "|u1" for integers and floats (the order
// character is "|" for one-byte types); "|b1" for h5py's bool enum and an
// enum's base type for other enums; "|S5" for fixed-length strings; "|O"
// for variable-length strings and sequences and for references; "|V8" for
// opaque types and bitfields wider than 8 bytes; and for a compound a JSON
// list such as [["a","<i4"],["b","<f8"]], where an array member reads
// ["c","<i4",[3]]. Compounds whose members leave gaps or overlap, array
// types outside compounds, and time types have no such text: NumpyDescr
// reports ErrUnsupported for them.
func (t *Datatype) NumpyDescr() (string, error) {
	v, err := t.descr(false)
	if err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false) // "<i4", not "\u003ci4"
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("hdf5: numpy dtype: %w", err)
	}
	return strings.TrimSuffix(sb.String(), "\n"), nil
}

// descr returns a string for simple types and a []any for compounds.
func (t *Datatype) descr(inCompound bool) (any, error) {
	switch t.Class {
	case ClassFixed, ClassBitfield:
		if t.Size > 8 {
			return fmt.Sprintf("|V%d", t.Size), nil
		}
		kind := "u"
		if t.Signed && t.Class == ClassFixed {
			kind = "i"
		}
		return t.order() + kind + fmt.Sprint(t.Size), nil
	case ClassFloat:
		if t.Size != 2 && t.Size != 4 && t.Size != 8 {
			return nil, fmt.Errorf("%w: numpy dtype of a %d-byte float", ErrUnsupported, t.Size)
		}
		return t.order() + "f" + fmt.Sprint(t.Size), nil
	case ClassString:
		return fmt.Sprintf("|S%d", t.Size), nil
	case ClassOpaque:
		return fmt.Sprintf("|V%d", t.Size), nil
	case ClassVlen, ClassReference:
		return "|O", nil
	case ClassEnum:
		if t.IsBool() {
			return "|b1", nil
		}
		return t.Base.descr(inCompound)
	case ClassCompound:
		return t.compoundDescr()
	}
	return nil, fmt.Errorf("%w: numpy dtype of a top-level %s datatype", ErrUnsupported, t.Class)
}

func (t *Datatype) order() string {
	switch {
	case t.Size == 1:
		return "|"
	case t.BigEndian:
		return ">"
	}
	return "<"
}

func (t *Datatype) compoundDescr() (any, error) {
	list := make([]any, 0, len(t.Fields))
	var next uint32
	for _, f := range t.Fields {
		if f.Offset != next {
			return nil, fmt.Errorf("%w: numpy dtype of compound member %q at offset %d (packed offset %d)",
				ErrUnsupported, f.Name, f.Offset, next)
		}
		next += f.Type.Size
		ft := f.Type
		var dims []uint32
		if ft.Class == ClassArray {
			dims, ft = ft.Dims, ft.Base
		}
		d, err := ft.descr(true)
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", f.Name, err)
		}
		if dims != nil {
			list = append(list, []any{f.Name, d, dims})
		} else {
			list = append(list, []any{f.Name, d})
		}
	}
	if next != t.Size {
		return nil, fmt.Errorf("%w: numpy dtype of a %d-byte compound whose members end at %d",
			ErrUnsupported, t.Size, next)
	}
	return list, nil
}
