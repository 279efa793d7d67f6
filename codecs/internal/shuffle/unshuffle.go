package shuffle

import "encoding/binary"

// Unshuffle undoes the byte shuffle of src into dst for elements of typesize
// bytes: byte j of element i is read from src[j*n+i], where n is
// len(src)/typesize, and written to dst[i*typesize+j]. Trailing bytes that do
// not fill a whole element are copied as they are, as blosc does. A typesize
// below 2 or larger than len(src) makes Unshuffle a plain copy.
//
// Unshuffle writes exactly len(src) bytes of dst; it panics if dst is shorter
// than src. dst and src must not overlap.
func Unshuffle(dst, src []byte, typesize int) {
	dst = dst[:len(src)]
	if typesize < 2 || typesize > len(src) {
		copy(dst, src)
		return
	}
	n := len(src) / typesize
	body := n * typesize
	switch typesize {
	case 2:
		unshuffle2(dst[:body], src[:body], n)
	case 4:
		unshuffle4(dst[:body], src[:body], n)
	case 3:
		unshuffle3(dst[:body], src[:body], n)
	case 5, 6, 7:
		unshuffleSmall(dst[:body], src[:body], n, typesize)
	default:
		unshuffleN(dst[:body], src[:body], n, typesize)
	}
	copy(dst[body:], src[body:])
}

// spread4 moves byte k of the low 32 bits of x to byte 2k.
func spread4(x uint64) uint64 {
	x &= 0xFFFFFFFF
	x = (x | x<<16) & 0x0000FFFF0000FFFF
	return (x | x<<8) & 0x00FF00FF00FF00FF
}

// unshuffle2 interleaves two streams, eight elements (16 bytes) per step:
// spreading each stream's bytes to every other byte and OR-ing them is about
// four times faster than a byte loop (see BenchmarkUnshuffle).
func unshuffle2(dst, src []byte, n int) {
	s0, s1 := src[:n], src[n:2*n]
	i := 0
	for ; i+8 <= n; i += 8 {
		a := binary.LittleEndian.Uint64(s0[i : i+8])
		b := binary.LittleEndian.Uint64(s1[i : i+8])
		d := dst[2*i : 2*i+16]
		binary.LittleEndian.PutUint64(d[0:8], spread4(a)|spread4(b)<<8)
		binary.LittleEndian.PutUint64(d[8:16], spread4(a>>32)|spread4(b>>32)<<8)
	}
	for ; i < n; i++ {
		dst[2*i] = s0[i]
		dst[2*i+1] = s1[i]
	}
}

// unshuffle4 builds each element as one 32-bit word from its four streams.
func unshuffle4(dst, src []byte, n int) {
	s0, s1, s2, s3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
	for i := range s0 {
		v := uint32(s0[i]) | uint32(s1[i])<<8 | uint32(s2[i])<<16 | uint32(s3[i])<<24
		binary.LittleEndian.PutUint32(dst[4*i:4*i+4], v)
	}
}

// unshuffle3 builds each element in a 32-bit word and stores all four
// bytes, the fourth being overwritten by the next element: one store
// instead of three byte stores, twice as fast.
func unshuffle3(dst, src []byte, n int) {
	s0, s1, s2 := src[:n], src[n:2*n], src[2*n:3*n]
	i := 0
	for ; i < n-1; i++ {
		v := uint32(s0[i]) | uint32(s1[i])<<8 | uint32(s2[i])<<16
		binary.LittleEndian.PutUint32(dst[3*i:3*i+4], v)
	}
	for ; i < n; i++ {
		dst[3*i], dst[3*i+1], dst[3*i+2] = s0[i], s1[i], s2[i]
	}
}

// unshuffleSmall handles element sizes 5 to 7: it assembles each element
// in a word from unrolled loads and stores all 8 bytes, the extra ones being
// overwritten by the next element (twice as fast as a loop over the
// streams).
func unshuffleSmall(dst, src []byte, n, typesize int) {
	s0, s1, s2, s3, s4 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n], src[4*n:5*n]
	s5, s6 := s4, s4 // read but masked out when typesize is smaller
	if typesize > 5 {
		s5 = src[5*n : 6*n]
	}
	if typesize > 6 {
		s6 = src[6*n : 7*n]
	}
	mask := uint64(1)<<(8*typesize) - 1
	i := 0
	for ; i < n && i*typesize+8 <= len(dst); i++ {
		v := uint64(s0[i]) | uint64(s1[i])<<8 | uint64(s2[i])<<16 | uint64(s3[i])<<24 |
			uint64(s4[i])<<32 | uint64(s5[i])<<40 | uint64(s6[i])<<48
		binary.LittleEndian.PutUint64(dst[i*typesize:], v&mask)
	}
	for ; i < n; i++ {
		for j := 0; j < typesize; j++ {
			dst[i*typesize+j] = src[j*n+i]
		}
	}
}

// unshuffleN handles any typesize. Eight elements at a time, each group of
// eight streams is loaded as eight words and transposed as an 8x8 byte
// matrix, giving eight 8-byte pieces of eight elements; the typesize%8
// streams left over and the last n%8 elements go byte by byte.
func unshuffleN(dst, src []byte, n, typesize int) {
	full := typesize &^ 7
	i := 0
	for ; i+8 <= n; i += 8 {
		for j := 0; j < full; j += 8 {
			transposeStreams(dst, src, n, typesize, i, j)
		}
		for j := full; j < typesize; j++ {
			s := src[j*n+i : j*n+i+8]
			for m, b := range s {
				dst[(i+m)*typesize+j] = b
			}
		}
	}
	for ; i < n; i++ {
		for j := 0; j < typesize; j++ {
			dst[i*typesize+j] = src[j*n+i]
		}
	}
}

// transposeStreams writes bytes j..j+7 of elements i..i+7.
func transposeStreams(dst, src []byte, n, typesize, i, j int) {
	s := src[j*n+i:]
	w0, w1, w2, w3, w4, w5, w6, w7 := transpose8x8(
		binary.LittleEndian.Uint64(s[0*n:]), binary.LittleEndian.Uint64(s[1*n:]),
		binary.LittleEndian.Uint64(s[2*n:]), binary.LittleEndian.Uint64(s[3*n:]),
		binary.LittleEndian.Uint64(s[4*n:]), binary.LittleEndian.Uint64(s[5*n:]),
		binary.LittleEndian.Uint64(s[6*n:]), binary.LittleEndian.Uint64(s[7*n:]))
	d := dst[i*typesize+j:]
	binary.LittleEndian.PutUint64(d[0*typesize:], w0)
	binary.LittleEndian.PutUint64(d[1*typesize:], w1)
	binary.LittleEndian.PutUint64(d[2*typesize:], w2)
	binary.LittleEndian.PutUint64(d[3*typesize:], w3)
	binary.LittleEndian.PutUint64(d[4*typesize:], w4)
	binary.LittleEndian.PutUint64(d[5*typesize:], w5)
	binary.LittleEndian.PutUint64(d[6*typesize:], w6)
	binary.LittleEndian.PutUint64(d[7*typesize:], w7)
}

// transpose8x8 transposes the 8x8 byte matrix whose row k is wk (column m
// is byte m, little endian). Each stage swaps the off-diagonal blocks of one
// size: 4x4, then 2x2, then 1x1. The rows are separate values rather than an
// array so that they stay in registers (an array version measured 30% slower).
func transpose8x8(w0, w1, w2, w3, w4, w5, w6, w7 uint64) (r0, r1, r2, r3, r4, r5, r6, r7 uint64) {
	w0, w4 = swap(w0, w4, 32, 0x00000000FFFFFFFF)
	w1, w5 = swap(w1, w5, 32, 0x00000000FFFFFFFF)
	w2, w6 = swap(w2, w6, 32, 0x00000000FFFFFFFF)
	w3, w7 = swap(w3, w7, 32, 0x00000000FFFFFFFF)
	w0, w2 = swap(w0, w2, 16, 0x0000FFFF0000FFFF)
	w1, w3 = swap(w1, w3, 16, 0x0000FFFF0000FFFF)
	w4, w6 = swap(w4, w6, 16, 0x0000FFFF0000FFFF)
	w5, w7 = swap(w5, w7, 16, 0x0000FFFF0000FFFF)
	w0, w1 = swap(w0, w1, 8, 0x00FF00FF00FF00FF)
	w2, w3 = swap(w2, w3, 8, 0x00FF00FF00FF00FF)
	w4, w5 = swap(w4, w5, 8, 0x00FF00FF00FF00FF)
	w6, w7 = swap(w6, w7, 8, 0x00FF00FF00FF00FF)
	return w0, w1, w2, w3, w4, w5, w6, w7
}

// swap exchanges the high part of each lane of a (lanes of 2*shift bits,
// low parts selected by mask) with the low part of each lane of b.
func swap(a, b uint64, shift uint, mask uint64) (uint64, uint64) {
	return a&mask | (b&mask)<<shift, (a>>shift)&mask | b&^mask
}
