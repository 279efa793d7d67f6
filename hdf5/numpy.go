package hdf5

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// NumpyDescr returns the numpy dtype text of t, as zarr's .zarray and
// LINDI write it: "<i2", ">f8", "|u1" for integers and floats (the order
// character is "|" for one-byte types); "|b1" for h5py's bool enum and an
// enum's base type for other enums; "|S5" for fixed-length strings; "|O"
// for variable-length strings and sequences and for references; "|V8" for
// opaque types and for integers and bitfields of a size numpy has no
// integer for (3, 5, 6, 7 or more than 8 bytes), except an opaque type
// h5py tagged with a numpy datetime64 or timedelta64 dtype ("NUMPY:<M8[s]"),
// which is that dtype (an opaque type tagged with bytes, an integer or a
// float, "NUMPY:|S21", is parsed as that type: see numpyTagged); and for a compound a JSON list such as
// [["a","<i4"],["b","<f8"]], where an array member reads ["c","<i4",[3]]
// and bytes before, between or after the members are ["","|V6"] entries,
// as numpy's descr writes them. Compounds whose members overlap or are out
// of offset order, array types outside compounds, and time types have no
// such text: NumpyDescr reports ErrUnsupported for them.
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
		if t.Size != 1 && t.Size != 2 && t.Size != 4 && t.Size != 8 {
			// numpy has no integers of other sizes (h5py refuses "<u3"):
			// their bytes, as for a wide bitfield.
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
		if d, ok := t.NumpyTag(); ok {
			return d, nil
		}
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
	if len(t.Fields) == 0 {
		return nil, fmt.Errorf("%w: numpy dtype of a compound with no members", ErrUnsupported)
	}
	list := make([]any, 0, len(t.Fields))
	var next uint32
	seen := make(map[string]bool, len(t.Fields))
	for _, f := range t.Fields {
		if f.Name == "" {
			return nil, fmt.Errorf("%w: numpy dtype of a compound member with no name", ErrUnsupported)
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("%w: compound members share the name %q", ErrFormat, f.Name)
		}
		seen[f.Name] = true
		if f.Offset < next {
			return nil, fmt.Errorf("%w: numpy dtype of compound member %q at offset %d, before the end of the one before (%d)",
				ErrUnsupported, f.Name, f.Offset, next)
		}
		if f.Offset > next {
			list = append(list, []any{"", fmt.Sprintf("|V%d", f.Offset-next)})
		}
		next = f.Offset + f.Type.Size
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
	if next < t.Size {
		list = append(list, []any{"", fmt.Sprintf("|V%d", t.Size-next)})
	}
	return list, nil
}

// NumpyTag returns the numpy dtype h5py names in the tag of an opaque type
// it wrote for numpy's datetime64 and timedelta64 ("NUMPY:<M8[s]" →
// "<M8[s]"); ok is false for any other type or tag, and for a tag whose
// dtype is not an 8-byte time of a known unit or does not fill the type.
func (t *Datatype) NumpyTag() (descr string, ok bool) {
	d, found := strings.CutPrefix(t.Tag, "NUMPY:")
	if t.Class != ClassOpaque || !found || t.Size != 8 || len(d) < 5 {
		return "", false
	}
	if (d[0] != '<' && d[0] != '>') || (d[1] != 'M' && d[1] != 'm') || d[2] != '8' || d[3] != '[' || d[len(d)-1] != ']' {
		return "", false
	}
	switch d[4 : len(d)-1] {
	case "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as":
		return d, true
	}
	return "", false
}

// ieeeFloats are the layouts of IEEE 754 floats by size: exponent location
// and size, mantissa size, exponent bias.
var ieeeFloats = map[uint32][4]uint32{2: {10, 5, 10, 15}, 4: {23, 8, 23, 127}, 8: {52, 11, 52, 1023}}

// numpyTagged returns the type an opaque type stands for when h5py tagged it
// with a numpy dtype of bytes, an integer or a float that fills it
// ("NUMPY:|S21", "NUMPY:<i4"), as h5py reads it; nil for any other type or
// tag (datetime64 and timedelta64 tags stay opaque: see NumpyTag).
func (t *Datatype) numpyTagged() *Datatype {
	d, found := strings.CutPrefix(t.Tag, "NUMPY:")
	if t.Class != ClassOpaque || !found || len(d) < 3 || !strings.ContainsRune("<>|", rune(d[0])) {
		return nil
	}
	n, err := strconv.Atoi(d[2:])
	if err != nil || n <= 0 || uint32(n) != t.Size {
		return nil
	}
	out := &Datatype{Version: 1, Size: t.Size, BigEndian: d[0] == '>', Tag: t.Tag}
	switch {
	case d[1] == 'S':
		out.Class, out.Pad = ClassString, PadNullPad
	case (d[1] == 'i' || d[1] == 'u') && (n == 1 || n == 2 || n == 4 || n == 8) && (n == 1) == (d[0] == '|'):
		out.Class, out.Signed, out.Precision = ClassFixed, d[1] == 'i', uint16(8*n)
	case d[1] == 'f' && d[0] != '|' && ieeeFloats[t.Size] != [4]uint32{}:
		l := ieeeFloats[t.Size]
		out.Class, out.Precision = ClassFloat, uint16(8*n)
		out.ExpLocation, out.ExpSize, out.MantSize, out.ExpBias = uint8(l[0]), uint8(l[1]), uint8(l[2]), l[3]
	default:
		return nil
	}
	return out
}
