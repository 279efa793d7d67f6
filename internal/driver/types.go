package driver

// Type is an element type as HDF5 describes it, what h5py's TypeID tells
// of it: a driver of a format that stores HDF5 types gives it for
// datasets, committed datatypes and attributes (TypedAttr).
type Type struct {
	// Class is HDF5's type class (H5T_class_t): 0 integer, 1 float,
	// 3 string, 4 bitfield, 5 opaque, 6 compound, 7 reference, 8 enum,
	// 9 variable-length sequence, 10 array.
	Class int
	// Size is the bytes of one element, as H5Tget_size gives it.
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
	// Members are a compound's members in order.
	Members []Member
	// Enum maps an enum's names to their values.
	Enum map[string]int64
	// RegionRef is set for a reference type to dataset regions.
	RegionRef bool
}

// Member is a member of a compound Type.
type Member struct {
	Name string
	Type *Type
}

// TypedAttr is an attribute value (or the error that it could not be
// decoded) with its HDF5 type and the shape of its dataspace (nil for a
// null one), as a driver that knows them gives it in an Attrs map.
type TypedAttr struct {
	Value any
	Type  *Type
	Shape []int
}
