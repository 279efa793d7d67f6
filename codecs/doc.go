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
// The filters numcodecs has no codec for are registered under ids of their
// own: hdf5_bitshuffle_lz4 (bitshuffle with LZ4) and hdf5_scaleoffset (the
// HDF5 library's scale-offset filter, its client data named).
//
// Fixed-size data decodes through [Codec], whose Decode appends into a caller
// buffer and is told the most bytes it may produce, so that a decompression
// bomb is an error ([ErrTooLarge]) rather than an allocation. Object arrays
// (strings, byte strings, JSON values) decode through [ObjectCodec]. A
// [Pipeline] chains a compressor and filters as Zarr does: the compressor
// first, then the filters in reverse order; every stage is bounded by a limit
// derived from the size the caller expects.
//
// Writing goes the other way with the same registry: a codec built from its
// configuration that can encode implements [Encoder] (zlib, gzip, zstd,
// lz4, blosc, shuffle, delta) or [ObjectEncoder] (json2, vlen-utf8,
// vlen-bytes), whose Config gives the configuration to store, in the
// minimal form numcodecs 0.11 accepts. [Pipeline.Encode] and
// [Pipeline.EncodeObjects] run the filters in order and then the
// compressor; [Pipeline.Configs] gives the .zarray form. Every encoding
// decodes with numcodecs 0.11 (testdata/encode holds the proof: frames
// numcodecs wrote that we decode, and ours that check_ours.py decoded
// there). A configuration that decodes but cannot be encoded with (zlib
// level 10, blosc's snappy or bit shuffle) still builds, and encoding
// fails.
//
// # Concurrency
//
// Codecs, pipelines and registries are safe for concurrent use: lookups share
// a read lock and registration takes a write lock. A Pipeline keeps the
// codecs it was built with, so registering afterwards does not change it.
// Encoders run on the calling goroutine (callers encode chunks in parallel)
// and keep their scratch state in pools, so a warm encode allocates only
// its output.
//
// # Errors
//
// An unknown codec id is an error wrapping [ErrUnknownCodec] that names the
// id; asking for a codec of the other class wraps [ErrWrongClass];
// registering on [Builtin] fails with [ErrReadOnly]. Corrupt or truncated
// input is an error wrapping [ErrCorrupt] that names the codec; output beyond
// the limit wraps [ErrTooLarge]; a configuration that cannot be honoured
// wraps [ErrConfig], and a pipeline stage that decodes only wraps
// [ErrNoEncoder] when asked to encode. Decoders never panic on the bytes they
// read and never read past their input.
package codecs
