package hdf5

import (
	"errors"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Sentinel errors. Errors returned by this package wrap one of these (or an
// error of hdf5/internal/fileio such as a truncated structure or a checksum
// mismatch) with the path, address and field involved; test them with
// errors.Is.
var (
	// ErrNotHDF5 reports a source with no HDF5 signature at any of the
	// offsets a superblock may sit at.
	ErrNotHDF5 = errors.New("hdf5: not an HDF5 file")
	// ErrFormat reports a structure that violates the file format: a bad
	// signature or version, a size that cannot be, a loop.
	ErrFormat = fileio.ErrFormat
	// ErrUnsupported reports a valid structure this package does not read.
	ErrUnsupported = fileio.ErrUnsupported
	// ErrNotFound reports a path that names no object.
	ErrNotFound = errors.New("hdf5: object not found")
	// ErrExternalLink reports a path that goes through an external link;
	// the error text names the target file and path.
	ErrExternalLink = errors.New("hdf5: external link")
	// ErrLinkLoop reports soft links that refer to each other in a cycle
	// or nest deeper than MaxLinkDepth.
	ErrLinkLoop = errors.New("hdf5: too many levels of soft links")
	// ErrNotGroup reports a path component that is not a group.
	ErrNotGroup = errors.New("hdf5: not a group")
	// ErrNotDataset reports an object that is not a dataset.
	ErrNotDataset = errors.New("hdf5: not a dataset")
)

// Errors of the byte-level reader, re-exported so that callers outside
// this module's hdf5 tree can test them with errors.Is.
var (
	// ErrTruncated reports a structure that ends before all its fields.
	ErrTruncated = fileio.ErrShort
	// ErrChecksum reports a metadata structure whose checksum does not
	// match its bytes.
	ErrChecksum = fileio.ErrChecksum
	// ErrOutOfRange reports an address or range past the end of the file.
	ErrOutOfRange = fileio.ErrOutOfRange
	// ErrTooLarge reports a read larger than the reader's limit (256 MiB).
	ErrTooLarge = fileio.ErrTooLarge
)
