package codecs

// lzfCodec decodes a raw LZF stream as h5py's LZF filter (HDF5 filter 32000)
// writes it: no header, literal runs and back references until the input
// ends.
type lzfCodec struct{}

func (lzfCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	start := len(dst)
	out, err := lzfDecode(dst, src, max(limit, 0))
	if err != nil {
		return dst[:start], err
	}
	return out, nil
}

// lzfDecode is Decode without the reset of dst on error.
func lzfDecode(dst, src []byte, limit int) ([]byte, error) {
	const id = "lzf"
	start := len(dst)
	// LZF expands at most 264/2 = 132-fold (a 2-byte reference copies up to
	// 264 bytes), so the output is bounded before decoding starts.
	dst = grow(dst, min(limit, 132*len(src)))
	for i := 0; i < len(src); {
		ctrl := int(src[i])
		i++
		if ctrl < 32 { // literal run of ctrl+1 bytes
			n := ctrl + 1
			if len(src)-i < n {
				return dst, errCorrupt(id, "literal run past the end of the input")
			}
			if len(dst)-start+n > limit {
				return dst, errTooLarge(id, limit)
			}
			dst = append(dst, src[i:i+n]...)
			i += n
			continue
		}
		n := ctrl >> 5
		if n == 7 {
			if i >= len(src) {
				return dst, errCorrupt(id, "truncated back reference")
			}
			n += int(src[i])
			i++
		}
		n += 2
		if i >= len(src) {
			return dst, errCorrupt(id, "truncated back reference")
		}
		off := (ctrl&0x1f)<<8 + int(src[i]) + 1
		i++
		from := len(dst) - off
		if from < start {
			return dst, errCorrupt(id, "back reference before the start of the output")
		}
		if len(dst)-start+n > limit {
			return dst, errTooLarge(id, limit)
		}
		if off >= n {
			dst = append(dst, dst[from:from+n]...)
			continue
		}
		// Byte by byte: the reference overlaps the bytes it produces.
		for k := 0; k < n; k++ {
			dst = append(dst, dst[from+k])
		}
	}
	return dst, nil
}

func (lzfCodec) MaxEncodedLen(n int) int { return compressBound(n) }
