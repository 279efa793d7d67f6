package codecs

import (
	"bytes"

	"github.com/lindigo/lindi/codecs/internal/inflate"
)

// zlibCodec decodes a zlib stream (RFC 1950), the numcodecs "zlib" codec and
// the HDF5 deflate filter. Bytes after the end of the stream are ignored, as
// Python's zlib.decompress ignores them.
type zlibCodec struct{}

func (zlibCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "zlib"
	br := bytes.NewReader(src)
	defer br.Reset(nil) // the pooled reader must not keep src alive
	zr, err := inflate.Zlib(br)
	if err != nil {
		return dst, wrapCorrupt(id, err)
	}
	defer inflate.PutZlib(zr)
	return readLimited(id, dst, zr, len(src), limit)
}

func (zlibCodec) MaxEncodedLen(n int) int { return compressBound(n) }

// gzipCodec decodes gzip data (RFC 1952) of one or more members, the
// numcodecs "gzip" codec. Zero bytes after the last member are ignored, as
// Python's gzip module ignores such padding.
type gzipCodec struct{}

func (gzipCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "gzip"
	start := len(dst)
	limit = max(limit, 0)
	br := bytes.NewReader(src)
	defer br.Reset(nil)
	zr := inflate.Gzip()
	defer inflate.PutGzip(zr)
	for {
		if err := zr.Reset(br); err != nil {
			return dst[:start], wrapCorrupt(id, err)
		}
		// One member at a time: br is an io.ByteReader, so the gzip reader
		// consumes exactly the member and br.Len() is what follows it.
		zr.Multistream(false)
		out, err := readAll(id, dst, zr, br.Len(), limit-(len(dst)-start))
		if err != nil {
			return dst[:start], err
		}
		dst = out
		if allZero(src[len(src)-br.Len():]) {
			return dst, nil
		}
	}
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func (gzipCodec) MaxEncodedLen(n int) int { return compressBound(n) + 1<<16 }

// compressBound is a generous bound on the size of any compressed encoding
// of n bytes: stored (incompressible) blocks cost every format here well
// under 1/8 of overhead, plus headers.
func compressBound(n int) int {
	b := n + n/8 + 1<<16
	if b < n {
		return int(^uint(0) >> 1)
	}
	return b
}
