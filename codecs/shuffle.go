package codecs

import "github.com/lindigo/lindi/codecs/internal/shuffle"

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
