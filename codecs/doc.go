// Package codecs decodes chunk encodings written by numcodecs, c-blosc and the
// HDF5 filters, for Zarr v2, LINDI and HDF5 datasets.
//
// A codec is built from its JSON configuration exactly as it appears in a
// .zarray (the "compressor" object or one element of "filters") by a
// [Registry], which maps the numcodecs "id" to a constructor. [Default] holds
// every built-in codec: blosc, zlib, gzip, zstd, lz4, bz2, lzf, shuffle,
// delta, fixedscaleoffset, quantize, bitround, astype, packbits, categorize,
// the checksums crc32, adler32, crc32c and fletcher32, and the object codecs
// vlen-utf8, vlen-bytes, vlen-array, json2 and its predecessor json.
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
// a read lock and Register takes a write lock.
//
// # Errors
//
// An unknown codec id is an error wrapping [ErrUnknownCodec] that names the
// id. Corrupt or truncated input is an error wrapping [ErrCorrupt] that names
// the codec; output beyond the limit wraps [ErrTooLarge]; a configuration
// that cannot be honoured wraps [ErrConfig]. Decoders never panic on the bytes
// they read and never read past their input.
package codecs
