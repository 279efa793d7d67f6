package inflate

import "encoding/binary"

// adlerMod is Adler-32's modulus, the largest prime below 2^16.
const adlerMod = 65521

// adlerWords is how many 8-byte words adler sums before reducing: its
// per-byte-lane sums are 16 bits wide, and 256 words of 0xff fill one to
// 65280.
const adlerWords = 256

// adler returns the Adler-32 checksum of p (RFC 1950), as hash/adler32
// does, eight bytes at a time. For bytes b_0..b_{n-1} summed onto (a, s),
// a gains Σb_i and s gains n·a + Σ(n-i)·b_i; over words of eight, s gains
// 8 × (a before each word) plus, per byte position j of the words,
// (8-j) × the sum of the bytes at j, which are summed four to a register
// (even and odd positions apart) with no carry between them.
func adler(p []byte) uint32 {
	a, s := uint64(1), uint64(0)
	const lanes = 0x00ff00ff00ff00ff
	for len(p) >= 8 {
		k := min(len(p)/8, adlerWords)
		var even, odd, before uint64
		q := p[:8*k]
		for i := 0; i+8 <= len(q); i += 8 {
			w := binary.LittleEndian.Uint64(q[i:])
			e, o := w&lanes, w>>8&lanes
			even += e
			odd += o
			before += a
			a += (e + o) * 0x0001000100010001 >> 48
		}
		p = p[8*k:]
		s += 8 * before
		for j := range 4 {
			s += uint64(8-2*j)*(even>>(16*j)&0xffff) + uint64(7-2*j)*(odd>>(16*j)&0xffff)
		}
		a %= adlerMod
		s %= adlerMod
	}
	for _, b := range p {
		a += uint64(b)
		s += a
	}
	return uint32(s%adlerMod)<<16 | uint32(a%adlerMod)
}
