package h5grove

import (
	"context"
	"fmt"
	"math"
	"net/http"

	"github.com/lindigo/lindi/zarrmeta"
)

// stats answers /stats: minimum, maximum, mean and standard deviation of
// the selected elements, and their smallest positive and non-negative
// values, as h5grove computes them: NaN and infinities left out of float
// data, integers (and booleans) reported as integers, truncated. A HEAD
// request reads nothing.
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
	var n, npos int
	var sum float64
	min, max := math.Inf(1), math.Inf(-1)
	posMin, strictMin := math.Inf(1), math.Inf(1)
	for i := range a.Len() {
		v := numberAt(a, i)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		n++
		sum += v
		min, max = math.Min(min, v), math.Max(max, v)
		if v >= 0 {
			npos++
			posMin = math.Min(posMin, v)
		}
		if v > 0 {
			strictMin = math.Min(strictMin, v)
		}
	}
	out := map[string]any{"strict_positive_min": nil, "positive_min": nil, "min": nil, "max": nil, "mean": nil, "std": nil}
	if n == 0 {
		return writeJSON(w, out)
	}
	mean := sum / float64(n)
	var ss float64
	for i := range a.Len() {
		v := numberAt(a, i)
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			ss += (v - mean) * (v - mean)
		}
	}
	cast := func(v float64) any {
		if dt.Kind == zarrmeta.KindFloat {
			return v
		}
		return int64(v)
	}
	out["min"], out["max"], out["mean"], out["std"] = cast(min), cast(max), cast(mean), cast(math.Sqrt(ss/float64(n)))
	if npos > 0 {
		out["positive_min"] = cast(posMin)
	}
	if !math.IsInf(strictMin, 1) {
		out["strict_positive_min"] = cast(strictMin)
	}
	return writeJSON(w, out)
}
