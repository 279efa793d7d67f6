package codecs

// castCodec converts every element from the encoded type to the decoded type
// as numpy's astype does: numcodecs "astype" (encode_dtype → decode_dtype)
// and "quantize", whose decoding is only the cast from astype back to dtype.
type castCodec struct {
	id       string
	from, to numType
}

func newAsType(config []byte) (Codec, error) {
	const id = "astype"
	var cfg struct {
		Encode string `json:"encode_dtype"`
		Decode string `json:"decode_dtype"`
	}
	if err := parseConfig(id, config, &cfg); err != nil {
		return nil, err
	}
	return newCast(id, cfg.Encode, cfg.Decode)
}

func newQuantize(config []byte) (Codec, error) {
	const id = "quantize"
	var cfg struct {
		Digits *int    `json:"digits"`
		DType  string  `json:"dtype"`
		AsType *string `json:"astype"`
	}
	if err := parseConfig(id, config, &cfg); err != nil {
		return nil, err
	}
	if cfg.Digits == nil {
		return nil, errConfig(id, "no \"digits\"")
	}
	as := cfg.DType
	if cfg.AsType != nil {
		as = *cfg.AsType
	}
	c, err := newCast(id, as, cfg.DType)
	if err != nil {
		return nil, err
	}
	if !c.to.isFloat() || !c.from.isFloat() {
		return nil, errConfig(id, "dtype %s and astype %s must be floating point", cfg.DType, as)
	}
	return c, nil
}

// newCast parses both dtypes of a cast.
func newCast(id, from, to string) (*castCodec, error) {
	f, err := parseNumType(id, from)
	if err != nil {
		return nil, err
	}
	t, err := parseNumType(id, to)
	if err != nil {
		return nil, err
	}
	return &castCodec{id: id, from: f, to: t}, nil
}

func (c *castCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	dst, out, n, err := extendElements(c.id, dst, src, c.from, c.to.size, limit)
	if err != nil {
		return dst, err
	}
	if c.from == c.to {
		copy(out, src)
		return dst, nil
	}
	fs, ts := c.from.size, c.to.size
	if c.from.isFloat() || c.to.isFloat() {
		if !(c.from.kind == 'u' && c.from.size == 8) {
			load, store := c.from.loader(), c.to.storer()
			for i := 0; i < n; i++ {
				store(out[i*ts:], load(src[i*fs:]))
			}
			return dst, nil
		}
	}
	for i := 0; i < n; i++ {
		c.to.convert(out[i*ts:], c.from, src[i*fs:])
	}
	return dst, nil
}

func (c *castCodec) MaxEncodedLen(n int) int { return n / c.to.size * c.from.size }

// fixedScaleOffsetCodec undoes numcodecs "fixedscaleoffset": each stored
// value v (astype) decodes to v/scale + offset computed in float64, then
// cast to dtype.
type fixedScaleOffsetCodec struct {
	scale, offset float64
	dtype, astype numType
}

func newFixedScaleOffset(config []byte) (Codec, error) {
	const id = "fixedscaleoffset"
	var cfg struct {
		Scale  *float64 `json:"scale"`
		Offset *float64 `json:"offset"`
		DType  string   `json:"dtype"`
		AsType *string  `json:"astype"`
	}
	if err := parseConfig(id, config, &cfg); err != nil {
		return nil, err
	}
	if cfg.Scale == nil || cfg.Offset == nil {
		return nil, errConfig(id, "\"scale\" and \"offset\" are required")
	}
	as := cfg.DType
	if cfg.AsType != nil {
		as = *cfg.AsType
	}
	c, err := newCast(id, as, cfg.DType)
	if err != nil {
		return nil, err
	}
	return &fixedScaleOffsetCodec{scale: *cfg.Scale, offset: *cfg.Offset, dtype: c.to, astype: c.from}, nil
}

func (c *fixedScaleOffsetCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "fixedscaleoffset"
	dst, out, n, err := extendElements(id, dst, src, c.astype, c.dtype.size, limit)
	if err != nil {
		return dst, err
	}
	as, ds := c.astype.size, c.dtype.size
	load, store := c.astype.loader(), c.dtype.storer()
	for i := 0; i < n; i++ {
		store(out[i*ds:], load(src[i*as:])/c.scale+c.offset)
	}
	return dst, nil
}

func (c *fixedScaleOffsetCodec) MaxEncodedLen(n int) int { return n / c.dtype.size * c.astype.size }

// bitRoundCodec is numcodecs "bitround": rounding happens when encoding, so
// decoding passes the bytes through.
type bitRoundCodec struct{}

func newBitRound(config []byte) (Codec, error) {
	const id = "bitround"
	var cfg struct {
		KeepBits *int `json:"keepbits"`
	}
	if err := parseConfig(id, config, &cfg); err != nil {
		return nil, err
	}
	if cfg.KeepBits == nil || *cfg.KeepBits < 0 {
		return nil, errConfig(id, "\"keepbits\" must be a non-negative integer")
	}
	return bitRoundCodec{}, nil
}

func (bitRoundCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	if len(src) > limit {
		return dst, errTooLarge("bitround", limit)
	}
	return append(dst, src...), nil
}
