package h5grove

import (
	"context"
	"fmt"
	"math"
	"net/http"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

// stats answers /stats: minimum, maximum, mean and standard deviation of
// the selected elements, and their smallest positive and non-negative
// values, as h5grove computes them with numpy: NaN and infinities left out
// of float data, sums in numpy's pairwise order and in the data's
// precision (float32 data in float32), integers (and booleans) reported as
// integers, truncated. A HEAD request reads nothing.
func (s *Server) stats(ctx context.Context, w http.ResponseWriter, req *request) error {
	sd, err := s.selectData(ctx, req, storedSize)
	if err != nil {
		return err
	}
	dt := sd.d.DType()
	if !isNumeric(dt) || dt.Kind == zarrmeta.KindComplex {
		return fmt.Errorf("%w: no statistics of %s data", errQuery, dt)
	}
	if req.head {
		w.Header().Set("Content-Type", "application/json")
		return nil
	}
	if err := req.hold(ctx, sd.bytes); err != nil {
		return err
	}
	a, err := sd.d.Read(ctx, sd.sel)
	if err != nil {
		return err
	}
	out := map[string]any{"strict_positive_min": nil, "positive_min": nil, "min": nil, "max": nil, "mean": nil, "std": nil}
	if dt.Kind == zarrmeta.KindFloat {
		floatStats(out, a)
	} else {
		intStats(out, a)
	}
	return writeJSON(w, out)
}

// floatStats fills out with the statistics of the finite elements of a
// float array, computed as numpy does in the array's precision.
func floatStats(out map[string]any, a *h5.Array) {
	f32 := a.DType.Size == 4
	var vals []float64
	for i := range a.Len() {
		if v := numberAt(a, i); !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return
	}
	lo, hi := vals[0], vals[0]
	pos, strict := math.Inf(1), math.Inf(1)
	for _, v := range vals {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		if v >= 0 {
			pos = math.Min(pos, v)
		}
		if v > 0 {
			strict = math.Min(strict, v)
		}
	}
	out["min"], out["max"] = lo, hi
	if !math.IsInf(pos, 1) {
		out["positive_min"] = pos
	}
	if !math.IsInf(strict, 1) {
		out["strict_positive_min"] = strict
	}
	round := func(v float64) float64 { return v }
	if f32 {
		round = func(v float64) float64 { return float64(float32(v)) }
	}
	mean, std := meanStd(vals, round, len(vals))
	out["mean"], out["std"] = mean, std
}

// intStats fills out with the statistics of an integer or boolean array:
// extremes exact, mean and standard deviation in float64 as numpy
// computes them, truncated to integers as h5grove reports them.
func intStats(out map[string]any, a *h5.Array) {
	n := a.Len()
	if n == 0 {
		return
	}
	unsigned := a.DType.Kind == zarrmeta.KindUint && a.DType.Size == 8
	key := func(i int) (float64, any) { // the element as float64 and as its exact integer
		if unsigned {
			u := uintAt(a.DType, a.Data[i*8:])
			return float64(u), u
		}
		v := numberAt(a, i)
		return v, int64(v)
	}
	vals := make([]float64, n)
	var lo, hi, pos, strict any
	for i := range n {
		f, exact := key(i)
		vals[i] = f
		if lo == nil || less(exact, lo) {
			lo = exact
		}
		if hi == nil || less(hi, exact) {
			hi = exact
		}
		if f >= 0 && (pos == nil || less(exact, pos)) {
			pos = exact
		}
		if f > 0 && (strict == nil || less(exact, strict)) {
			strict = exact
		}
	}
	out["min"], out["max"], out["positive_min"], out["strict_positive_min"] = lo, hi, pos, strict
	// numpy sums integers cast to float64 through its buffers of 8192.
	mean, std := meanStd(vals, func(v float64) float64 { return v }, 8192)
	out["mean"], out["std"] = truncInt(mean), truncInt(std)
}

// less compares two exact integers of one type (int64 or uint64).
func less(a, b any) bool {
	if x, ok := a.(uint64); ok {
		return x < b.(uint64)
	}
	return a.(int64) < b.(int64)
}

// truncInt is Python's int of a float: truncated toward zero.
func truncInt(v float64) any {
	if v >= math.MaxInt64 {
		return uint64(v)
	}
	return int64(v)
}

// meanStd is numpy's mean and std of vals: sums in pairwise order over
// blocks of at most block elements (numpy's buffers when it casts),
// each operation rounded by round (to float32 for float32 data).
func meanStd(vals []float64, round func(float64) float64, block int) (mean, std float64) {
	n := float64(len(vals))
	mean = round(blockSum(vals, round, block) / n)
	sq := make([]float64, len(vals))
	for i, v := range vals {
		d := round(v - mean)
		sq[i] = round(d * d)
	}
	return mean, round(math.Sqrt(round(blockSum(sq, round, len(sq)) / n)))
}

// blockSum sums vals block by block, each block in pairwise order.
func blockSum(vals []float64, round func(float64) float64, block int) float64 {
	var s float64
	for len(vals) > 0 {
		k := min(block, len(vals))
		s = round(s + pairwiseSum(vals[:k], round))
		vals = vals[k:]
	}
	return s
}

// pairwiseSum is numpy's pairwise summation (pairwise_sum in
// loops_utils.h): below 8 elements one by one, up to 128 in eight
// interleaved sums, above split in two at a multiple of 8.
func pairwiseSum(a []float64, round func(float64) float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		var res float64
		for _, v := range a {
			res = round(res + v)
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] = round(r[j] + a[i+j])
			}
		}
		res := round(round(round(r[0]+r[1])+round(r[2]+r[3])) + round(round(r[4]+r[5])+round(r[6]+r[7])))
		for ; i < n; i++ {
			res = round(res + a[i])
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return round(pairwiseSum(a[:n2], round) + pairwiseSum(a[n2:], round))
}
