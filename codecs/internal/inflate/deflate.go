package inflate

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"sync"
)

// ErrTooLarge reports a stream that decodes to more bytes than the limit the
// caller gave.
var ErrTooLarge = errors.New("inflate: decoded data exceeds the limit")

// corrupt reports invalid DEFLATE data, saying what was wrong.
func corrupt(what string) error { return errors.New("inflate: " + what) }

// A table entry packs one decoded symbol:
//
//	bits  0-7   bits of input the entry consumes (the code, or the table's bits)
//	bits  8-11  extra bits that follow (lengths, distances), subtable bits,
//	            or how many literals the entry holds (1 or 2)
//	bits 12-15  flags
//	bits 16-31  literal bytes (the first in 16-23), length or distance base,
//	            or subtable offset
//
// A primary literal/length entry holds two literals when the first code
// leaves room in the table's bits for the whole of the next one and that one
// is a literal too (pairLiterals): blocks of noisy samples are mostly
// literals, and one lookup then writes two of them.
const (
	flagBad = 1 << 12 // no code: invalid input
	flagEOB = 1 << 13 // end of block
	flagSub = 1 << 14 // pointer to a subtable
	flagLit = 1 << 15 // literal byte
)

const (
	litBits   = 11 // primary table bits, literal/length codes
	distBits  = 8  // primary table bits, distance codes
	clenBits  = 7  // code-length codes are at most 7 bits: no subtables
	maxCode   = 15 // longest code DEFLATE allows
	maxLit    = 286
	maxDist   = 30
	numCLCode = 19

	// Worst-case table sizes with zlib's variable subtables (zlib's enough
	// program: 2342 for 288 symbols at 11 bits, 402 for 30 at 8 bits; 32
	// fixed-code distance symbols need less than that).
	litTableSize  = 2342
	distTableSize = 402
)

// lengthBase and lengthExtra describe length symbols 257..285.
var lengthBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
var lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
	3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}

// distBase and distExtra describe distance symbols 0..29.
var distBase = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
var distExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
	7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}

// codeOrder is the order of the code-length code lengths in a dynamic header.
var codeOrder = [numCLCode]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// litEntry, distEntry and clenEntry give a symbol's entry without its code
// length.
func litEntry(sym int) uint32 {
	switch {
	case sym < 256:
		return flagLit | 1<<8 | uint32(sym)<<16
	case sym == 256:
		return flagEOB
	case sym < maxLit:
		i := sym - 257
		return uint32(lengthBase[i])<<16 | uint32(lengthExtra[i])<<8
	}
	return flagBad
}

func distEntry(sym int) uint32 {
	if sym < maxDist {
		return uint32(distBase[sym])<<16 | uint32(distExtra[sym])<<8
	}
	return flagBad
}

func clenEntry(sym int) uint32 { return uint32(sym) << 16 }

// build fills table, whose primary part has 1<<tb entries, from the code
// lengths of symbols 0..len(lengths)-1, zlib-style: codes longer than tb bits
// go to subtables sized to the codes that share a prefix. It fails on an
// over-subscribed or incomplete code, except the two the standard library
// (and zlib) accept: no codes at all, and a single code of one bit. Slots no
// code reaches decode as flagBad.
func build(table []uint32, lengths []uint8, tb uint, entry func(int) uint32) bool {
	var count [maxCode + 1]int
	for _, l := range lengths {
		count[l]++
	}
	count[0] = 0
	left, maxLen := 1, 0
	for l := 1; l <= maxCode; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false // over-subscribed
		}
		if count[l] > 0 {
			maxLen = l
		}
	}
	primary := table[:1<<tb]
	if left > 0 {
		// Incomplete: only no code at all or one one-bit code may be.
		if maxLen > 1 || count[1] > 1 {
			return false
		}
		for i := range primary {
			primary[i] = flagBad
		}
		if maxLen == 0 {
			return true
		}
	}
	// Symbols sorted by code length, then value: canonical code order.
	var offs [maxCode + 2]int
	for l := 1; l <= maxCode; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	var sorted [maxLit + 2]uint16
	for s, l := range lengths {
		if l != 0 {
			sorted[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	n := offs[maxCode+1]
	code, next := 0, 1<<tb
	prefix, subBits := -1, uint(0)
	remaining := count // codes of each length not yet placed
	var l uint = 1
	for i := range n {
		s := int(sorted[i])
		for remaining[l] == 0 {
			l++
			code <<= 1
		}
		rev := int(bits.Reverse16(uint16(code)) >> (16 - l))
		e := entry(s)
		if x := uint(e >> 8 & 15); l <= tb && x > 0 && l+x <= tb && e&(flagLit|flagEOB|flagBad) == 0 {
			// A length or distance whose extra bits fit in the primary
			// bits too: an entry for each value of them, with the value
			// added and no extra bits left to read.
			for v := range 1 << x {
				ev := (e>>16+uint32(v))<<16 | uint32(l+x)
				for k := rev | v<<l; k < 1<<tb; k += 1 << (l + x) {
					primary[k] = ev
				}
			}
		} else if l <= tb {
			for k := rev; k < 1<<tb; k += 1 << l {
				primary[k] = e | uint32(l)
			}
		} else {
			p := rev & (1<<tb - 1)
			if p != prefix {
				// A new subtable: as many bits as the codes under this
				// prefix need to fill it.
				prefix = p
				subBits = l - tb
				room := 1 << subBits
				for int(subBits+tb) < maxLen {
					room -= remaining[subBits+tb]
					if room <= 0 {
						break
					}
					subBits++
					room <<= 1
				}
				if next+1<<subBits > len(table) {
					return false
				}
				primary[p] = flagSub | uint32(next)<<16 | uint32(subBits)<<8 | uint32(tb)
				next += 1 << subBits
			}
			start := int(primary[p] >> 16)
			sl := l - tb
			for k := rev >> tb; k < 1<<subBits; k += 1 << sl {
				table[start+k] = e | uint32(sl)
			}
		}
		remaining[l]--
		code++
	}
	return true
}

// pairLiterals turns each primary entry of lit that decodes a literal whose
// code leaves room, within the primary bits, for the whole code of a second
// literal into an entry of both: the same two symbols decoded one after the
// other, in one lookup. single is scratch space for the unpaired entries.
func pairLiterals(lit *[litTableSize]uint32, single *[1 << litBits]uint32) {
	copy(single[:], lit[:1<<litBits])
	for k, e := range single {
		if e&flagLit == 0 {
			continue
		}
		n1 := e & 63
		// The bits after the first code index the entry of the next one;
		// the table's top n1 bits are unknown, so it counts only if its
		// code fits in the others.
		e2 := single[k>>n1]
		if e2&flagLit == 0 || n1+e2&63 > litBits {
			continue
		}
		lit[k] = flagLit | 2<<8 | (e>>16&0xff)<<16 | (e2>>16&0xff)<<24 | (n1 + e2&63)
	}
}

// pairsPay reports whether pairing the literals of a code whose literal
// code lengths are lens is worth its cost: whether, with each code as likely
// as its length says (2^-n), one lookup in two or more would give two
// literals. Camera images with a few bits of noise pair well (about 0.7);
// noisy int16 recordings, whose literals take 8 or 9 bits, do not (about
// 0.2, too few pairs to win back the pairing).
func pairsPay(lens []uint8) bool {
	var mass [maxCode + 1]float64 // probability of a literal of each length
	for _, n := range lens {
		if n != 0 {
			mass[n] += 1 / float64(uint(1)<<n)
		}
	}
	p, upTo := 0.0, 0.0 // upTo: mass of literals of length ≤ litBits-n1
	for n1 := litBits - 1; n1 >= 1; n1-- {
		upTo += mass[litBits-n1]
		p += mass[n1] * upTo
	}
	return p >= 0.5
}

// fixed holds the tables of the fixed Huffman codes (RFC 1951 3.2.6).
var fixed = sync.OnceValue(func() *tables {
	t := new(tables)
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	build(t.lit[:], l[:], litBits, litEntry)
	var d [32]uint8
	for i := range d {
		d[i] = 5
	}
	build(t.dist[:], d[:], distBits, distEntry)
	return t
})

// tables are the decoding tables of one block's codes.
type tables struct {
	lit  [litTableSize]uint32
	dist [distTableSize]uint32
}

// decoder holds the state of one decompression: the tables of dynamic
// blocks, the input bits and the output. Decoders are pooled.
type decoder struct {
	dyn    tables
	single [1 << litBits]uint32 // pairLiterals' scratch
	clen   [1 << clenBits]uint32
	lens   [maxLit + maxDist]uint8
	in     []byte
	pos    int    // next byte of in to load into bits
	bits   uint64 // input bits not consumed yet, first in the low bits
	nbits  uint   // how many of bits are valid
	over   uint   // zero bytes loaded past the end of in
	out    []byte // the output buffer: len(out) == cap(out)
	o      int    // next byte of out to write
	base   int    // where this stream's output starts in out
	limit  int    // the most output this stream may produce
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// Inflate decodes the raw DEFLATE stream (RFC 1951) at the start of src and
// appends it to dst, decoding at most limit bytes: more is ErrTooLarge. It
// returns the extended dst and how many bytes of src the stream took; bytes
// after it are not read. dst's spare capacity is used as it is (callers that
// know the decoded size reserve it); beyond it, Inflate grows the buffer up
// to the limit. Corrupt data is an error saying what was wrong; truncated data is
// io.ErrUnexpectedEOF. It is safe for concurrent use.
func Inflate(dst, src []byte, limit int) ([]byte, int, error) {
	d := decoders.Get().(*decoder)
	out, n, err := d.inflate(dst, src, limit)
	d.in, d.out = nil, nil
	decoders.Put(d)
	return out, n, err
}

func (d *decoder) inflate(dst, src []byte, limit int) ([]byte, int, error) {
	limit = max(limit, 0)
	start := len(dst)
	d.in, d.pos, d.bits, d.nbits, d.over = src, 0, 0, 0, 0
	// Never write past start+limit, even in dst's spare capacity: a caller
	// may hand a window of a larger buffer.
	room := cap(dst)
	if start+limit >= start && room > start+limit {
		room = start + limit
	}
	d.out, d.o, d.base, d.limit = dst[:room], start, start, limit
	for {
		if err := d.need(3); err != nil {
			return dst[:start], 0, err
		}
		final := d.bits&1 == 1
		typ := (d.bits >> 1) & 3
		d.consume(3)
		var err error
		switch typ {
		case 0:
			err = d.stored()
		case 1:
			f := fixed()
			err = d.huffman(f, false)
		case 2:
			if err = d.dynamic(); err == nil {
				err = d.huffman(&d.dyn, pairsPay(d.lens[:256]))
			}
		default:
			err = corrupt("invalid block type")
		}
		if err == nil && d.nbits < 8*d.over {
			err = io.ErrUnexpectedEOF // the block used bits past the end
		}
		if err != nil {
			return dst[:start], 0, err
		}
		if final {
			break
		}
	}
	// The stream ends at the byte holding its last bit.
	unread := int(d.nbits/8) - int(d.over)
	return d.out[:d.o], d.pos - unread, nil
}

// need makes sure bits holds at least n bits, loading a byte at a time; past
// the end of the input it loads zero bytes, which the caller detects (nbits <
// 8*over) once it has consumed what it needs.
func (d *decoder) need(n uint) error {
	for d.nbits < n {
		if d.pos < len(d.in) {
			d.bits |= uint64(d.in[d.pos]) << d.nbits
			d.pos++
		} else {
			if d.over >= 8 {
				return io.ErrUnexpectedEOF
			}
			d.over++
		}
		d.nbits += 8
	}
	return nil
}

func (d *decoder) consume(n uint) {
	d.bits >>= n
	d.nbits -= n
}

// truncated reports whether consumed bits went past the end of the input.
func (d *decoder) truncated() bool { return d.nbits < 8*d.over }

// stored copies a stored block.
func (d *decoder) stored() error {
	d.consume(d.nbits & 7)
	if d.truncated() {
		return io.ErrUnexpectedEOF
	}
	// Give back the whole bytes still in the bit buffer.
	d.pos -= int(d.nbits/8) - int(d.over)
	d.bits, d.nbits, d.over = 0, 0, 0
	if len(d.in)-d.pos < 4 {
		return io.ErrUnexpectedEOF
	}
	n := int(binary.LittleEndian.Uint16(d.in[d.pos:]))
	if uint16(n) != ^binary.LittleEndian.Uint16(d.in[d.pos+2:]) {
		return corrupt("stored block length does not match its complement")
	}
	d.pos += 4
	if len(d.in)-d.pos < n {
		return io.ErrUnexpectedEOF
	}
	if err := d.room(n); err != nil {
		return err
	}
	d.o += copy(d.out[d.o:], d.in[d.pos:d.pos+n])
	d.pos += n
	return nil
}

// room makes sure out has space for n more bytes within the limit.
func (d *decoder) room(n int) error {
	if len(d.out)-d.o >= n {
		return nil
	}
	used := d.o - d.base
	if n > d.limit-used {
		return ErrTooLarge
	}
	want := d.base + min(d.limit, max(2*used, used+n, 64<<10))
	out := make([]byte, want)
	copy(out, d.out[:d.o])
	d.out = out
	return nil
}

// dynamic reads a dynamic block's header and builds its tables.
func (d *decoder) dynamic() error {
	if err := d.need(14); err != nil {
		return err
	}
	nlit := int(d.bits&31) + 257
	ndist := int(d.bits>>5&31) + 1
	nclen := int(d.bits>>10&15) + 4
	d.consume(14)
	if nlit > maxLit {
		return corrupt("too many literal/length codes")
	}
	if ndist > maxDist {
		return corrupt("too many distance codes")
	}
	var cl [numCLCode]uint8
	for i := range nclen {
		if err := d.need(3); err != nil {
			return err
		}
		cl[codeOrder[i]] = uint8(d.bits & 7)
		d.consume(3)
	}
	if !build(d.clen[:], cl[:], clenBits, clenEntry) {
		return corrupt("invalid code-length code")
	}
	lens := d.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		if err := d.need(clenBits); err != nil {
			return err
		}
		e := d.clen[d.bits&(1<<clenBits-1)]
		if e&flagBad != 0 {
			return corrupt("invalid code-length symbol")
		}
		d.consume(uint(e & 0xff))
		sym := e >> 16
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var val uint8
		switch sym {
		case 16:
			if i == 0 {
				return corrupt("code length repeated with no previous length")
			}
			if err := d.need(2); err != nil {
				return err
			}
			rep, val = 3+int(d.bits&3), lens[i-1]
			d.consume(2)
		case 17:
			if err := d.need(3); err != nil {
				return err
			}
			rep = 3 + int(d.bits&7)
			d.consume(3)
		default:
			if err := d.need(7); err != nil {
				return err
			}
			rep = 11 + int(d.bits&127)
			d.consume(7)
		}
		if i+rep > len(lens) {
			return corrupt("code lengths repeat past the last code")
		}
		for k := range rep {
			lens[i+k] = val
		}
		i += rep
	}
	if d.truncated() {
		return io.ErrUnexpectedEOF
	}
	if !build(d.dyn.lit[:], lens[:nlit], litBits, litEntry) {
		return corrupt("invalid literal/length code")
	}
	if !build(d.dyn.dist[:], lens[nlit:], distBits, distEntry) {
		return corrupt("invalid distance code")
	}
	return nil
}
