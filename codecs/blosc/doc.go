// Package blosc decodes chunks in the c-blosc 1.x format, as written by
// numcodecs' Blosc codec and by the HDF5 blosc filter, and encodes them
// (Encode) with lz4, lz4hc, zlib or zstd inside, byte shuffled or not, so
// that c-blosc 1.x reads them.
//
// A chunk starts with a 16-byte header (format version 2) giving the
// decoded size, the block size, the element size and flags (byte shuffle,
// bit shuffle, stored uncompressed, blocks not split), followed by one
// start offset per block. Each block is split into one stream per byte of
// the element when the writer chose to, and each stream is compressed with
// blosclz, lz4 (or lz4hc, the same format), snappy, zlib or zstd, or stored
// raw when compression did not pay. ParseHeader reads the header alone;
// Decode decodes the whole chunk.
//
// Decode follows c-blosc 1.x's decoder where the format leaves a choice: a
// block is split only if the "don't split" flag is clear, the element is at
// most 16 bytes, the block holds at least 128 elements and it is not the
// short last block; byte shuffle wins over bit shuffle and needs elements
// of 2 bytes or more; a block is bit-unshuffled only if its element count
// is a multiple of 8 (otherwise it was stored as is), and the bytes of a
// trailing partial element are always stored as is.
//
// Blocks are independent: Decode decodes the blocks of large chunks on up
// to GOMAXPROCS goroutines, each writing its own part of the output. Decode
// and ParseHeader are safe for concurrent use; the zstd decoder is the one
// package codecs shares (codecs/internal/zstdec).
//
// Encode follows c-blosc 1.21's compressor: its block size choice, its
// split rule, raw streams where compression does not pay, and a whole
// chunk stored uncompressed at level 0, below 128 bytes or when
// compression would grow it. It writes on the calling goroutine (callers
// encode chunks in parallel) and is safe for concurrent use.
//
// Errors wrap ErrCorrupt (malformed or truncated input), ErrTooLarge (the
// header claims more bytes than the caller allows; checked before anything
// is allocated) or ErrUnsupported (a format version, flag or compressor this
// package does not know); Encode's wrap ErrOptions. Decode never reads
// outside src and never panics on hostile input.
package blosc
