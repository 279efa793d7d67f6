package shuffle

import "encoding/binary"

// Shuffle applies the byte shuffle to src, writing dst, for elements of
// typesize bytes: byte j of element i goes to dst[j*n+i], where n is
// len(src)/typesize. It is the inverse of Unshuffle: trailing bytes that do
// not fill a whole element are copied as they are, and a typesize below 2 or
// larger than len(src) makes Shuffle a plain copy.
//
// Shuffle writes exactly len(src) bytes of dst; it panics if dst is shorter
// than src. dst and src must not overlap.
func Shuffle(dst, src []byte, typesize int) {
	dst = dst[:len(src)]
	if typesize < 2 || typesize > len(src) {
		copy(dst, src)
		return
	}
	n := len(src) / typesize
	body := n * typesize
	switch {
	case typesize == 2:
		shuffle2(dst[:body], src[:body], n)
	case typesize == 4:
		shuffle4(dst[:body], src[:body], n)
	case typesize%8 == 0:
		shuffleN(dst[:body], src[:body], n, typesize)
	default:
		shuffleBytes(dst[:body], src[:body], n, typesize)
	}
	copy(dst[body:], src[body:])
}

// gather4 packs the even bytes of x into the low 32 bits (the inverse of
// spread4).
func gather4(x uint64) uint64 {
	x &= 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	return (x | x>>16) & 0x00000000FFFFFFFF
}

// shuffle2 splits eight elements (16 bytes) per step into their two
// streams with word operations, the mirror of unshuffle2.
func shuffle2(dst, src []byte, n int) {
	d0, d1 := dst[:n], dst[n:2*n]
	i := 0
	for ; i+8 <= n; i += 8 {
		lo := binary.LittleEndian.Uint64(src[2*i : 2*i+8])
		hi := binary.LittleEndian.Uint64(src[2*i+8 : 2*i+16])
		binary.LittleEndian.PutUint64(d0[i:i+8], gather4(lo)|gather4(hi)<<32)
		binary.LittleEndian.PutUint64(d1[i:i+8], gather4(lo>>8)|gather4(hi>>8)<<32)
	}
	for ; i < n; i++ {
		d0[i] = src[2*i]
		d1[i] = src[2*i+1]
	}
}

// shuffle4 loads each element as one 32-bit word and scatters its bytes.
func shuffle4(dst, src []byte, n int) {
	d0, d1, d2, d3 := dst[:n], dst[n:2*n], dst[2*n:3*n], dst[3*n:4*n]
	for i := range d0 {
		v := binary.LittleEndian.Uint32(src[4*i : 4*i+4])
		d0[i], d1[i], d2[i], d3[i] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
}

// shuffleN handles typesizes that are multiples of 8: eight elements at a
// time, each 8-byte piece of them is an 8x8 byte matrix whose transpose is
// eight 8-byte runs of eight streams. The last n%8 elements go byte by byte.
func shuffleN(dst, src []byte, n, typesize int) {
	i := 0
	for ; i+8 <= n; i += 8 {
		for j := 0; j < typesize; j += 8 {
			s := src[i*typesize+j:]
			w0, w1, w2, w3, w4, w5, w6, w7 := transpose8x8(
				binary.LittleEndian.Uint64(s[0*typesize:]), binary.LittleEndian.Uint64(s[1*typesize:]),
				binary.LittleEndian.Uint64(s[2*typesize:]), binary.LittleEndian.Uint64(s[3*typesize:]),
				binary.LittleEndian.Uint64(s[4*typesize:]), binary.LittleEndian.Uint64(s[5*typesize:]),
				binary.LittleEndian.Uint64(s[6*typesize:]), binary.LittleEndian.Uint64(s[7*typesize:]))
			d := dst[j*n+i:]
			binary.LittleEndian.PutUint64(d[0*n:], w0)
			binary.LittleEndian.PutUint64(d[1*n:], w1)
			binary.LittleEndian.PutUint64(d[2*n:], w2)
			binary.LittleEndian.PutUint64(d[3*n:], w3)
			binary.LittleEndian.PutUint64(d[4*n:], w4)
			binary.LittleEndian.PutUint64(d[5*n:], w5)
			binary.LittleEndian.PutUint64(d[6*n:], w6)
			binary.LittleEndian.PutUint64(d[7*n:], w7)
		}
	}
	shuffleTail(dst, src, n, typesize, i)
}

// shuffleBytes is the plain loop for the other typesizes.
func shuffleBytes(dst, src []byte, n, typesize int) {
	shuffleTail(dst, src, n, typesize, 0)
}

// shuffleTail shuffles elements from..n-1 byte by byte.
func shuffleTail(dst, src []byte, n, typesize, from int) {
	for i := from; i < n; i++ {
		e := src[i*typesize : (i+1)*typesize]
		for j, b := range e {
			dst[j*n+i] = b
		}
	}
}
