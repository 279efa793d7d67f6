package codecs

import (
	"encoding/binary"
	"errors"

	"github.com/lindigo/lindi/codecs/blosc"
)

// bloscCodec decodes c-blosc 1.x frames through package blosc. The
// configuration (cname, clevel, shuffle, blocksize) matters only when
// encoding: every frame describes itself.
type bloscCodec struct{}

func (bloscCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "blosc"
	// The header's nbytes (bytes 4–8) is the decoded size: refuse a frame
	// that announces more than the limit before package blosc sees it.
	if len(src) >= 16 && uint64(binary.LittleEndian.Uint32(src[4:])) > uint64(max(limit, 0)) {
		return dst, errTooLarge(id, limit)
	}
	out, err := blosc.Decode(dst, src, limit)
	switch {
	case errors.Is(err, blosc.ErrTooLarge):
		return dst, &codecError{id: id, detail: "decoded data too large", kind: ErrTooLarge, cause: err}
	case err != nil:
		// Unsupported chunks (blosc.ErrUnsupported) cannot be read either;
		// the cause stays inspectable with errors.Is.
		return dst, wrapCorrupt(id, err)
	}
	return out, nil
}

// MaxEncodedLen allows for the 16-byte header, the block offsets and
// per-split lengths on top of incompressible data.
func (bloscCodec) MaxEncodedLen(n int) int { return compressBound(n) }
