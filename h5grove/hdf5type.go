package h5grove

import (
	"fmt"
	"strings"

	"github.com/lindigo/lindi/h5"
)

// hdf5TypeMeta describes an HDF5 type as h5grove's get_type_metadata does
// with h5py's TypeID: class, dtype and size, and per class order, sign,
// cset, strpad, vlen, tag, members, dims and base.
func hdf5TypeMeta(t *h5.Type) map[string]any {
	m := map[string]any{"class": int(t.Class), "dtype": hdf5DType(t), "size": t.Size}
	switch t.Class {
	case h5.ClassInteger:
		m["order"], m["sign"] = byteOrder(t), boolInt(t.Signed)
	case h5.ClassFloat, h5.ClassBitfield:
		m["order"] = byteOrder(t)
	case h5.ClassString:
		m["cset"], m["strpad"], m["vlen"] = t.Cset, t.StrPad, t.VlenString
	case h5.ClassOpaque:
		m["tag"] = t.Tag
	case h5.ClassCompound:
		members := make([]any, len(t.Members))
		for i, f := range t.Members {
			fm := hdf5TypeMeta(f.Type)
			fm["name"] = f.Name
			members[i] = fm
		}
		m["members"] = members
	case h5.ClassEnum:
		m["members"], m["base"] = t.Enum, hdf5TypeMeta(t.Base)
	case h5.ClassVlen:
		m["base"] = hdf5TypeMeta(t.Base)
	case h5.ClassArray:
		m["dims"], m["base"] = t.Dims, hdf5TypeMeta(t.Base)
	}
	return m
}

func byteOrder(t *h5.Type) int { return boolInt(t.BigEndian) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// hdf5DType is the numpy dtype h5py gives an HDF5 type, as h5grove's
// stringify_dtype writes it: a typestr, or for a compound a map of its
// members' names to theirs.
func hdf5DType(t *h5.Type) any {
	switch t.Class {
	case h5.ClassInteger, h5.ClassBitfield:
		kind := "u"
		if t.Signed && t.Class == h5.ClassInteger {
			kind = "i"
		}
		return typestr(t, kind)
	case h5.ClassFloat:
		return typestr(t, "f")
	case h5.ClassString:
		if t.VlenString {
			return "|O"
		}
		return fmt.Sprintf("|S%d", t.Size)
	case h5.ClassOpaque:
		if d, ok := strings.CutPrefix(t.Tag, "NUMPY:"); ok && d != "" {
			return d
		}
	case h5.ClassEnum:
		if isBoolEnum(t) {
			return "|b1"
		}
		return hdf5DType(t.Base)
	case h5.ClassVlen, h5.ClassReference:
		return "|O"
	case h5.ClassCompound:
		return compoundDType(t)
	}
	return fmt.Sprintf("|V%d", t.Size)
}

// typestr is numpy's typestr of a number of kind ("i", "u", "f").
func typestr(t *h5.Type, kind string) string {
	order := "<"
	switch {
	case t.Size == 1:
		order = "|"
	case t.BigEndian:
		order = ">"
	}
	return fmt.Sprintf("%s%s%d", order, kind, t.Size)
}

func isBoolEnum(t *h5.Type) bool {
	return len(t.Enum) == 2 && t.Base != nil && t.Base.Size == 1 && t.Enum["FALSE"] == 0 && t.Enum["TRUE"] == 1
}

// compoundDType is h5py's dtype of a compound: complex for two floats of
// one size named r and i (as h5py writes complex numbers), otherwise its
// members' dtypes by name (an array member's is a void of its size).
func compoundDType(t *h5.Type) any {
	if len(t.Members) == 2 && t.Members[0].Name == "r" && t.Members[1].Name == "i" {
		r, i := t.Members[0].Type, t.Members[1].Type
		if r.Class == h5.ClassFloat && i.Class == h5.ClassFloat && r.Size == i.Size && r.BigEndian == i.BigEndian {
			c := *r
			c.Size *= 2
			return typestr(&c, "c")
		}
	}
	fields := make(map[string]any, len(t.Members))
	for _, f := range t.Members {
		fields[f.Name] = hdf5DType(f.Type)
	}
	return fields
}
