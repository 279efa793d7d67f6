package h5

import (
	"slices"
	"sync"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/zarrmeta"
)

// Dataset is an n-dimensional array of one dtype, stored in chunks.
type Dataset struct {
	f     *File
	path  string
	d     *driver.Dataset
	mu    sync.RWMutex // guards attrs, which SetAttr changes
	attrs Attrs
}

func newDataset(f *File, d *driver.Dataset, path string) *Dataset {
	return &Dataset{f: f, path: path, attrs: newAttrs(d.Attrs), d: d}
}

// Name is the last component of the dataset's path.
func (d *Dataset) Name() string { return baseName(d.path) }

// Path is the dataset's absolute path.
func (d *Dataset) Path() string { return d.path }

// Attrs returns the dataset's attributes.
func (d *Dataset) Attrs() Attrs {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.attrs
}

// File is the file the dataset belongs to.
func (d *Dataset) File() *File { return d.f }

// Shape is the dataset's shape; empty for a scalar, nil for a null
// dataspace (Null). The slice is a copy.
func (d *Dataset) Shape() []int {
	if d.d.Null {
		return nil
	}
	return slices.Clone(d.d.Shape)
}

// Null reports whether the dataset has a null dataspace (HDF5's H5S_NULL,
// h5py's Empty): no shape (Shape is nil, as h5py's shape is None) and no
// elements (a read gives an empty array).
func (d *Dataset) Null() bool { return d.d.Null }

// NDim is the number of dimensions (0 for a scalar).
func (d *Dataset) NDim() int { return len(d.d.Shape) }

// Size is the number of elements (1 for a scalar), as h5py's Dataset.size.
// There is no Len: h5py's len(ds) is Shape()[0], and a method of that name
// counting elements would mislead.
func (d *Dataset) Size() int {
	n := 1
	for _, s := range d.d.Shape {
		n *= s
	}
	return n
}

// DType is the dataset's element type as stored (its byte order may not be
// native; reads convert to native order).
func (d *Dataset) DType() zarrmeta.DType { return d.d.DType }

// Chunks is the chunk shape, or nil for a dataset that is not chunked
// (Layout Contiguous or Compact), as h5py's chunks is None. A scalar Zarr or
// LINDI array has empty, non-nil chunks. The slice is a copy.
func (d *Dataset) Chunks() []int { return slices.Clone(d.d.Chunks) }

// IsVirtual reports whether the dataset is an HDF5 virtual dataset, as h5py's
// is_virtual.
func (d *Dataset) IsVirtual() bool { return d.d.Layout == driver.Virtual }

// Layout tells how the dataset's elements are stored. Every Zarr and LINDI
// array is Chunked (LINDI writes a contiguous HDF5 dataset as one chunk or
// splits it into several).
func (d *Dataset) Layout() Layout { return Layout(d.d.Layout) }

// Layout is how a dataset's elements are stored, as HDF5 names the layouts.
type Layout int

// The storage layouts.
const (
	Chunked    = Layout(driver.Chunked)    // in chunks, located by a chunk index or key
	Contiguous = Layout(driver.Contiguous) // in one byte range of the file
	Compact    = Layout(driver.Compact)    // inside the dataset's metadata
	Virtual    = Layout(driver.Virtual)    // mapped from other datasets: HDF5 virtual datasets
)

// String names the layout as h5py's low-level API does: "chunked",
// "contiguous", "compact" or "virtual".
func (l Layout) String() string { return driver.Layout(l).String() }

// Fill is the fill value that unwritten chunks read as.
func (d *Dataset) Fill() zarrmeta.Fill { return d.d.Fill }

// Codecs lists the ids of the codecs a chunk passes through, in the order they
// were applied when writing.
func (d *Dataset) Codecs() []string { return slices.Clone(d.d.Codecs) }

// Scalar reports whether the dataset is a scalar (shape ()).
func (d *Dataset) Scalar() bool { return d.d.Scalar }

// Err reports why the dataset cannot be read (an unknown codec, an
// unsupported datatype or layout), or nil when it can. Reads of such a
// dataset fail with this error; the rest of the file reads as usual.
func (d *Dataset) Err() error { return d.d.Err }
