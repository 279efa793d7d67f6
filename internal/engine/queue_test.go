package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
)

// TestJobQueueOrder queues jobs from producers that are all blocked and
// checks that decoders take them lowest seq first, a producer queueing its
// next job as soon as the last is taken, and that close lets the decoder
// drain the queue and stop.
func TestJobQueueOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		q := newJobQueue(2)
		var wg sync.WaitGroup
		total := 0
		for _, first := range []int{17, 3, 39, 0, 25, 8, 31, 12} {
			total += 3
			wg.Go(func() {
				for s := first; s < first+3; s++ {
					if err := q.push(ctx, job{seq: s}); err != nil {
						t.Error(err)
					}
				}
			})
		}
		// Every producer waits with a job queued; the first two pushes
		// found room and their producers pushed again.
		synctest.Wait()
		if k := q.waits.Len(); k != 10 {
			t.Fatalf("%d jobs queued, want 10", k)
		}
		go func() { wg.Wait(); q.close() }()
		var got []int
		for {
			j, ok, err := q.pop(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, j.seq)
			synctest.Wait() // the producer released has queued its next
		}
		want := []int{0, 1, 2, 3, 4, 5, 8, 9, 10, 12, 13, 14, 17, 18, 19, 25, 26, 27, 31, 32, 33, 39, 40, 41}
		if len(got) != total || len(got) != len(want) {
			t.Fatalf("took %v, want %v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("took %v, want %v", got, want)
			}
		}
	})
}

// TestJobQueueFree checks that a producer goes on at once while no more than
// free jobs are queued, waits beyond that until a decoder takes its job or
// its context ends, and that a decoder waiting on an empty queue stops with
// its context.
func TestJobQueueFree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		q := newJobQueue(2)
		for s := range 2 {
			if err := q.push(ctx, job{seq: s}); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() { done <- q.push(ctx, job{seq: 2}) }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("third push returned (%v) with two jobs queued", err)
		default:
		}
		if j, _, _ := q.pop(ctx); j.seq != 0 {
			t.Fatalf("popped %d, want 0", j.seq)
		}
		synctest.Wait()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("third push still waits with two jobs queued")
		}

		cctx, cancel := context.WithCancel(ctx)
		go func() { done <- q.push(cctx, job{seq: 3}) }()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled push: %v", err)
		}
		empty := newJobQueue(1)
		ectx, ecancel := context.WithCancel(ctx)
		go func() {
			_, _, err := empty.pop(ectx)
			done <- err
		}()
		synctest.Wait()
		ecancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("pop of an empty queue, cancelled: %v", err)
		}
	})
}
