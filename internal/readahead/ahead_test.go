package readahead

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestBlocks: every block once, in order, with its bounds; no more than
// ahead+1 reads started before the caller is done with a block; values
// reused once returned; an error ends the loop; an early stop cancels and
// waits for the reads in flight.
func TestBlocks(t *testing.T) {
	var reads, reused atomic.Int64
	var inFlight, most atomic.Int64
	var got [][2]int
	Blocks(context.Background(), 10, 3, 1,
		func(ctx context.Context, first, stop int, reuse *[2]int) (*[2]int, error) {
			reads.Add(1)
			if reuse != nil {
				reused.Add(1)
			} else {
				reuse = new([2]int)
			}
			*reuse = [2]int{first, stop}
			return reuse, nil
		},
		func(first int, v *[2]int, err error) bool {
			if err != nil || v[0] != first {
				t.Fatalf("block at %d: %v, %v", first, v, err)
			}
			got = append(got, *v)
			return true
		})
	want := [][2]int{{0, 3}, {3, 6}, {6, 9}, {9, 10}}
	if len(got) != len(want) {
		t.Fatalf("blocks %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("blocks %v, want %v", got, want)
		}
	}
	if reads.Load() != 4 || reused.Load() == 0 {
		t.Fatalf("%d reads, %d reused; want 4 and some", reads.Load(), reused.Load())
	}

	// At most ahead+1 reads held: the caller holds each block while counting.
	Blocks(context.Background(), 100, 1, 2,
		func(ctx context.Context, first, stop int, _ int) (int, error) {
			if k := inFlight.Add(1); k > most.Load() {
				most.Store(k)
			}
			return first, nil
		},
		func(first int, v int, err error) bool {
			inFlight.Add(-1)
			return true
		})
	if most.Load() > 3 {
		t.Fatalf("%d blocks read or held at once, want at most 3", most.Load())
	}

	boom := errors.New("boom")
	var n int
	Blocks(context.Background(), 10, 2, 2,
		func(ctx context.Context, first, stop int, _ int) (int, error) {
			if first == 4 {
				return 0, boom
			}
			return first, nil
		},
		func(first int, v int, err error) bool {
			n++
			if first == 4 && !errors.Is(err, boom) || first != 4 && err != nil {
				t.Fatalf("block %d: %v", first, err)
			}
			return true
		})
	if n != 3 {
		t.Fatalf("%d yields, want 3 (two blocks and the error)", n)
	}

	var cancelled atomic.Int64
	Blocks(context.Background(), 100, 1, 4,
		func(ctx context.Context, first, stop int, _ int) (int, error) {
			if first > 0 {
				<-ctx.Done()
				cancelled.Add(1)
			}
			return first, ctx.Err()
		},
		func(first int, v int, err error) bool { return false })
	if cancelled.Load() != 4 {
		t.Fatalf("%d reads cancelled and waited for, want 4", cancelled.Load())
	}
}
