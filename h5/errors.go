package h5

import (
	"errors"

	"github.com/lindigo/lindi/internal/driver"
)

var (
	// ErrNotFound is wrapped by errors for paths that name no object.
	ErrNotFound = errors.New("h5: object not found")
	// ErrNotGroup is wrapped by errors for paths that go through, or name, something that is not a group.
	ErrNotGroup = errors.New("h5: not a group")
	// ErrNotDataset is wrapped by errors for paths that name something that is not a dataset.
	ErrNotDataset = errors.New("h5: not a dataset")
	// ErrLinkCycle is wrapped by errors for soft links that lead back to themselves.
	ErrLinkCycle = errors.New("h5: soft link cycle")
	// ErrExternalLink is wrapped by errors for links into another file that
	// cannot be followed (the file does not open, the path is not in it).
	ErrExternalLink = errors.New("h5: external link not followed")
	// ErrType is wrapped by errors for reads or conversions that the dataset's dtype does not allow.
	ErrType = errors.New("h5: type mismatch")
	// ErrAttribute is wrapped by errors for attributes that exist but could
	// not be decoded (a datatype this package does not read).
	ErrAttribute = errors.New("h5: attribute not decoded")
	// ErrShort is wrapped by errors for a destination too small for a read.
	ErrShort = errors.New("h5: destination too small")
	// ErrFormat is wrapped by errors for metadata that cannot be understood.
	ErrFormat = driver.ErrFormat
	// ErrNeedsHDF5 is wrapped by errors for datasets kept only in an HDF5 file
	// (LINDI's _EXTERNAL_ARRAY_LINK) when that file cannot be read.
	ErrNeedsHDF5 = driver.ErrNeedsHDF5
)
