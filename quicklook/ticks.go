package quicklook

import (
	"math"
	"strconv"
	"strings"
)

// scale maps the data values lo…hi of an axis to the pixels p0…p1 (p1 < p0
// for an axis that goes up), linearly or, for log, by the logarithms.
type scale struct {
	lo, hi, p0, p1 float64
	log            bool
}

func (s scale) pix(v float64) float64 {
	a, b := s.lo, s.hi
	if s.log {
		a, b, v = math.Log10(a), math.Log10(b), math.Log10(v)
	}
	return s.p0 + (v-a)/(b-a)*(s.p1-s.p0)
}

// padRange is the range an axis shows for data in lo…hi (lo > hi: no data):
// 5% more on each side, as matplotlib does, and some width for a single
// value.
func padRange(lo, hi float64, log bool) (float64, float64) {
	if log {
		if lo > hi {
			return 1, 10
		}
		a, b := math.Log10(lo), math.Log10(hi)
		if a == b { // half a decade each way, not a tenth of the logarithm
			a, b = a-0.5, b+0.5
		}
		a, b = padRange(a, b, false)
		return max(math.Pow(10, a), math.SmallestNonzeroFloat64), min(math.Pow(10, b), math.MaxFloat64)
	}
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		d := 0.5
		if lo != 0 {
			d = math.Abs(lo) * 0.1
		}
		lo, hi = lo-d, hi+d
	}
	m := (hi - lo) * 0.05
	if math.IsInf(hi-lo, 0) {
		return lo, hi
	}
	return lo - m, hi + m
}

// niceStep is the smallest step of 1, 2 or 5 times a power of ten that
// cuts span into at most n parts, and at least minStep.
func niceStep(span float64, n int, minStep float64) float64 {
	raw := span / float64(max(n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw*(1-1e-9) {
			step = m * mag
			break
		}
	}
	return max(step, minStep)
}

// linearTicks are the multiples of a nice step (at most about n of them,
// at least minStep apart) in lo…hi.
func linearTicks(lo, hi float64, n int, minStep float64) (ticks []float64, step float64) {
	if !(hi > lo) || !finite(hi-lo) {
		return nil, 0
	}
	step = niceStep(hi-lo, n, minStep)
	if !(step > 0) || !finite(step) {
		return nil, 0
	}
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9 && len(ticks) <= 1000; k++ {
		v := k * step
		if !finite(v) {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, v)
	}
	return ticks, step
}

// tickLabels writes ticks step apart as briefly as they read exactly:
// decimals as many as the step needs, or powers of ten when that is long.
func tickLabels(ticks []float64, step float64) []string {
	if len(ticks) == 0 {
		return nil
	}
	dec := min(max(0, -int(math.Floor(math.Log10(step)+1e-9))), 20)
	labels := make([]string, len(ticks))
	longest, big := 0, 0.0
	for i, v := range ticks {
		labels[i] = strconv.FormatFloat(v, 'f', dec, 64)
		longest, big = max(longest, len(labels[i])), max(big, math.Abs(v))
	}
	if longest <= 9 {
		return minus(labels)
	}
	sig := int(math.Floor(math.Log10(big)+1e-9)) - int(math.Floor(math.Log10(step)+1e-9)) + 1
	exp := make([]string, len(ticks))
	shorter := true
	for i, v := range ticks {
		exp[i] = expLabel(v, min(max(sig, 1), 17))
		shorter = shorter && len(exp[i]) < longest
	}
	if shorter {
		labels = exp
	}
	return minus(labels)
}

// minus writes the minus signs of labels as typographic minus signs, as
// matplotlib does.
func minus(labels []string) []string {
	for i, s := range labels {
		labels[i] = strings.ReplaceAll(s, "-", "−")
	}
	return labels
}

// expLabel writes v with sig significant digits as 1.5e6 or 2e-7.
func expLabel(v float64, sig int) string {
	if v == 0 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'e', sig-1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	n, _ := strconv.Atoi(exp)
	return mant + "e" + strconv.Itoa(n)
}

// logTicks are the powers of ten in lo…hi (every k-th when there are more
// than n), or linear ticks when fewer than two powers fall in the range.
func logTicks(lo, hi float64, n int) ([]float64, []string) {
	a, b := int(math.Ceil(math.Log10(lo)-1e-9)), int(math.Floor(math.Log10(hi)+1e-9))
	if !(lo > 0) || math.IsInf(hi, 0) {
		return nil, nil
	}
	if b-a < 1 {
		t, step := linearTicks(lo, hi, n, 0)
		return t, tickLabels(t, step)
	}
	every := (b-a)/max(n, 1) + 1
	var ticks []float64
	var labels []string
	for k := a; k <= b; k += every {
		ticks = append(ticks, math.Pow(10, float64(k)))
		if k >= -4 && k <= 5 {
			labels = append(labels, strconv.FormatFloat(math.Pow(10, float64(k)), 'f', max(0, -k), 64))
		} else {
			labels = append(labels, "1e"+strconv.Itoa(k))
		}
	}
	return ticks, labels
}
