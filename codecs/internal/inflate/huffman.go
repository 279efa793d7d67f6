package inflate

import (
	"encoding/binary"
	"io"
)

// Margins of the fast loop: input for one refill of the bit buffer, and
// output for the literals of one refill (three entries of up to two bytes,
// each writing two), the longest match and the bytes a copy may write past
// its end (a match of up to 16 bytes is copied as two words).
const (
	inMargin  = 8
	outMargin = 8 + 258 + 16
)

// pairAfter is how much output a block with a dynamic code gives before its
// literals are paired (pairLiterals): pairing costs about as much as
// decoding 500 bytes, which short blocks of short streams would not win
// back.
const pairAfter = 2 << 10

// huffman decodes the symbols of one Huffman-coded block up to its end. If
// pair is set, it pairs t's literals once the block has given pairAfter
// bytes.
func (d *decoder) huffman(t *tables, pair bool) error {
	pairAt := d.o + pairAfter
	for {
		stop := len(d.out)
		if pair {
			stop = min(stop, pairAt)
		}
		done, err := d.fast(t, stop)
		if done || err != nil {
			return err
		}
		if pair && d.o+outMargin > pairAt {
			pairLiterals(&t.lit, &d.single)
			pair = false
			continue
		}
		if done, err = d.slow(&t.lit, &t.dist); done || err != nil {
			return err
		}
	}
}

// fast decodes symbols while the margins hold (the output's up to stop), with
// the bit buffer refilled a word at a time: after a refill it holds at least
// 56 bits, enough for a length, a distance and their extra bits (48). It
// reports whether the block ended.
func (d *decoder) fast(t *tables, stop int) (bool, error) {
	if d.over != 0 {
		return false, nil
	}
	in, pos, bb, nb := d.in, d.pos, d.bits, d.nbits
	out, o, base := d.out, d.o, d.base
	done := false
	var err error
	inEnd, outEnd := len(in)-inMargin, stop-outMargin
	for pos <= inEnd && o <= outEnd {
		// The first entry is looked up before the refill, which only adds
		// bits above the nb there are: the lookup need not wait for the
		// load unless fewer than litBits bits were left.
		e := t.lit[bb&(1<<litBits-1)]
		bb |= binary.LittleEndian.Uint64(in[pos:]) << (nb & 63)
		pos += int(63-nb) >> 3
		if nb < litBits {
			e = t.lit[bb&(1<<litBits-1)]
		}
		nb |= 56

		// Up to three literal entries of the primary table per refill (3 ×
		// 11 bits ≤ 56), each looked up as soon as the previous one is
		// consumed. An entry holds one or two literals (pairLiterals):
		// both bytes are written, and o moves by the count (the output
		// margin holds the spare byte).
		if e&flagLit != 0 {
			bb >>= e & 63
			nb -= uint(e & 63)
			binary.LittleEndian.PutUint16(out[o:o+2], uint16(e>>16))
			o += int(e >> 8 & 3)
			e = t.lit[bb&(1<<litBits-1)]
			if e&flagLit != 0 {
				bb >>= e & 63
				nb -= uint(e & 63)
				binary.LittleEndian.PutUint16(out[o:o+2], uint16(e>>16))
				o += int(e >> 8 & 3)
				e = t.lit[bb&(1<<litBits-1)]
				if e&flagLit != 0 {
					bb >>= e & 63
					nb -= uint(e & 63)
					binary.LittleEndian.PutUint16(out[o:o+2], uint16(e>>16))
					o += int(e >> 8 & 3)
					continue
				}
			}
			if nb < 48 {
				// Not enough bits left for a length and a distance.
				continue
			}
		}
		if e&flagSub != 0 {
			bb >>= e & 63
			nb -= uint(e & 63)
			e = t.lit[(e>>16)+uint32(bb)&(1<<(e>>8&15)-1)]
		}
		if e&flagLit != 0 {
			bb >>= e & 63
			nb -= uint(e & 63)
			out[o] = byte(e >> 16)
			o++
			continue
		}
		if e&(flagEOB|flagBad) != 0 {
			bb >>= e & 63
			nb -= uint(e & 63)
			if e&flagBad != 0 {
				err = corrupt("invalid literal/length code")
			}
			done = true
			break
		}
		// A length, and then a distance: the extra bits that follow each
		// code are read from the same word the code was, so the bit buffer
		// shifts once for both.
		n, x := e&63, e>>8&15
		length := int(e>>16) + int(uint32(bb>>n)&(1<<x-1))
		bb >>= (n + x) & 63
		nb -= uint(n + x)

		e = t.dist[bb&(1<<distBits-1)]
		if e&flagSub != 0 {
			bb >>= e & 63
			nb -= uint(e & 63)
			e = t.dist[(e>>16)+uint32(bb)&(1<<(e>>8&15)-1)]
		}
		if e&flagBad != 0 {
			err = corrupt("invalid distance code")
			done = true
			break
		}
		n, x = e&63, e>>8&15
		dd := int(e>>16) + int(uint32(bb>>n)&(1<<x-1))
		bb >>= (n + x) & 63
		nb -= uint(n + x)
		if dd > o-base {
			err = corrupt("distance too far back")
			done = true
			break
		}
		if src := o - dd; dd >= 8 && length <= 16 {
			// Most matches: a word or two, each read wholly before it is
			// written over.
			// (Windows of a constant length, which spare the bounds
			// checks of the words in them.)
			to, from := out[o:o+16], out[src:src+16]
			binary.LittleEndian.PutUint64(to, binary.LittleEndian.Uint64(from))
			if length > 8 {
				binary.LittleEndian.PutUint64(to[8:], binary.LittleEndian.Uint64(from[8:]))
			}
		} else {
			copyMatch(out, o, dd, length)
		}
		o += length
	}
	d.pos, d.bits, d.nbits, d.o = pos, bb, nb, o
	return done, err
}

// copyMatch copies length bytes from dd bytes back to out[o:], as LZ77
// means it (the source may overlap what is being written). It may write up
// to 8 bytes past o+length: the fast loop's output margin holds them.
func copyMatch(out []byte, o, dd, length int) {
	src := o - dd
	switch {
	case dd >= 8:
		// Each word read lies wholly before the word written.
		for n := 0; n < length; n += 8 {
			binary.LittleEndian.PutUint64(out[o+n:], binary.LittleEndian.Uint64(out[src+n:]))
		}
	case dd == 1:
		v := uint64(out[src]) * 0x0101010101010101
		for n := 0; n < length; n += 8 {
			binary.LittleEndian.PutUint64(out[o+n:], v)
		}
	default:
		for i := range length {
			out[o+i] = out[src+i]
		}
	}
}

// slow decodes one symbol near the end of the input or the output, checking
// every bit and byte. It reports whether the block ended.
func (d *decoder) slow(lit *[litTableSize]uint32, dist *[distTableSize]uint32) (bool, error) {
	e, err := d.symbol(lit[:], litBits)
	if err != nil {
		return false, err
	}
	switch {
	case e&flagLit != 0:
		n := int(e >> 8 & 3)
		if err := d.room(n); err != nil {
			return false, err
		}
		d.out[d.o] = byte(e >> 16)
		if n == 2 {
			d.out[d.o+1] = byte(e >> 24)
		}
		d.o += n
		return false, nil
	case e&flagEOB != 0:
		return true, nil
	case e&flagBad != 0:
		return false, corrupt("invalid literal/length code")
	}
	length, err := d.extra(e)
	if err != nil {
		return false, err
	}
	if e, err = d.symbol(dist[:], distBits); err != nil {
		return false, err
	}
	if e&flagBad != 0 {
		return false, corrupt("invalid distance code")
	}
	dd, err := d.extra(e)
	if err != nil {
		return false, err
	}
	if dd > d.o-d.base {
		return false, corrupt("distance too far back")
	}
	if err := d.room(length); err != nil {
		return false, err
	}
	out, src := d.out, d.o-dd
	for i := range length {
		out[d.o+i] = out[src+i]
	}
	d.o += length
	return false, nil
}

// symbol decodes one code with table, whose primary part has tb bits.
func (d *decoder) symbol(table []uint32, tb uint) (uint32, error) {
	if err := d.need(maxCode); err != nil {
		return 0, err
	}
	e := table[d.bits&(1<<tb-1)]
	if e&flagSub != 0 {
		d.consume(uint(e & 0xff))
		e = table[(e>>16)+uint32(d.bits)&(1<<(e>>8&15)-1)]
	}
	d.consume(uint(e & 0xff))
	if d.truncated() {
		return 0, io.ErrUnexpectedEOF
	}
	return e, nil
}

// extra reads the extra bits of a length or distance entry and returns the
// value.
func (d *decoder) extra(e uint32) (int, error) {
	x := uint(e >> 8 & 15)
	if err := d.need(x); err != nil {
		return 0, err
	}
	v := int(e>>16) + int(d.bits&(1<<x-1))
	d.consume(x)
	if d.truncated() {
		return 0, io.ErrUnexpectedEOF
	}
	return v, nil
}
