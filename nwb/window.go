package nwb

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// searchBlock is how many timestamps one probe of the binary search reads:
// a few kilobytes, so a search over n timestamps reads about
// log2(n/searchBlock)+1 small blocks instead of the whole array.
var searchBlock = 512

// Window returns the range [start, stop) of the samples whose times t satisfy
// t0 <= t < t1. With explicit timestamps (which NWB requires to be
// ascending) it binary-searches them, reading a small block of timestamps per
// step, never the whole array. Timestamps that are not ascending give an
// unspecified range of the right form.
func (ts *TimeSeries) Window(ctx context.Context, t0, t1 float64) (start, stop int, err error) {
	if math.IsNaN(t0) || math.IsNaN(t1) || t1 < t0 {
		return 0, 0, fmt.Errorf("%w: %s: time window [%v, %v)", ErrRange, ts.Path(), t0, t1)
	}
	s := &searcher{ts: ts, blocks: map[int][]float64{}}
	if start, err = s.lowerBound(ctx, t0, 0); err != nil {
		return 0, 0, err
	}
	if stop, err = s.lowerBound(ctx, t1, start); err != nil {
		return 0, 0, err
	}
	return start, stop, nil
}

// searcher finds the first sample at or after a time, caching the blocks of
// timestamps it has read.
type searcher struct {
	ts     *TimeSeries
	blocks map[int][]float64
}

// lowerBound is the first sample i >= from whose time is >= t (Len() if none).
func (s *searcher) lowerBound(ctx context.Context, t float64, from int) (int, error) {
	n := s.ts.Len()
	if s.ts.timestamps == nil {
		// Start near the answer, then settle on it with the exact sample times
		// Timestamps gives, so that both agree at the window's edges.
		guess := (t - s.ts.start) * s.ts.rate
		i := from
		if guess > float64(from) {
			i = int(min(math.Ceil(guess), float64(n)))
		}
		for i > from && s.ts.start+float64(i-1)/s.ts.rate >= t {
			i--
		}
		for i < n && s.ts.start+float64(i)/s.ts.rate < t {
			i++
		}
		return i, nil
	}
	var err error
	i := from + sort.Search(n-from, func(k int) bool {
		if err != nil {
			return true
		}
		var v float64
		v, err = s.at(ctx, from+k)
		return v >= t
	})
	return i, err
}

// at is the timestamp of sample i, read with its block.
func (s *searcher) at(ctx context.Context, i int) (float64, error) {
	b := i / searchBlock
	blk, ok := s.blocks[b]
	if !ok {
		var err error
		if blk, err = s.ts.Timestamps(ctx, b*searchBlock, min((b+1)*searchBlock, s.ts.Len())); err != nil {
			return 0, err
		}
		s.blocks[b] = blk
	}
	return blk[i-b*searchBlock], nil
}
