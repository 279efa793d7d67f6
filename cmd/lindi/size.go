package main

import (
	"context"
	"strconv"

	"github.com/lindigo/lindi/h5"
)

// humanSize prints n bytes as ls -lh does: bytes below 1024, else one
// decimal below 10 of the unit and none above (1.5K, 23M, 4.0G), rounded
// up as ls rounds.
func humanSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10)
	}
	v := float64(n)
	unit := 0
	for v >= 1024 && unit < len(sizeUnits)-1 {
		v /= 1024
		unit++
	}
	if v < 10 {
		v = ceilTo(v, 10)
		if v < 10 {
			return strconv.FormatFloat(v, 'f', 1, 64) + sizeUnits[unit]
		}
	}
	v = ceilTo(v, 1)
	if v >= 1024 && unit < len(sizeUnits)-1 { // 1023.5K rounds up to 1.0M
		return "1.0" + sizeUnits[unit+1]
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + sizeUnits[unit]
}

var sizeUnits = []string{"", "K", "M", "G", "T", "P", "E"}

// ceilTo rounds v up to a multiple of 1/per.
func ceilTo(v, per float64) float64 {
	r := float64(int64(v * per))
	if r < v*per {
		r++
	}
	return r / per
}

// sizes gives a dataset's logical size (NBytes) and its stored size (the
// sum of its chunks, "?" when that takes a request per chunk), as ls -lh
// prints sizes.
func sizes(ctx context.Context, d *h5.Dataset) (logical, stored string, err error) {
	n, known, err := d.StoredSize(ctx)
	if err != nil {
		return "", "", err
	}
	stored = "?"
	if known {
		stored = humanSize(n)
	}
	return humanSize(d.NBytes()), stored, nil
}
