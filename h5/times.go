package h5

import (
	"fmt"
	"math"
	"strconv"
	"strings"
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
	for i, n := range counts {
		t, err := Datetime{n, a.DType.Unit}.Time()
		if err != nil {
			return nil, fmt.Errorf("h5: element %d: %w", i, err)
		}
		out[i] = t
	}
	return out, nil
}

// Datetime is a numpy datetime64 scalar, as an attribute of that type
// reads (h5py gives a numpy.datetime64): a count of Unit ("s", "ms", "D",
// …; see zarrmeta.DType.Unit) since 1970-01-01T00:00:00 UTC, NaT for
// none. A datetime64 dataset holds the same counts, which Times converts.
type Datetime struct {
	Count int64
	Unit  string
}

// Time converts d to a UTC time. NaT gives the zero Time (IsZero reports
// it); a time outside what time.Time holds is an error.
func (d Datetime) Time() (time.Time, error) {
	epoch := time.Unix(0, 0).UTC()
	switch {
	case d.Count == NaT:
		return time.Time{}, nil
	case d.Unit == "Y":
		return epoch.AddDate(int(d.Count), 0, 0), nil
	case d.Unit == "M":
		return epoch.AddDate(0, int(d.Count), 0), nil
	}
	if per, ok := subSecond[d.Unit]; ok {
		secs, frac := floorDiv(d.Count, per)
		if per <= 1e9 {
			return time.Unix(secs, frac*(1e9/per)).UTC(), nil
		}
		return time.Unix(secs, frac/(per/1e9)).UTC(), nil
	}
	step, ok := unitDurations[d.Unit]
	if !ok {
		return time.Time{}, fmt.Errorf("%w: datetime64 unit %q", ErrType, d.Unit)
	}
	secs := int64(step / time.Second)
	if d.Count > math.MaxInt64/secs || d.Count < math.MinInt64/secs {
		return time.Time{}, fmt.Errorf("%w: %d [%s] is outside the times Go holds", ErrType, d.Count, d.Unit)
	}
	return time.Unix(d.Count*secs, 0).UTC(), nil
}

// unitFields is how many of year, month, day, hour, minute and second a
// datetime64 of a unit coarser than seconds prints.
var unitFields = map[string]int{"Y": 1, "M": 2, "W": 3, "D": 3, "h": 4, "m": 5}

// subSecond are the units finer than a second: counts per second.
var subSecond = map[string]int64{"ms": 1e3, "us": 1e6, "ns": 1e9, "ps": 1e12, "fs": 1e15, "as": 1e18}

// floorDiv divides rounding towards minus infinity, with the remainder.
func floorDiv(n, d int64) (q, r int64) {
	q, r = n/d, n%d
	if r < 0 {
		q, r = q-1, r+d
	}
	return q, r
}

// String writes d as numpy prints a datetime64: the fields its unit
// resolves ("2020-06-01" for days, "2024-01-02T03:04:05" for seconds,
// "…T03:04:05.123" for milliseconds), or "NaT".
func (d Datetime) String() string {
	if d.Count == NaT {
		return "NaT"
	}
	t, err := d.Time()
	if err != nil {
		return fmt.Sprintf("%d [%s]", d.Count, d.Unit)
	}
	fields := []string{fmt.Sprintf("%04d", t.Year()), fmt.Sprintf("-%02d", t.Month()), fmt.Sprintf("-%02d", t.Day()),
		fmt.Sprintf("T%02d", t.Hour()), fmt.Sprintf(":%02d", t.Minute()), fmt.Sprintf(":%02d", t.Second())}
	n, ok := unitFields[d.Unit]
	if !ok {
		n = len(fields) // seconds and finer
	}
	s := strings.Join(fields[:n], "")
	if per, ok := subSecond[d.Unit]; ok {
		_, frac := floorDiv(d.Count, per)
		digits := len(strconv.FormatInt(per, 10)) - 1
		s += fmt.Sprintf(".%0*d", digits, frac)
	}
	return s
}

// Timedelta is a numpy timedelta64 scalar, as an attribute of that type
// reads (h5py gives a numpy.timedelta64): a count of Unit, NaT for none.
type Timedelta struct {
	Count int64
	Unit  string
}

// Duration converts t to a Duration. NaT, a count that overflows a
// time.Duration and the calendar units Y and M are errors.
func (t Timedelta) Duration() (time.Duration, error) {
	if t.Count == NaT {
		return 0, fmt.Errorf("%w: NaT", ErrType)
	}
	return duration(t.Count, t.Unit)
}

// unitNames are the names numpy prints after a timedelta64's count.
var unitNames = map[string]string{"Y": "years", "M": "months", "W": "weeks", "D": "days", "h": "hours",
	"m": "minutes", "s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds",
	"ps": "picoseconds", "fs": "femtoseconds", "as": "attoseconds"}

// String writes t as numpy prints a timedelta64 ("1500 milliseconds"), or
// "NaT".
func (t Timedelta) String() string {
	if t.Count == NaT {
		return "NaT"
	}
	name, ok := unitNames[t.Unit]
	if !ok {
		name = "[" + t.Unit + "]"
	}
	return strconv.FormatInt(t.Count, 10) + " " + name
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
