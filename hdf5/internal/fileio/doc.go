// Package fileio is the byte-level foundation of the HDF5 reader: a cached
// Reader over an io/source.Source (see Source), a bounds-checked
// little-endian Decoder, the superblock's field sizes (Sizes) and the
// Jenkins lookup3 checksum HDF5 puts on its newer metadata structures.
//
// # Addresses
//
// HDF5 addresses are relative to the file's base address (Sizes.Base). A
// Reader made by New reads absolute file offsets (base 0, no field sizes):
// use it to find and decode the superblock, then call WithSizes to get a
// Reader that shares the same source and cache and resolves addresses
// against the superblock's base address. The undefined address (all bytes
// 0xff, whatever the size of offsets) is decoded as Undefined; callers test
// it with IsUndefined before reading.
//
// # Caching
//
// Metadata reads go through a page cache: the file is cut into fixed pages
// (DefaultPageSize unless WithPageSize says otherwise), a read fetches the
// whole pages it touches, pages are kept in an LRU bounded by bytes
// (WithCacheBytes), and concurrent misses for one page issue a single
// request. Reads longer than a few pages bypass the cache: they are data,
// not metadata. Stats reports how many requests reached the source.
//
// # Concurrency
//
// A Reader is safe for concurrent use by multiple goroutines. A Decoder is
// not: it is a cursor owned by one goroutine.
//
// # Errors
//
// Reads past the end of the file fail with ErrOutOfRange, requests larger
// than MaxRead with ErrTooLarge, a Decoder that runs out of bytes reports
// ErrShort from Err and one that meets a wrong signature ErrSignature,
// and VerifyChecksum reports ErrChecksum. Errors are wrapped with the
// offset and sizes involved; test them with errors.Is.
package fileio
