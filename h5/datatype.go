package h5

import (
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/zarrmeta"
)

// Datatype is an HDF5 committed (named) datatype, h5py's h5py.Datatype: an
// object of a file's tree that holds a type and attributes, no data.
// Datasets whose elements are of it name it (Dataset.NamedType). LINDI and
// Zarr have no such objects.
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

// Err reports why the type has no numpy dtype (an HDF5 time type, say), or
// nil.
func (t *Datatype) Err() error { return t.d.Err }

// NamedType is the path of the committed datatype the dataset's elements
// are (h5py: the dataset's id.get_type().committed()), or "" when its type
// is its own.
func (d *Dataset) NamedType() string { return d.d.NamedType }
