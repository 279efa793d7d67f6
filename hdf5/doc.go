// Package hdf5 reads the object model of HDF5 files in pure Go, over any
// io/source.Source (a local file, an HTTP range source, a blob in memory):
// the superblock (versions 0 to 3), object headers (versions 1 and 2 with
// their continuation blocks), groups and links, attributes, datatypes,
// dataspaces, fill values, and each dataset's layout and filters, handed
// to package hdf5/layout for the chunk index.
//
// # Structure
//
// Open finds the superblock (at offset 0, 512, 1024, …) and reads the root
// group. Groups are read in both of their forms: old-style symbol tables
// (a version 1 B-tree of symbol nodes whose names live in a local heap,
// soft links included) and new-style links (link messages in the object
// header, or dense storage in a fractal heap indexed by a version 2
// B-tree). Attributes are read from attribute messages and from dense
// storage (huge heap objects included). Shared messages are followed both
// to the object header that holds them (committed datatypes) and into the
// shared object header message heap the superblock extension names.
//
// Lookups take "/"-separated paths, absolute or relative to a group, and
// follow soft links (at most MaxLinkDepth of them, so cycles end in
// ErrLinkLoop). An external link fails with ErrExternalLink, the error text
// naming the target file and path. Members lists a group's links sorted
// by name, as h5py does.
//
// Attribute values are decoded into Go values: see Attribute for the
// mapping. Datasets expose their shape, Datatype (with NumpyDescr for the
// numpy dtype text), fill value, layout and filter pipeline message; the
// raw bytes of compact and contiguous datasets are read by ReadRaw, and
// variable-length elements (strings, sequences) are resolved through the
// global heap by File.ReadVlen. Object references resolve to paths with
// File.PathOf, which walks the tree once.
//
// # Metadata I/O
//
// All metadata is read through the page cache of hdf5/internal/fileio, so
// opening a remote file and listing its tree costs few requests; File.Stats
// reports them. Object headers, group link lists and global heap
// collections are also kept parsed, within fixed bounds.
//
// # Concurrency
//
// A File and every Group, Dataset, NamedType and Datatype obtained from it
// are safe for concurrent use by multiple goroutines once Open returns.
// Returned slices that the documentation calls shared must not be
// modified; all others belong to the caller.
//
// # Errors
//
// Errors wrap the sentinels of this package (ErrNotHDF5, ErrFormat,
// ErrUnsupported, ErrNotFound, ErrExternalLink, ErrLinkLoop, ErrNotGroup,
// ErrNotDataset) or of the byte-level reader (ErrTruncated, ErrChecksum,
// ErrOutOfRange, ErrTooLarge), with the path, address and field involved. Hostile files fail with an error: every
// size read from the file is checked against the bytes that hold it or a
// fixed limit before anything is allocated, and loops (continuation
// blocks, B-tree nodes, soft links) are detected.
package hdf5
