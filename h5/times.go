package h5

import (
	"fmt"
	"math"
	"time"

	"github.com/lindigo/lindi/zarrmeta"
)

// NaT is numpy's "not a time", the int64 count datetime64 and timedelta64
// use for a missing value.
const NaT = math.MinInt64

// unitDurations are the fixed-length numpy time units.
var unitDurations = map[string]time.Duration{"W": 7 * 24 * time.Hour, "D": 24 * time.Hour, "h": time.Hour,
	"m": time.Minute, "s": time.Second, "ms": time.Millisecond, "us": time.Microsecond, "ns": time.Nanosecond}

// unitDivisors are the units finer than a nanosecond.
var unitDivisors = map[string]int64{"ps": 1e3, "fs": 1e6, "as": 1e9}

func isTime(dt zarrmeta.DType) bool {
	return dt.Kind == zarrmeta.KindDatetime || dt.Kind == zarrmeta.KindTimedelta
}

// Times converts the elements of a datetime64 array to UTC times. NaT reads
// as the zero Time (IsZero reports it); a time outside what time.Time holds
// is an error.
func Times(a *Array) ([]time.Time, error) {
	if a.DType.Kind != zarrmeta.KindDatetime {
		return nil, fmt.Errorf("%w: dtype %s is not datetime64", ErrType, a.DType)
	}
	counts := view[int64](a.Data)
	out := make([]time.Time, len(counts))
	epoch := time.Unix(0, 0).UTC()
	for i, n := range counts {
		if n == NaT {
			continue
		}
		switch u := a.DType.Unit; u {
		case "Y":
			out[i] = epoch.AddDate(int(n), 0, 0)
		case "M":
			out[i] = epoch.AddDate(0, int(n), 0)
		default:
			d, err := duration(n, u)
			if err != nil {
				return nil, fmt.Errorf("h5: element %d: %w", i, err)
			}
			out[i] = epoch.Add(d)
		}
	}
	return out, nil
}

// Durations converts the elements of a timedelta64 array to durations. NaT,
// a count that overflows time.Duration (about 292 years) and the calendar
// units Y and M, which have no fixed length, are errors.
func Durations(a *Array) ([]time.Duration, error) {
	if a.DType.Kind != zarrmeta.KindTimedelta {
		return nil, fmt.Errorf("%w: dtype %s is not timedelta64", ErrType, a.DType)
	}
	counts := view[int64](a.Data)
	out := make([]time.Duration, len(counts))
	for i, n := range counts {
		if n == NaT {
			return nil, fmt.Errorf("%w: element %d is NaT", ErrType, i)
		}
		d, err := duration(n, a.DType.Unit)
		if err != nil {
			return nil, fmt.Errorf("h5: element %d: %w", i, err)
		}
		out[i] = d
	}
	return out, nil
}

// duration converts n units to a Duration, failing on overflow.
func duration(n int64, unit string) (time.Duration, error) {
	if div, ok := unitDivisors[unit]; ok {
		return time.Duration(n / div), nil
	}
	d, ok := unitDurations[unit]
	if !ok {
		return 0, fmt.Errorf("%d [%s] has no fixed length: %w", n, unit, ErrType)
	}
	if n > math.MaxInt64/int64(d) || n < math.MinInt64/int64(d) {
		return 0, fmt.Errorf("%d [%s] overflows a time.Duration: %w", n, unit, ErrType)
	}
	return time.Duration(n) * d, nil
}
