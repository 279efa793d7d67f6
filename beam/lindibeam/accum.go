package lindibeam

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"unsafe"
)

// The statistics of a column are kept as exact sums, so that they do not
// depend on how the data was split into groups or in which order partial
// results are merged: integers sum as integers (a few machine words in the
// hot loop, big.Int between groups); a float64 is an integer multiple of
// 2^-1074 and its square of 2^-2148, so floats sum exactly in a fixed-point
// superaccumulator (32-bit digits in int64 limbs, carried now and then) and
// leave the worker as big.Int multiples of those units. Mean and variance
// are computed once, from the exact sums, and rounded once.

const (
	floatScale  = 1074 // a float64's sum is kept as a multiple of 2^-floatScale
	squareScale = 2 * floatScale
	// blockRows bounds the elements a column adds into machine words before
	// they are folded into its big sums: 2^20 int16 squares (at most 2^30
	// each) stay far from overflowing an int64, as 2^20 squares of uint64
	// do from three words.
	blockRows = 1 << 20
)

// Column is the exact running statistics of one column.
type Column struct {
	// N counts the elements, NaNs included.
	N int64
	// Sum and Sum2 are the exact sums of the values and of their squares:
	// integers, or for float data multiples of 2^-1074 and 2^-2148. NaNs
	// and infinities are left out of them.
	Sum, Sum2 *big.Int
	// Min and Max are the extremes, for integer data (nil before any).
	MinI, MaxI *big.Int
	// MinF and MaxF are the extremes of the float data that is not NaN
	// (+Inf and -Inf before any).
	MinF, MaxF float64
	// NaN, PosInf and NegInf count the non-finite float values.
	NaN, PosInf, NegInf int64
}

// Partial is the statistics of some columns of a dataset, keyed by their
// index on the dataset's axis 1: what a worker computes from its group, and
// what merging two partials gives.
type Partial struct {
	// Float is set for float data, whose sums are scaled.
	Float bool
	// Cols are the columns' indices, ascending.
	Cols []int
	// Stats holds the statistics of Cols[i] at i.
	Stats []Column
	// Err, when set, says why a part of the data could not be read: the
	// statistics are incomplete, and a merge keeps the error.
	Err string
}

func newColumn(float bool) Column {
	c := Column{Sum: new(big.Int), Sum2: new(big.Int)}
	if float {
		c.MinF, c.MaxF = math.Inf(1), math.Inf(-1)
	}
	return c
}

// merge adds b's statistics into a's.
func (a *Column) merge(b *Column) {
	a.N += b.N
	a.Sum = new(big.Int).Add(a.Sum, b.Sum)
	a.Sum2 = new(big.Int).Add(a.Sum2, b.Sum2)
	if b.MinI != nil && (a.MinI == nil || b.MinI.Cmp(a.MinI) < 0) {
		a.MinI = b.MinI
	}
	if b.MaxI != nil && (a.MaxI == nil || b.MaxI.Cmp(a.MaxI) > 0) {
		a.MaxI = b.MaxI
	}
	a.MinF, a.MaxF = min(a.MinF, b.MinF), max(a.MaxF, b.MaxF)
	a.NaN += b.NaN
	a.PosInf += b.PosInf
	a.NegInf += b.NegInf
}

// Merge returns the statistics of a's and b's elements together. Columns
// both hold are merged; the result shares no memory with a or b that a
// later merge would change.
func Merge(a, b Partial) (Partial, error) {
	if a.Err != "" || b.Err != "" { // the first error in order, whatever the merge order
		e := a.Err
		if e == "" || b.Err != "" && b.Err < e {
			e = b.Err
		}
		return Partial{Err: e}, nil
	}
	if len(a.Cols) == 0 {
		return b, nil
	}
	if len(b.Cols) == 0 {
		return a, nil
	}
	if a.Float != b.Float {
		return Partial{}, fmt.Errorf("lindibeam: merging float and integer statistics")
	}
	out := Partial{Float: a.Float}
	i, j := 0, 0
	for i < len(a.Cols) || j < len(b.Cols) {
		switch {
		case j == len(b.Cols) || i < len(a.Cols) && a.Cols[i] < b.Cols[j]:
			out.Cols, out.Stats = append(out.Cols, a.Cols[i]), append(out.Stats, a.Stats[i])
			i++
		case i == len(a.Cols) || b.Cols[j] < a.Cols[i]:
			out.Cols, out.Stats = append(out.Cols, b.Cols[j]), append(out.Stats, b.Stats[j])
			j++
		default:
			c := a.Stats[i]
			c.merge(&b.Stats[j])
			out.Cols, out.Stats = append(out.Cols, a.Cols[i]), append(out.Stats, c)
			i, j = i+1, j+1
		}
	}
	return out, nil
}

// Layout says how a group's elements, read in C order, fall into columns:
// Outer blocks of Cols columns of Inner elements each (a 2-D group has
// Inner 1; a 1-D dataset is one column, Outer its length).
type Layout struct {
	Outer, Inner int
	// Cols are the dataset's indices of the group's columns, ascending.
	Cols []int
}

// Integer is the integer element types the statistics read exactly.
type Integer interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

// IntPartial computes the statistics of integer elements v laid out as l.
func IntPartial[T Integer](v []T, l Layout) (Partial, error) {
	if err := l.check(len(v)); err != nil {
		return Partial{}, err
	}
	ncol := len(l.Cols)
	p := Partial{Cols: slices.Clone(l.Cols), Stats: make([]Column, ncol)}
	for c := range p.Stats {
		p.Stats[c] = newColumn(false)
	}
	acc := make([]intAcc, ncol)
	for c := range acc {
		acc[c].reset()
	}
	var zero T
	narrow, unsigned := sizeOf(zero) <= 2, zero-1 > 0 && sizeOf(zero) == 8
	stride := ncol * l.Inner
	rows := max(1, blockRows/max(1, l.Inner))
	for o0 := 0; o0 < l.Outer; o0 += rows {
		block := v[o0*stride : min(l.Outer, o0+rows)*stride]
		switch {
		case narrow:
			addNarrow(acc, block, l.Inner)
		case unsigned:
			for k, x := range block {
				acc[(k%stride)/l.Inner].addUint(uint64(x))
			}
		default:
			for k, x := range block {
				acc[(k%stride)/l.Inner].addInt(int64(x))
			}
		}
		for c := range acc {
			acc[c].fold(&p.Stats[c], unsigned)
		}
	}
	return p, nil
}

// addNarrow adds a block of 8- or 16-bit integers: |x| < 2^16, so a block's
// sums and sums of squares fit in an int64 per column. This is the hot loop
// of an ElectricalSeries; a 2-D block (inner 1) takes addNarrowRows.
func addNarrow[T Integer](acc []intAcc, block []T, inner int) {
	ncol := len(acc)
	lanes := make([]narrowLane, ncol)
	for c := range acc {
		lanes[c] = narrowLane{lo: acc[c].lo, hi: acc[c].hi}
	}
	stride := ncol * inner
	if inner == 1 {
		addNarrowRows(lanes, block)
	} else {
		for r := 0; r+stride <= len(block); r += stride {
			for k, x := range block[r : r+stride] {
				l, i := &lanes[k/inner], int64(x)
				l.s += i
				l.q += i * i
				l.lo = min(l.lo, i)
				l.hi = max(l.hi, i)
			}
		}
	}
	n := int64(len(block) / stride * inner)
	for c := range acc {
		a, l := &acc[c], &lanes[c]
		a.n += n
		a.addSum(l.s)
		a.addSquare(0, uint64(l.q))
		a.lo, a.hi = l.lo, l.hi
	}
}

// intAcc sums a column's integers in machine words: the sum in two's
// complement over 128 bits, the squares over 192.
type intAcc struct {
	n          int64
	s0, s1     uint64 // sum, low and high words
	q0, q1, q2 uint64 // sum of squares
	lo, hi     int64  // extremes of values that fit in an int64
	ulo, uhi   uint64 // extremes of uint64 values
}

func (a *intAcc) reset() {
	*a = intAcc{lo: math.MaxInt64, hi: math.MinInt64, ulo: math.MaxUint64}
}

func (a *intAcc) addInt(i int64) {
	a.n++
	a.addSum(i)
	m := uint64(i)
	if i < 0 {
		m = -m // the magnitude, 2^63 for MinInt64 too
	}
	a.addSquare(bits.Mul64(m, m))
	a.lo, a.hi = min(a.lo, i), max(a.hi, i)
}

func (a *intAcc) addUint(u uint64) {
	a.n++
	var c uint64
	a.s0, c = bits.Add64(a.s0, u, 0)
	a.s1 += c
	a.addSquare(bits.Mul64(u, u))
	a.ulo, a.uhi = min(a.ulo, u), max(a.uhi, u)
}

// addSum adds i, sign-extended, to the 128-bit sum.
func (a *intAcc) addSum(i int64) {
	var c uint64
	a.s0, c = bits.Add64(a.s0, uint64(i), 0)
	a.s1 += uint64(i>>63) + c
}

// addSquare adds the 128-bit hi:lo to the sum of squares.
func (a *intAcc) addSquare(hi, lo uint64) {
	var c uint64
	a.q0, c = bits.Add64(a.q0, lo, 0)
	a.q1, c = bits.Add64(a.q1, hi, c)
	a.q2 += c
}

func sizeOf[T Integer](x T) int { return int(unsafe.Sizeof(x)) }

// fold adds the words into c's big sums and starts the words anew.
func (a *intAcc) fold(c *Column, unsigned bool) {
	if a.n == 0 {
		return
	}
	c.N += a.n
	c.Sum = new(big.Int).Add(c.Sum, wordsInt([]uint64{a.s0, a.s1}, true))
	c.Sum2 = new(big.Int).Add(c.Sum2, wordsInt([]uint64{a.q0, a.q1, a.q2}, false))
	lo, hi := big.NewInt(a.lo), big.NewInt(a.hi)
	if unsigned {
		lo, hi = new(big.Int).SetUint64(a.ulo), new(big.Int).SetUint64(a.uhi)
	}
	if c.MinI == nil || lo.Cmp(c.MinI) < 0 {
		c.MinI = lo
	}
	if c.MaxI == nil || hi.Cmp(c.MaxI) > 0 {
		c.MaxI = hi
	}
	a.reset()
}

// wordsInt is the integer of little-endian words, two's complement when
// signed.
func wordsInt(w []uint64, signed bool) *big.Int {
	x := new(big.Int)
	for i := len(w) - 1; i >= 0; i-- {
		x.Lsh(x, 64)
		x.Or(x, new(big.Int).SetUint64(w[i]))
	}
	if signed && w[len(w)-1]>>63 == 1 {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(64*len(w))))
	}
	return x
}

func (l Layout) check(n int) error {
	if l.Outer < 0 || l.Inner < 0 || len(l.Cols) == 0 || l.Outer*l.Inner*len(l.Cols) != n {
		return fmt.Errorf("lindibeam: %d elements do not fill %d×%d×%d", n, l.Outer, len(l.Cols), l.Inner)
	}
	return nil
}

// narrowLane is a column's running sums over a block of 8- or 16-bit
// integers.
type narrowLane struct {
	s, q, lo, hi int64
}

// addNarrowRows adds a 2-D block (inner 1) of 8- or 16-bit integers, rows
// of len(lanes) values. It walks the block in tiles of rows (tileBytes,
// which stay in the L1 cache), and a tile two columns at a time down its rows,
// keeping their sums in registers: a lane in memory per element cost a
// load and a store per sum (3.6 ns an element; BenchmarkIntPartialInt16).
func addNarrowRows[T Integer](lanes []narrowLane, block []T) {
	n := len(lanes)
	rows := len(block) / n
	var zero T
	step := max(8, tileBytes/(n*sizeOf(zero)))
	b16, fast := any(block).([]int16)
	fast = fast && int16Tile != nil
	if fast {
		// Longer tiles: the fast tile reads each row once per 16 columns
		// and folds its sums once per tile (384 columns: 3× faster so).
		step = max(8, tileBytes16/(2*n))
	}
	for r0 := 0; r0 < rows; r0 += step {
		tile := block[r0*n : min(rows, r0+step)*n]
		c := 0
		if fast {
			c = int16Tile(lanes, b16[r0*n:min(rows, r0+step)*n])
		}
		for ; c+2 <= n; c += 2 {
			addPair(&lanes[c], &lanes[c+1], tile[c:], n)
		}
		if c < n {
			addOne(&lanes[c], tile[c:], n)
		}
	}
}

// int16Tile, where the CPU has a faster way than addPair (AVX2, on amd64),
// adds a tile of int16 rows (of len(lanes) values, at most 65536 rows) to
// lanes and returns how many leading columns it added, the others being
// left to addPair; nil elsewhere.
var int16Tile func(lanes []narrowLane, tile []int16) int

// tileBytes is about how much of a block addNarrowRows reduces column pair
// by column pair at a time: rows that stay in the L1 cache (256 rows of 64
// int16 channels, 42 of 384).
const tileBytes = 32 << 10

// tileBytes16 is the size of the tiles int16Tile adds, which stay in the L2
// cache; at most 65536 rows of one column.
const tileBytes16 = 128 << 10

// addPair adds the elements v[0], v[1], v[stride], v[stride+1], … (two
// columns of a tile) to a and b.
func addPair[T Integer](a, b *narrowLane, v []T, stride int) {
	s0, q0, lo0, hi0 := a.s, a.q, a.lo, a.hi
	s1, q1, lo1, hi1 := b.s, b.q, b.lo, b.hi
	for k := 0; k+1 < len(v); k += stride {
		w := v[k : k+2 : k+2]
		x0, x1 := int64(w[0]), int64(w[1])
		s0 += x0
		s1 += x1
		q0 += x0 * x0
		q1 += x1 * x1
		lo0, hi0 = min(lo0, x0), max(hi0, x0)
		lo1, hi1 = min(lo1, x1), max(hi1, x1)
	}
	a.s, a.q, a.lo, a.hi = s0, q0, lo0, hi0
	b.s, b.q, b.lo, b.hi = s1, q1, lo1, hi1
}

// addOne adds the elements v[0], v[stride], … (one column of a tile) to a.
func addOne[T Integer](a *narrowLane, v []T, stride int) {
	s, q, lo, hi := a.s, a.q, a.lo, a.hi
	for k := 0; k < len(v); k += stride {
		x := int64(v[k])
		s += x
		q += x * x
		lo, hi = min(lo, x), max(hi, x)
	}
	a.s, a.q, a.lo, a.hi = s, q, lo, hi
}
