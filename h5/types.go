package h5

import "github.com/lindigo/lindi/internal/driver"

// Type is an element type as HDF5 describes it: what h5py's TypeID (a
// dataset's id.get_type(), an attribute's get_type()) tells of it. Files
// read from HDF5 have one for every dataset, committed datatype and
// attribute; formats that store no HDF5 type (LINDI, Zarr) have none.
type Type struct {
	// Class is HDF5's type class: ClassInteger, ClassFloat, ….
	Class TypeClass
	// Size is the bytes of one element as h5py's get_size gives it (a
	// variable-length string takes a pointer's 8, a sequence 16).
	Size int
	// BigEndian and Signed are set for big-endian and signed numbers.
	BigEndian, Signed bool
	// Cset (0 ASCII, 1 UTF-8) and StrPad (0 null-terminated, 1
	// null-padded, 2 space-padded) describe strings; VlenString is set
	// for a variable-length string.
	Cset, StrPad int
	VlenString   bool
	// Tag is an opaque type's tag.
	Tag string
	// Dims are an array type's dimensions.
	Dims []int
	// Base is the base type of an enum, array or sequence.
	Base *Type
	// Members are a compound's members, in order.
	Members []TypeMember
	// Enum maps an enum's names to their values (h5py's bool enum:
	// FALSE 0, TRUE 1).
	Enum map[string]int64
	// RegionRef is set for references to dataset regions.
	RegionRef bool
}

// TypeMember is a member of a compound Type.
type TypeMember struct {
	Name string
	Type *Type
}

// TypeClass is HDF5's type class (H5T_class_t), numbered as HDF5 and h5py's
// get_class number them.
type TypeClass int

// The HDF5 type classes.
const (
	ClassInteger   TypeClass = 0
	ClassFloat     TypeClass = 1
	ClassTime      TypeClass = 2
	ClassString    TypeClass = 3 // fixed-length and variable-length strings
	ClassBitfield  TypeClass = 4
	ClassOpaque    TypeClass = 5
	ClassCompound  TypeClass = 6
	ClassReference TypeClass = 7
	ClassEnum      TypeClass = 8
	ClassVlen      TypeClass = 9 // variable-length sequences
	ClassArray     TypeClass = 10
)

// typeOf copies a driver's description of a type.
func typeOf(t *driver.Type) *Type {
	if t == nil {
		return nil
	}
	out := &Type{Class: TypeClass(t.Class), Size: t.Size, BigEndian: t.BigEndian, Signed: t.Signed,
		Cset: t.Cset, StrPad: t.StrPad, VlenString: t.VlenString, Tag: t.Tag, Dims: t.Dims,
		Base: typeOf(t.Base), Enum: t.Enum, RegionRef: t.RegionRef}
	for _, m := range t.Members {
		out.Members = append(out.Members, TypeMember{Name: m.Name, Type: typeOf(m.Type)})
	}
	return out
}

// Type is the HDF5 type of the dataset's elements; nil for formats that
// store no HDF5 type (LINDI, Zarr).
func (d *Dataset) Type() *Type { return typeOf(d.d.Type) }

// Type is the committed datatype's HDF5 type; nil for formats that store
// no HDF5 type (a LINDI index keeps its numpy dtype: see DType).
func (t *Datatype) Type() *Type { return typeOf(t.d.Type) }
