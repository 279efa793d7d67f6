package codecs

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"

	"github.com/lindigo/lindi/codecs/internal/compress"
	"github.com/lindigo/lindi/codecs/internal/zstdec"
)

// zstdCodec decodes Zstandard data of one or more frames (skippable frames
// included), with or without a declared content size: the numcodecs "zstd"
// codec and the HDF5 zstd plugin (filter 32015).
type zstdCodec struct {
	level  int
	err    error // why Encode cannot use the configuration
	config json.RawMessage
}

// newZstd reads the level (numcodecs' default is 1), used by Encode only. A
// "checksum" member, which newer numcodecs writes, is accepted and dropped:
// frames are written without one and Config leaves it out, as numcodecs
// 0.11 rejects it.
func newZstd(config []byte) (Codec, error) {
	const id = "zstd"
	c := zstdCodec{}
	p, err := parseParams(id, config)
	if err == nil {
		c.level, err = p.int("level", 1)
	}
	if err == nil && compress.CheckZstdLevel(c.level) != nil {
		err = errConfig(id, "level %d: want %d to %d", c.level, compress.MinZstdLevel, compress.MaxZstdLevel)
	}
	c.err = err
	if err != nil {
		c.config = compactConfig(config)
	} else {
		c.config = configJSON(map[string]any{"id": id, "level": c.level})
	}
	return c, nil
}

// Encode writes one frame that declares its content size, which numcodecs
// 0.11 needs to decode it. An empty src gives the frame libzstd writes for
// it (an empty raw block); this package decodes it, numcodecs 0.11 refuses
// every empty frame, its own included.
func (c zstdCodec) Encode(dst, src []byte, _ int) ([]byte, error) {
	const id = "zstd"
	if c.err != nil {
		return dst, c.err
	}
	if c.config == nil {
		return dst, errConfig(id, "codec built without a configuration cannot encode")
	}
	out, err := compress.Zstd(dst, src, c.level)
	if err != nil {
		return dst, &codecError{id: id, detail: "encode", kind: ErrConfig, cause: err}
	}
	return out, nil
}

// Config returns {"id":"zstd","level":n}.
func (c zstdCodec) Config() json.RawMessage { return c.config }

func (zstdCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "zstd"
	total, known, err := zstdContentSize(src)
	if err != nil {
		return dst, err
	}
	if known && total > uint64(max(limit, 0)) {
		return dst, errTooLarge(id, limit)
	}
	if !known {
		return zstdStream(dst, src, limit)
	}
	room := int(total)
	start := len(dst)
	out := grow(dst, room)
	// The three-index slice makes cap-len the limit the decoder honours.
	out, err = zstdec.DecodeAll(out[:start:start+room], src)
	switch {
	case errors.Is(err, zstdec.ErrTooLarge):
		// The declared sizes fit the limit, so the data lied about them.
		return dst, errCorrupt(id, "frames decode past their declared content size")
	case err != nil:
		return dst, wrapCorrupt(id, err)
	case len(out)-start != room:
		return dst, errCorrupt(id, "frames decoded to %d bytes, declared %d", len(out)-start, room)
	}
	return out, nil
}

// zstdStream decodes frames that do not declare their size with a
// streaming decoder, so the output grows with the data instead of being
// reserved up to the limit.
func zstdStream(dst, src []byte, limit int) ([]byte, error) {
	const id = "zstd"
	br := bytes.NewReader(src)
	defer br.Reset(nil)
	d, err := zstdec.Reader(br)
	if err != nil {
		return dst, wrapCorrupt(id, err)
	}
	defer zstdec.PutReader(d)
	return readLimited(id, dst, d, len(src), limit)
}

func (zstdCodec) MaxEncodedLen(n int) int { return compressBound(n) }

// zstdContentSize walks the frames of src without decoding them and sums
// their declared content sizes; known is false when some frame does not
// declare one. It rejects input that is not a sequence of whole frames.
func zstdContentSize(src []byte) (total uint64, known bool, err error) {
	const id = "zstd"
	if len(src) == 0 {
		return 0, false, errCorrupt(id, "empty input")
	}
	known = true
	for len(src) > 0 {
		if len(src) < 4 {
			return 0, false, errCorrupt(id, "truncated frame magic")
		}
		magic := binary.LittleEndian.Uint32(src)
		if magic&0xfffffff0 == 0x184d2a50 { // skippable frame
			if len(src) < 8 {
				return 0, false, errCorrupt(id, "truncated skippable frame")
			}
			n := uint64(binary.LittleEndian.Uint32(src[4:]))
			if n > uint64(len(src)-8) {
				return 0, false, errCorrupt(id, "truncated skippable frame")
			}
			src = src[8+n:]
			continue
		}
		if magic != 0xfd2fb528 {
			return 0, false, errCorrupt(id, "bad frame magic %#08x", magic)
		}
		size, hasSize, n, err := zstdFrame(src[4:])
		if err != nil {
			return 0, false, err
		}
		if hasSize {
			total += size
			if total < size {
				return 0, false, errCorrupt(id, "frame content sizes overflow")
			}
		} else {
			known = false
		}
		src = src[4+n:]
	}
	return total, known, nil
}

// zstdFrame parses the frame header and block headers following a frame
// magic, returning the declared content size and the frame's length.
func zstdFrame(f []byte) (size uint64, hasSize bool, n int, err error) {
	const id = "zstd"
	if len(f) < 1 {
		return 0, false, 0, errCorrupt(id, "truncated frame header")
	}
	fhd := f[0]
	single := fhd&0x20 != 0
	fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
	if fcsLen == 0 && single {
		fcsLen = 1
	}
	pos := 1
	if !single {
		pos++ // window descriptor
	}
	pos += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	if fhd&0x08 != 0 {
		return 0, false, 0, errCorrupt(id, "reserved frame header bit set")
	}
	if len(f) < pos+fcsLen {
		return 0, false, 0, errCorrupt(id, "truncated frame header")
	}
	switch fcsLen {
	case 1:
		size = uint64(f[pos])
	case 2:
		size = uint64(binary.LittleEndian.Uint16(f[pos:])) + 256
	case 4:
		size = uint64(binary.LittleEndian.Uint32(f[pos:]))
	case 8:
		size = binary.LittleEndian.Uint64(f[pos:])
	}
	pos += fcsLen
	for {
		if len(f)-pos < 3 {
			return 0, false, 0, errCorrupt(id, "truncated block header")
		}
		h := uint32(f[pos]) | uint32(f[pos+1])<<8 | uint32(f[pos+2])<<16
		pos += 3
		bsize := int(h >> 3)
		switch (h >> 1) & 3 {
		case 1: // RLE: one byte stored
			bsize = 1
		case 3:
			return 0, false, 0, errCorrupt(id, "reserved block type")
		}
		if len(f)-pos < bsize {
			return 0, false, 0, errCorrupt(id, "truncated block")
		}
		pos += bsize
		if h&1 != 0 {
			break
		}
	}
	if fhd&0x04 != 0 { // content checksum
		if len(f)-pos < 4 {
			return 0, false, 0, errCorrupt(id, "truncated frame checksum")
		}
		pos += 4
	}
	return size, fcsLen > 0, pos, nil
}
