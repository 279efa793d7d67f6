package fileio

import "errors"

// The sentinels package hdf5 exports as ErrFormat and ErrUnsupported,
// declared here so that the internal packages (layout, btree2) wrap the
// very errors callers of package hdf5 test with errors.Is.
var (
	// ErrFormat reports a structure that violates the file format.
	ErrFormat = errors.New("hdf5: malformed file")
	// ErrUnsupported reports a valid structure that is not read.
	ErrUnsupported = errors.New("hdf5: unsupported feature")
)
