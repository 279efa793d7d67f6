package codecs

import (
	"encoding/binary"
	"encoding/json"
	"errors"

	"github.com/lindigo/lindi/codecs/blosc"
)

// bloscCodec decodes c-blosc 1.x frames through package blosc. The
// configuration (cname, clevel, shuffle, blocksize) matters only when
// encoding: every frame describes itself.
type bloscCodec struct {
	opts   blosc.Options // TypeSize set per chunk
	err    error         // why Encode cannot use the configuration
	config json.RawMessage
}

// newBlosc reads cname, clevel, shuffle and blocksize with numcodecs'
// defaults (lz4, 5, 1, 0). Any configuration decodes; one Encode cannot
// honour (cname "snappy", shuffle 2) is reported by Encode. A "typesize"
// member, which newer numcodecs writes, is accepted and dropped.
func newBlosc(config []byte) (Codec, error) {
	const id = "blosc"
	c := bloscCodec{}
	p, err := parseParams(id, config)
	o := &c.opts
	if err == nil {
		o.Compressor, err = p.string("cname", "lz4")
	}
	if err == nil {
		o.Level, err = p.int("clevel", 5)
	}
	if err == nil {
		o.Shuffle, err = p.int("shuffle", 1)
	}
	if err == nil {
		o.BlockSize, err = p.int("blocksize", 0)
	}
	if err == nil {
		// A typesize of 1 stands for every chunk's itemSize.
		if e := (blosc.Options{Compressor: o.Compressor, Level: o.Level, Shuffle: o.Shuffle, TypeSize: 1, BlockSize: o.BlockSize}).Check(); e != nil {
			err = &codecError{id: id, detail: "cannot encode with this configuration", kind: ErrConfig, cause: e}
		}
	}
	c.err = err
	if err != nil {
		c.config = compactConfig(config)
	} else {
		c.config = configJSON(map[string]any{"id": id, "cname": o.Compressor, "clevel": o.Level, "shuffle": o.Shuffle, "blocksize": o.BlockSize})
	}
	return c, nil
}

// Encode writes a c-blosc 1.x frame with typesize itemSize (1 when it
// exceeds 255, as c-blosc does); see blosc.Encode for the layout rules.
func (c bloscCodec) Encode(dst, src []byte, itemSize int) ([]byte, error) {
	const id = "blosc"
	switch {
	case c.err != nil:
		return dst, c.err
	case c.config == nil:
		return dst, errConfig(id, "codec built without a configuration cannot encode")
	case itemSize < 1:
		return dst, errConfig(id, "item size %d: want 1 or more", itemSize)
	}
	o := c.opts
	o.TypeSize = itemSize
	out, err := blosc.Encode(dst, src, o)
	switch {
	case errors.Is(err, blosc.ErrTooLarge):
		return dst, &codecError{id: id, detail: "chunk too large", kind: ErrTooLarge, cause: err}
	case err != nil:
		return dst, &codecError{id: id, detail: "encode", kind: ErrConfig, cause: err}
	}
	return out, nil
}

// Config returns {"blocksize":b,"clevel":l,"cname":c,"id":"blosc","shuffle":s}.
func (c bloscCodec) Config() json.RawMessage { return c.config }

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
