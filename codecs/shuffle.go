package codecs

import (
	"encoding/json"

	"github.com/lindigo/lindi/codecs/internal/shuffle"
)

// shuffleCodec undoes the numcodecs "shuffle" filter (also the HDF5 shuffle
// filter): bytes regrouped by their position within elements of
// elementsize bytes. Trailing bytes that do not fill an element are kept as
// they are, as HDF5 does; numcodecs never writes them.
type shuffleCodec struct {
	elementSize int
}

func newShuffle(config []byte) (Codec, error) {
	const id = "shuffle"
	cfg := struct {
		ElementSize *int `json:"elementsize"`
	}{}
	if err := parseConfig(id, config, &cfg); err != nil {
		return nil, err
	}
	size := 4 // the numcodecs default
	if cfg.ElementSize != nil {
		size = *cfg.ElementSize
	}
	if size < 0 {
		return nil, errConfig(id, "negative elementsize %d", size)
	}
	return shuffleCodec{elementSize: size}, nil
}

func (c shuffleCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	if len(src) > limit {
		return dst, errTooLarge("shuffle", limit)
	}
	start := len(dst)
	dst = grow(dst, len(src))[:start+len(src)]
	shuffle.Unshuffle(dst[start:], src, c.elementSize)
	return dst, nil
}

// Encode shuffles src by elementsize (itemSize plays no part: numcodecs'
// shuffle uses its own elementsize). src must hold whole elements, as
// numcodecs requires.
func (c shuffleCodec) Encode(dst, src []byte, _ int) ([]byte, error) {
	const id = "shuffle"
	switch {
	case c.elementSize < 1:
		return dst, errConfig(id, "elementsize %d cannot encode", c.elementSize)
	case len(src)%c.elementSize != 0:
		return dst, errConfig(id, "%d bytes is not a whole number of %d-byte elements", len(src), c.elementSize)
	}
	start := len(dst)
	dst = grow(dst, len(src))[:start+len(src)]
	shuffle.Shuffle(dst[start:], src, c.elementSize)
	return dst, nil
}

// Config returns {"elementsize":n,"id":"shuffle"}.
func (c shuffleCodec) Config() json.RawMessage {
	return configJSON(map[string]any{"id": "shuffle", "elementsize": c.elementSize})
}
