// Package compress holds the compressors that package codecs and package
// blosc share: zlib and gzip streams (zlib's levels 4 to 6 written by
// klauspost/compress's lazy matcher, the others by the standard library:
// see useKlauspost), zstd frames that always declare their content size,
// and raw LZ4 blocks (pierrec/lz4/v4).
//
// Every function appends to or fills a caller buffer, is safe for concurrent
// use, and keeps its per-call state (deflate writers, LZ4 hash tables) in
// pools, so that encoding a chunk allocates nothing but its output. Levels
// are checked: an invalid one is an error wrapping ErrLevel.
package compress
