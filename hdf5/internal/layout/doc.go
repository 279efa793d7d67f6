// Package layout decodes how an HDF5 dataset's raw data is stored: the
// Data Layout message (versions 1 to 4: compact, contiguous and chunked
// storage), the chunk indexes that map chunk grid coordinates to byte
// ranges (version 1 B-tree, single chunk, implicit, fixed array,
// extensible array, version 2 B-tree), and the Filter Pipeline message
// mapped onto the numcodecs-style codec configurations of package
// github.com/lindigo/lindi/codecs.
//
// # Reading chunks
//
// Parse a dataset's layout message, then call Index with the dataset's
// current and maximum dimensions. Index.Lookup returns a chunk's address,
// stored size and filter mask, or false when the chunk was never written
// (its elements hold the fill value). Index.All lists every stored chunk.
//
// HDF5 applies the filters of a pipeline in order when writing, so a
// reader decodes with them in reverse order. Bit i of a chunk's
// FilterMask set means filter i of the pipeline was skipped for that
// chunk (an optional filter that failed or did not pay): leave it out
// when decoding that chunk.
//
// # Hostile files
//
// Every count, size and address is checked against the file size and the
// limits the specification implies before anything is allocated; index
// structures carry checksums that are verified; B-tree descents must lose
// one level per step and a node reached twice is an error.
//
// # Concurrency
//
// A Layout is immutable. An Index is safe for concurrent use: it caches
// the index blocks and nodes it has read.
//
// # Errors
//
// ErrUnsupported reports a valid but unimplemented feature (virtual
// datasets, filters without a codec); ErrCorrupt reports a structure that
// contradicts the specification.
package layout
