package codecs

import (
	"encoding/binary"

	"github.com/pierrec/lz4/v4"
)

// lz4Codec decodes the numcodecs "lz4" format: the decoded size as a 4-byte
// little-endian integer, then one raw LZ4 block.
type lz4Codec struct{}

func (lz4Codec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "lz4"
	if len(src) < 4 {
		return dst, errCorrupt(id, "input of %d bytes has no size header", len(src))
	}
	size := binary.LittleEndian.Uint32(src)
	if uint64(size) > uint64(max(limit, 0)) {
		return dst, errTooLarge(id, limit)
	}
	n := int(size)
	start := len(dst)
	dst = grow(dst, n)
	out := dst[start : start+n]
	if n == 0 {
		if len(src) > 4 && !(len(src) == 5 && src[4] == 0) {
			return dst, errCorrupt(id, "data after an empty block")
		}
		return dst, nil
	}
	got, err := lz4.UncompressBlock(src[4:], out)
	if err != nil {
		return dst, wrapCorrupt(id, err)
	}
	if got != n {
		return dst, errCorrupt(id, "block decoded to %d bytes, header says %d", got, n)
	}
	return dst[:start+n], nil
}

func (lz4Codec) MaxEncodedLen(n int) int { return compressBound(n) }
