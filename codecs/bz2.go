package codecs

import (
	"bytes"
	"compress/bzip2"
)

// bz2Codec decodes bzip2 data, one stream or several concatenated, the
// numcodecs "bz2" codec.
type bz2Codec struct{}

func (bz2Codec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "bz2"
	if len(src) == 0 {
		return dst, errCorrupt(id, "empty input")
	}
	return readLimited(id, dst, bzip2.NewReader(bytes.NewReader(src)), len(src), limit)
}

func (bz2Codec) MaxEncodedLen(n int) int { return compressBound(n) }
