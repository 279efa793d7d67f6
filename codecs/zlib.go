package codecs

import (
	"errors"

	"github.com/lindigo/lindi/codecs/internal/inflate"
)

// zlibCodec decodes a zlib stream (RFC 1950), the numcodecs "zlib" codec and
// the HDF5 deflate filter. Bytes after the end of the stream are ignored, as
// Python's zlib.decompress ignores them. The level is used by Encode only.
type zlibCodec struct{ deflateParams }

func (zlibCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "zlib"
	limit = max(limit, 0)
	start := len(dst)
	out, err := inflate.Zlib(grow(dst, initialGuess(len(src), limit)), src, limit)
	if err != nil {
		return dst[:start], inflateError(id, err, limit)
	}
	return out, nil
}

// inflateError is the codec error for an error of package inflate.
func inflateError(id string, err error, limit int) error {
	if errors.Is(err, inflate.ErrTooLarge) {
		return errTooLarge(id, limit)
	}
	return wrapCorrupt(id, err)
}

func (zlibCodec) MaxEncodedLen(n int) int { return compressBound(n) }

// gzipCodec decodes gzip data (RFC 1952) of one or more members, the
// numcodecs "gzip" codec. Zero bytes after the last member are ignored, as
// Python's gzip module ignores such padding. The level is used by Encode only.
type gzipCodec struct{ deflateParams }

func (gzipCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "gzip"
	limit = max(limit, 0)
	start := len(dst)
	out := grow(dst, initialGuess(len(src), limit))
	for {
		next, n, err := inflate.Gzip(out, src, limit-(len(out)-start))
		if err != nil {
			return dst[:start], inflateError(id, err, limit)
		}
		out, src = next, src[n:]
		if allZero(src) {
			return out, nil
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
