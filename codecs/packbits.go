package codecs

// packBitsCodec undoes numcodecs "packbits": a first byte giving the number
// of padding bits (0–7) in the last byte, then booleans packed eight to a
// byte, most significant bit first. Each decodes to one byte, 0 or 1.
type packBitsCodec struct{}

func (packBitsCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "packbits"
	if len(src) == 0 {
		return dst, errCorrupt(id, "empty input has no padding byte")
	}
	pad := int(src[0])
	bits := src[1:]
	if pad > 7 || (len(bits) == 0 && pad != 0) {
		return dst, errCorrupt(id, "%d padding bits for %d packed bytes", pad, len(bits))
	}
	n := 8*len(bits) - pad
	if n > limit || n < 0 {
		return dst, errTooLarge(id, limit)
	}
	start := len(dst)
	dst = grow(dst, n)[:start+n]
	out := dst[start:]
	for i := range out {
		out[i] = bits[i>>3] >> (7 - uint(i&7)) & 1
	}
	return dst, nil
}

func (packBitsCodec) MaxEncodedLen(n int) int { return n/8 + 2 }
