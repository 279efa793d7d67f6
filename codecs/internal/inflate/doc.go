// Package inflate is the one DEFLATE decoder of package codecs and package
// blosc: raw DEFLATE (RFC 1951), zlib (RFC 1950) and gzip (RFC 1952)
// streams decoded from one buffer into another.
//
// The chunks of a chunked array are whole in memory before they are decoded
// and the decoded size is known, so the decoder needs no io.Reader plumbing:
// it reads the input a machine word at a time into a 64-bit bit buffer,
// decodes up to three table entries of literals per refill through
// zlib-style two-level tables (an entry holds two literals where the
// block's code makes pairs likely, and a length or distance with its extra
// bits where they fit), copies matches a word at a time into the output's
// spare room, and falls back to a byte-checked loop only near the ends of
// the buffers. Zlib's Adler-32 is summed eight bytes at a time.
// BenchmarkDecoders measured it against the klauspost/compress reader it
// replaced (and the standard library's) on one core, on chunks as Go's and
// as C zlib's encoders write them; FuzzInflate holds it to the standard
// library's output, byte for byte, on any input.
//
// Output never goes past the limit a caller gives, even within the spare
// capacity of the buffer it hands over: callers decode into windows of a
// larger output. The functions are safe for concurrent use.
package inflate
