// Package codecs decodes chunk encodings written by numcodecs, c-blosc and the
// HDF5 filters, for Zarr v2, LINDI and HDF5 datasets.
//
// A codec is built from its JSON configuration exactly as it appears in a
// .zarray (the "compressor" object or one element of "filters") by a
// [Registry], which maps the numcodecs "id" to a constructor of a [Codec]
// ([Registry.RegisterCodec]) or of an [ObjectCodec]
// ([Registry.RegisterObjectCodec]). The built-in codecs are blosc, zlib,
// gzip, zstd, lz4, bz2, lzf, shuffle, delta, fixedscaleoffset, quantize,
// bitround, astype, packbits, categorize, the checksums crc32, adler32,
// crc32c and fletcher32, and the object codecs vlen-utf8, vlen-bytes,
// vlen-array, json2 and its predecessor json. [Builtin] returns the shared,
// read-only registry of them; [NewRegistry] returns a registry of them that
// the caller owns and may extend. The package has no mutable global state.
//
// HDF5 datasets name their filters by number: [HDF5Filter] turns a filter
// id and its client data into the configuration of the codec that undoes it.
//
// Fixed-size data decodes through [Codec], whose Decode appends into a caller
// buffer and is told the most bytes it may produce, so that a decompression
// bomb is an error ([ErrTooLarge]) rather than an allocation. Object arrays
// (strings, byte strings, JSON values) decode through [ObjectCodec]. A
// [Pipeline] chains a compressor and filters as Zarr does: the compressor
// first, then the filters in reverse order; every stage is bounded by a limit
// derived from the size the caller expects.
//
// # Concurrency
//
// Codecs, pipelines and registries are safe for concurrent use: lookups share
// a read lock and registration takes a write lock. A Pipeline keeps the
// codecs it was built with, so registering afterwards does not change it.
//
// # Errors
//
// An unknown codec id is an error wrapping [ErrUnknownCodec] that names the
// id; asking for a codec of the other class wraps [ErrWrongClass];
// registering on [Builtin] fails with [ErrReadOnly]. Corrupt or truncated
// input is an error wrapping [ErrCorrupt] that names the codec; output
// beyond the limit wraps [ErrTooLarge]; a configuration that cannot be
// honoured wraps [ErrConfig]. Decoders never panic on the bytes they read
// and never read past their input.
package codecs
