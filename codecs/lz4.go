package codecs

import (
	"encoding/binary"
	"encoding/json"

	"github.com/pierrec/lz4/v4"

	"github.com/lindigo/lindi/codecs/internal/compress"
)

// lz4Codec decodes the numcodecs "lz4" format: the decoded size as a 4-byte
// little-endian integer, then one raw LZ4 block. The acceleration is used
// by Encode only.
type lz4Codec struct {
	acceleration int
	err          error // why Encode cannot use the configuration
	config       json.RawMessage
}

// newLZ4 reads the acceleration; numcodecs' default is 1 and LZ4 treats
// values below 1 as 1.
func newLZ4(config []byte) (Codec, error) {
	const id = "lz4"
	c := lz4Codec{}
	p, err := parseParams(id, config)
	if err == nil {
		c.acceleration, err = p.int("acceleration", 1)
	}
	c.err = err
	if err != nil {
		c.config = compactConfig(config)
	} else {
		c.config = configJSON(map[string]any{"id": id, "acceleration": c.acceleration})
	}
	return c, nil
}

// lz4MaxInput is LZ4_MAX_INPUT_SIZE, the most numcodecs' LZ4 encodes.
const lz4MaxInput = 0x7E000000

// Encode writes the size header and one block compressed as
// LZ4_compress_fast does at the configured acceleration. An empty src gives
// numcodecs' encoding of it (a zero size and a zero token), which this
// package decodes; numcodecs 0.11 refuses to decode it.
func (c lz4Codec) Encode(dst, src []byte, _ int) ([]byte, error) {
	const id = "lz4"
	switch {
	case c.err != nil:
		return dst, c.err
	case c.config == nil:
		return dst, errConfig(id, "codec built without a configuration cannot encode")
	case len(src) > lz4MaxInput:
		return dst, errConfig(id, "%d bytes to encode, LZ4's maximum is %d", len(src), lz4MaxInput)
	}
	start := len(dst)
	bound := compress.LZ4BlockBound(len(src))
	out := grow(dst, 4+bound)[:start+4+bound]
	binary.LittleEndian.PutUint32(out[start:], uint32(len(src)))
	n := compress.LZ4Block(out[start+4:], src, c.acceleration)
	if n == 0 && len(src) > 0 {
		return dst, errConfig(id, "block of %d bytes did not fit its bound %d", len(src), bound)
	}
	return out[:start+4+n], nil
}

// Config returns {"acceleration":n,"id":"lz4"}.
func (c lz4Codec) Config() json.RawMessage { return c.config }

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
