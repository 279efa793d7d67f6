package lindibeam

import (
	"math"
	"math/big"
	"math/bits"
	"slices"
)

// superacc is an exact fixed-point sum of float64 values (or of their
// squares): limb i holds a signed count of units 2^(32i) of the scale, so
// adding a value adds its mantissa, cut into 32-bit digits, to three limbs
// (a square: five). A limb takes at most 2^32 per add, so carries are
// propagated before 2^30 adds.
type superacc struct {
	limbs []int64
	adds  int
}

// Limb counts: a float64 is below 2^1024 = 2^(1024+1074) units of 2^-1074,
// its square below 2^(2048+2148); three (five) more limbs take a mantissa
// shifted by up to 31 bits and the carries.
const (
	sumLimbs    = (1024+floatScale)/32 + 4
	squareLimbs = (2048+squareScale)/32 + 6
)

func newSuperacc(limbs int) *superacc { return &superacc{limbs: make([]int64, limbs)} }

// mantissa returns m and e with |x| = m·2^(e-1074) for finite x.
func mantissa(x float64) (m uint64, e uint) {
	b := math.Float64bits(x)
	exp := uint(b>>52) & 0x7ff
	m = b & (1<<52 - 1)
	if exp == 0 {
		return m, 0 // subnormal
	}
	return m | 1<<52, exp - 1
}

// add adds the finite x.
func (s *superacc) add(x float64) {
	m, e := mantissa(x)
	if m == 0 {
		return
	}
	i, off := e/32, e%32
	lo, hi := m<<off, m>>(64-off)
	if off == 0 {
		hi = 0
	}
	d0, d1, d2 := int64(lo&0xffffffff), int64(lo>>32), int64(hi)
	if x < 0 {
		d0, d1, d2 = -d0, -d1, -d2
	}
	s.limbs[i] += d0
	s.limbs[i+1] += d1
	s.limbs[i+2] += d2
	s.tick()
}

// addSquare adds x², exactly, in units of 2^-2148.
func (s *superacc) addSquare(x float64) {
	m, e := mantissa(x)
	if m == 0 {
		return
	}
	hi, lo := bits.Mul64(m, m) // < 2^106
	sh := 2 * e
	i, off := sh/32, sh%32
	// shift the 128-bit hi:lo left by off into three words
	w0, w1, w2 := lo<<off, hi<<off, uint64(0)
	if off > 0 {
		w1 |= lo >> (64 - off)
		w2 = hi >> (64 - off)
	}
	s.limbs[i] += int64(w0 & 0xffffffff)
	s.limbs[i+1] += int64(w0 >> 32)
	s.limbs[i+2] += int64(w1 & 0xffffffff)
	s.limbs[i+3] += int64(w1 >> 32)
	s.limbs[i+4] += int64(w2)
	s.tick()
}

func (s *superacc) tick() {
	if s.adds++; s.adds == 1<<30 {
		s.carry()
	}
}

// carry brings every limb but the last into [0, 2^32).
func (s *superacc) carry() {
	for i := 0; i < len(s.limbs)-1; i++ {
		c := s.limbs[i] >> 32 // floor division: the remainder is in [0, 2^32)
		s.limbs[i] -= c << 32
		s.limbs[i+1] += c
	}
	s.adds = 0
}

// int returns the sum as a big.Int of units.
func (s *superacc) int() *big.Int {
	s.carry()
	x := big.NewInt(s.limbs[len(s.limbs)-1])
	for i := len(s.limbs) - 2; i >= 0; i-- {
		x.Lsh(x, 32)
		x.Add(x, big.NewInt(s.limbs[i]))
	}
	return x
}

// FloatPartial computes the statistics of float elements v laid out as l.
func FloatPartial[T float32 | float64](v []T, l Layout) (Partial, error) {
	if err := l.check(len(v)); err != nil {
		return Partial{}, err
	}
	ncol := len(l.Cols)
	p := Partial{Float: true, Cols: slices.Clone(l.Cols), Stats: make([]Column, ncol)}
	sums, squares := make([]*superacc, ncol), make([]*superacc, ncol)
	for c := range p.Stats {
		p.Stats[c] = newColumn(true)
		sums[c], squares[c] = newSuperacc(sumLimbs), newSuperacc(squareLimbs)
	}
	stride := ncol * l.Inner
	for k, x := range v {
		c := (k % stride) / l.Inner
		st := &p.Stats[c]
		f := float64(x)
		st.N++
		switch {
		case f != f:
			st.NaN++
			continue
		case math.IsInf(f, 1):
			st.PosInf++
		case math.IsInf(f, -1):
			st.NegInf++
		default:
			sums[c].add(f)
			squares[c].addSquare(f)
		}
		st.MinF, st.MaxF = min(st.MinF, f), max(st.MaxF, f)
	}
	for c := range p.Stats {
		p.Stats[c].Sum, p.Stats[c].Sum2 = sums[c].int(), squares[c].int()
	}
	return p, nil
}
