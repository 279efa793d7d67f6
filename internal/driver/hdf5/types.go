package hdf5

import (
	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/internal/driver"
)

// typeOf describes t as h5py's TypeID does: variable-length strings are of
// the string class, and variable-length members take the room they take in
// memory (a string's pointer, a sequence's length and pointer), as HDF5
// gives a dataset's or attribute's type to h5py.
func typeOf(t *hdf5.Datatype) *driver.Type {
	if t == nil {
		return nil
	}
	out := &driver.Type{Class: int(t.Class), Size: memSize(t), BigEndian: t.BigEndian, Signed: t.Signed, Tag: t.Tag}
	if t.Tag != "" && t.Class != hdf5.ClassOpaque {
		// An opaque type h5py tagged with a numpy dtype, which this
		// package reads as that dtype: h5py's TypeID is the opaque one.
		return &driver.Type{Class: int(hdf5.ClassOpaque), Size: int(t.Size), Tag: t.Tag}
	}
	switch t.Class {
	case hdf5.ClassString:
		out.Cset, out.StrPad = int(t.Charset), int(t.Pad)
	case hdf5.ClassVlen:
		if t.VlenString {
			out.Class, out.Cset, out.StrPad, out.VlenString = int(hdf5.ClassString), int(t.Charset), int(t.Pad), true
			break
		}
		out.Base = typeOf(t.Base)
	case hdf5.ClassEnum:
		out.Base, out.Enum = typeOf(t.Base), t.EnumValues()
		if t.IsBool() {
			out.Enum = map[string]int64{"FALSE": 0, "TRUE": 1}
		}
	case hdf5.ClassArray:
		out.Base = typeOf(t.Base)
		for _, d := range t.Dims {
			out.Dims = append(out.Dims, int(d))
		}
	case hdf5.ClassCompound:
		for _, f := range t.Fields {
			out.Members = append(out.Members, driver.Member{Name: f.Name, Type: typeOf(f.Type)})
		}
	case hdf5.ClassReference:
		out.RegionRef = t.Ref == hdf5.RefRegion
	}
	return out
}

// memSize is the bytes an element of t takes in memory, as H5Tget_size
// gives it for the type of a dataset or attribute: a variable-length
// string is a pointer, a sequence a length and a pointer, and a compound
// grows or shrinks by what its members do.
func memSize(t *hdf5.Datatype) int {
	switch t.Class {
	case hdf5.ClassVlen:
		if t.VlenString {
			return 8
		}
		return 16
	case hdf5.ClassArray:
		n := 1
		for _, d := range t.Dims {
			n *= int(d)
		}
		if t.Base == nil {
			return int(t.Size)
		}
		return n * memSize(t.Base)
	case hdf5.ClassCompound:
		size := int(t.Size)
		for _, f := range t.Fields {
			size += memSize(f.Type) - int(f.Type.Size)
		}
		return size
	}
	return int(t.Size)
}
