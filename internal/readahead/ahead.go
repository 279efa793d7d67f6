// Package readahead reads a sequence of blocks in order with read-ahead: while
// the caller works on one block, the next ones are read in parallel. It is
// the one loop behind h5.Dataset.Blocks and nwb's TimeSeries.PhysicalBlocks.
package readahead

import "context"

// Blocks calls yield with the blocks [first, min(first+rows, n)), for first
// = 0, rows, 2·rows, … below n, in order. Each is read by read in a
// goroutine of its own, started while the caller works on an earlier block,
// so that at most ahead+1 blocks are being read or held at once. A value the
// caller is done with (its yield returned true) is handed to a later read as
// reuse; reuse is the zero T when none is free, and a read that must not
// share memory ignores it. The first error is yielded (with the zero T) and
// ends the loop; so does a yield returning false. Either way the reads still
// in flight are cancelled and waited for before Blocks returns: no goroutine
// outlives it. rows must be positive and ahead not negative.
func Blocks[T any](ctx context.Context, n, rows, ahead int,
	read func(ctx context.Context, first, stop int, reuse T) (T, error),
	yield func(first int, v T, err error) bool) {
	ctx, cancel := context.WithCancel(ctx)
	type result struct {
		v   T
		err error
	}
	var (
		pending []chan result
		free    []T // the values of blocks the caller is done with
	)
	start := func(first int) {
		var reuse T
		if k := len(free); k > 0 {
			reuse, free = free[k-1], free[:k-1]
		}
		ch := make(chan result, 1)
		pending = append(pending, ch)
		go func() {
			v, err := read(ctx, first, min(first+rows, n), reuse)
			ch <- result{v, err}
		}()
	}
	defer func() {
		cancel()
		for _, ch := range pending {
			<-ch
		}
	}()
	next := 0
	for first := 0; first < n; first += rows {
		for ; next < n && next <= first+ahead*rows; next += rows {
			start(next)
		}
		r := <-pending[0]
		pending = pending[1:]
		if r.err != nil {
			var zero T
			yield(first, zero, r.err)
			return
		}
		if !yield(first, r.v, nil) {
			return
		}
		free = append(free, r.v)
	}
}
