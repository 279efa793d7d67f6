package h5

import (
	"maps"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/zarrmeta"
)

// Datatype is an HDF5 committed (named) datatype, h5py's h5py.Datatype: an
// object of a file's tree that holds a type and attributes, no data.
// Datasets whose elements are of it name it (Dataset.NamedType). Zarr has
// no such objects: lindi index writes one as a group marked _DATATYPE
// (zarrmeta.AttrDatatype), which reads back as a Datatype.
type Datatype struct {
	f     *File
	path  string
	d     *driver.Datatype
	attrs Attrs
}

// Name is the last component of the datatype's path.
func (t *Datatype) Name() string { return baseName(t.path) }

// Path is the datatype's absolute path.
func (t *Datatype) Path() string { return t.path }

// Attrs returns the datatype's attributes.
func (t *Datatype) Attrs() Attrs { return t.attrs }

// File is the file the datatype belongs to.
func (t *Datatype) File() *File { return t.f }

// DType is the type's numpy dtype, as a dataset of it has; see Err when the
// type has none.
func (t *Datatype) DType() zarrmeta.DType { return t.d.DType }

// Enum maps the names of an enumerated type to their values (h5py's
// check_enum_dtype), as Dataset.Enum does; nil for other types.
func (t *Datatype) Enum() map[string]int64 { return maps.Clone(t.d.Enum) }

// Err reports why the type has no numpy dtype (an HDF5 time type, say), or
// nil.
func (t *Datatype) Err() error { return t.d.Err }

// NamedType is the path of the committed datatype the dataset's elements
// are (h5py: the dataset's id.get_type().committed()), or "" when its type
// is its own.
func (d *Dataset) NamedType() string { return d.d.NamedType }
