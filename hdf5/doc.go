// Package hdf5 reads the object model of HDF5 files in pure Go, over any
// io.ReaderAt (NewReader) or io/source.Source (Open: a local file, an HTTP
// range source, a blob in memory): the superblock (versions 0 to 3),
// object headers (versions 1 and 2 with their continuation blocks), groups
// and links, attributes, datatypes, dataspaces, fill values, and where
// each dataset's raw data lies.
//
// # Structure
//
// Open and NewReader find the superblock (at offset 0, 512, 1024, …) and reads the root
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
// numpy dtype text), fill value, Layout and filter Pipeline.
// Variable-length elements (strings, sequences) are resolved through the
// global heap by File.ReadVlen. Object references resolve to paths with
// File.PathOf, which searches the tree breadth first, only as deep as the
// objects asked for.
//
// # Raw data
//
// Dataset.Locator returns a Locator, which maps chunk grid coordinates to
// a Chunk: compact bytes in memory, or an absolute range of File.Source
// (the superblock's base address added, checked against the file size),
// or Missing (never written: the fill value), with the codecs Pipeline
// that decodes it after the chunk's filter mask and the rule that partial
// edge chunks may be stored unfiltered. Compact and contiguous data are
// located as chunks too (the whole shape; virtual chunks of whole rows of
// about VirtualChunkBytes), so one reader serves every layout. Pipelines
// are built with the codec registry given by WithCodecs. ReadRaw reads a
// whole compact or contiguous dataset through the same Locator. A virtual
// dataset has no Locator: Dataset.Mappings gives its mappings (source
// file and dataset names, source and virtual selections), which the
// caller reads from the source datasets.
//
// # Metadata I/O
//
// All metadata is read through a page cache (WithPageSize,
// WithMetadataCacheBytes), so opening a remote file and listing its tree
// costs few requests; File.Stats reports them. Raw data is not: a reader
// fetches the ranges a Locator gives. Object headers, group link lists and global heap
// collections are also kept parsed, within fixed bounds.
//
// # Concurrency
//
// A File and every Group, Dataset, NamedType, Datatype and Locator obtained
// from it are safe for concurrent use by multiple goroutines once Open
// returns; a Locator serves many concurrent Locate calls.
// Returned slices that the documentation calls shared must not be
// modified; all others belong to the caller.
//
// # Errors
//
// Errors wrap the sentinels of this package (ErrNotHDF5, ErrFormat,
// ErrUnsupported, ErrNotFound, ErrExternalLink, ErrLinkLoop, ErrNotGroup,
// ErrNotDataset, ErrTruncated, ErrChecksum, ErrOutOfRange, ErrTooLarge),
// with the path, address and field involved; a bad Option fails Open with
// an error naming the option and its value. Hostile files fail with an
// error: every
// size read from the file is checked against the bytes that hold it or a
// fixed limit before anything is allocated, and loops (continuation
// blocks, B-tree nodes, soft links) are detected.
package hdf5
