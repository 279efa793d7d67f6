package h5grove

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

// HDF5's type classes, as h5grove's type metadata numbers them.
const (
	classInteger   = 0
	classFloat     = 1
	classString    = 3
	classOpaque    = 5
	classCompound  = 6
	classReference = 7
	classEnum      = 8
	classArray     = 10
)

// typeMeta describes a dtype as h5grove's typeMetadata would describe the
// HDF5 type h5py writes for it (class, dtype, size, and per class order,
// sign, cset, strpad, vlen, tag, members, base): the description of data
// whose format stores no HDF5 type (LINDI, Zarr; see hdf5TypeMeta).
func typeMeta(dt zarrmeta.DType) map[string]any {
	m := map[string]any{"dtype": dtypeName(dt), "size": dt.Size}
	switch dt.Kind {
	case zarrmeta.KindInt, zarrmeta.KindUint:
		m["class"], m["order"], m["sign"] = classInteger, orderOf(dt), 0
		if dt.Kind == zarrmeta.KindInt {
			m["sign"] = 1
		}
	case zarrmeta.KindFloat:
		m["class"], m["order"] = classFloat, orderOf(dt)
	case zarrmeta.KindBool:
		// h5py stores numpy's bool as an enum of int8.
		base := zarrmeta.DType{Kind: zarrmeta.KindInt, Size: 1}
		m["class"], m["members"], m["base"] = classEnum, map[string]int64{"FALSE": 0, "TRUE": 1}, typeMeta(base)
	case zarrmeta.KindComplex:
		// h5py stores complex numbers as a compound of r and i.
		half := zarrmeta.DType{Kind: zarrmeta.KindFloat, Order: dt.Order, Size: dt.Size / 2}
		r, i := typeMeta(half), typeMeta(half)
		r["name"], i["name"] = "r", "i"
		m["class"], m["members"] = classCompound, []any{r, i}
	case zarrmeta.KindBytes:
		m["class"], m["cset"], m["strpad"], m["vlen"] = classString, 0, 1, false
	case zarrmeta.KindUnicode:
		m["class"], m["cset"], m["strpad"], m["vlen"] = classString, 1, 1, false
	case zarrmeta.KindObject:
		m["class"], m["cset"], m["strpad"], m["vlen"] = classString, 1, 0, true
	case zarrmeta.KindReference:
		m["class"] = classReference
	case zarrmeta.KindDatetime, zarrmeta.KindTimedelta:
		// h5py stores numpy's datetime64 and timedelta64 as opaque
		// types tagged with the dtype.
		m["class"], m["tag"] = classOpaque, "NUMPY:"+dt.String()
	case zarrmeta.KindStruct:
		members := make([]any, len(dt.Fields))
		for i, f := range dt.Fields {
			fm := typeMeta(f.DType)
			if len(f.Shape) > 0 {
				// numpy's dtype of a subarray, (base, dims), is a void.
				size := f.DType.Size * f.Count()
				fm = map[string]any{"class": classArray, "dtype": fmt.Sprintf("|V%d", size), "size": size, "dims": f.Shape, "base": fm}
			}
			fm["name"] = f.Name
			members[i] = fm
		}
		m["class"], m["members"] = classCompound, members
	default:
		m["class"], m["tag"] = classOpaque, ""
	}
	return m
}

// datasetTypeMeta describes the type of a dataset with no HDF5 type: its
// dtype, told apart further by what h5 knows of its strings, references
// and enum.
func datasetTypeMeta(ctx context.Context, d *h5.Dataset) map[string]any {
	dt := d.DType()
	if enum := d.Enum(); enum != nil && dt.Kind != zarrmeta.KindBool {
		return map[string]any{"class": classEnum, "dtype": dtypeName(dt), "size": dt.Size, "members": enum, "base": typeMeta(dt)}
	}
	if dt.Kind == zarrmeta.KindObject {
		if k, err := d.RefKind(ctx); err == nil && k != h5.NoRef {
			size := dt.Size
			if k == h5.RegionRef {
				size = 12 // HDF5's hdset_reg_ref_t, as h5py's TypeID says
			}
			return map[string]any{"class": classReference, "dtype": "|O", "size": size}
		}
	}
	m := typeMeta(dt)
	if info, ok, err := d.StringInfo(ctx); err == nil && ok {
		m["cset"] = 0
		if info.Encoding == "utf-8" {
			m["cset"] = 1
		}
	}
	return m
}

func orderOf(dt zarrmeta.DType) int {
	if dt.Order == zarrmeta.BigEndian {
		return 1
	}
	return 0
}

// dtypeName is numpy's name of dt: a typestr, or for a compound a map of
// its fields' names.
func dtypeName(dt zarrmeta.DType) any {
	if dt.Kind != zarrmeta.KindStruct {
		return dt.String()
	}
	fields := make(map[string]any, len(dt.Fields))
	for _, f := range dt.Fields {
		fields[f.Name] = dtypeName(f.DType)
		if len(f.Shape) > 0 {
			fields[f.Name] = fmt.Sprintf("|V%d", f.DType.Size*f.Count())
		}
	}
	return fields
}

// namedTypeMeta describes the type of a committed datatype with no HDF5
// type (one a LINDI index keeps), its enum members included.
func namedTypeMeta(t *h5.Datatype) map[string]any {
	dt := t.DType()
	if enum := t.Enum(); enum != nil && dt.Kind != zarrmeta.KindBool {
		return map[string]any{"class": classEnum, "dtype": dtypeName(dt), "size": dt.Size, "members": enum, "base": typeMeta(dt)}
	}
	return typeMeta(dt)
}

// valueTypeMeta describes the type of an attribute with no HDF5 type by
// its value as h5 gives it.
func valueTypeMeta(v any) (map[string]any, error) {
	switch v := v.(type) {
	case nil:
		return typeMeta(zarrmeta.DType{Kind: zarrmeta.KindFloat, Size: 8, Order: zarrmeta.LittleEndian}), nil
	case bool, []bool:
		return typeMeta(zarrmeta.DType{Kind: zarrmeta.KindBool, Size: 1}), nil
	case int64, []int64:
		return typeMeta(zarrmeta.DType{Kind: zarrmeta.KindInt, Size: 8, Order: zarrmeta.LittleEndian}), nil
	case uint64, []uint64:
		return typeMeta(zarrmeta.DType{Kind: zarrmeta.KindUint, Size: 8, Order: zarrmeta.LittleEndian}), nil
	case float64, []float64:
		return typeMeta(zarrmeta.DType{Kind: zarrmeta.KindFloat, Size: 8, Order: zarrmeta.LittleEndian}), nil
	case string, []string:
		return typeMeta(zarrmeta.DType{Kind: zarrmeta.KindObject, Size: 8}), nil
	case h5.Reference, []h5.Reference, h5.RegionReference:
		return map[string]any{"class": classReference, "dtype": "|O", "size": 8}, nil
	case []byte:
		return typeMeta(zarrmeta.DType{Kind: zarrmeta.KindVoid, Size: len(v)}), nil
	case [][]byte:
		if len(v) > 0 {
			return valueTypeMeta(v[0])
		}
	case h5.Datetime, []h5.Datetime, h5.Timedelta, []h5.Timedelta:
		return timeTypeMeta(v), nil
	case map[string]any:
		return map[string]any{"class": classCompound, "dtype": "|V", "size": 0, "members": []any{}}, nil
	case []any:
		if len(v) == 0 {
			return typeMeta(zarrmeta.DType{Kind: zarrmeta.KindFloat, Size: 8, Order: zarrmeta.LittleEndian}), nil
		}
		return valueTypeMeta(v[0])
	}
	return nil, fmt.Errorf("h5grove: attribute value of type %T", v)
}

// timeTypeMeta describes the type of a datetime64 or timedelta64
// attribute value as h5py's opaque type tagged with its dtype.
func timeTypeMeta(v any) map[string]any {
	dt := zarrmeta.DType{Kind: zarrmeta.KindDatetime, Order: zarrmeta.LittleEndian, Size: 8}
	switch v := v.(type) {
	case h5.Datetime:
		dt.Unit = v.Unit
	case []h5.Datetime:
		if len(v) > 0 {
			dt.Unit = v[0].Unit
		}
	case h5.Timedelta:
		dt.Kind, dt.Unit = zarrmeta.KindTimedelta, v.Unit
	case []h5.Timedelta:
		dt.Kind = zarrmeta.KindTimedelta
		if len(v) > 0 {
			dt.Unit = v[0].Unit
		}
	}
	return typeMeta(dt)
}

// valueShape is the shape of an attribute value: nil for an empty one
// (h5py's Empty), [] for a scalar.
func valueShape(v any) []int {
	switch v := v.(type) {
	case nil:
		return nil
	case []bool:
		return []int{len(v)}
	case []int64:
		return []int{len(v)}
	case []uint64:
		return []int{len(v)}
	case []float64:
		return []int{len(v)}
	case []string:
		return []int{len(v)}
	case []h5.Reference:
		return []int{len(v)}
	case [][]byte:
		return []int{len(v)}
	case []h5.Datetime:
		return []int{len(v)}
	case []h5.Timedelta:
		return []int{len(v)}
	case []any:
		if len(v) == 0 {
			return []int{0}
		}
		inner := valueShape(v[0])
		return append([]int{len(v)}, inner...)
	}
	return []int{}
}
