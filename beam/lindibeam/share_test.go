package lindibeam

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lindigo/lindi/h5"
)

// countingShare is an openShare whose opens are counted, and wait for gate
// when it is not nil.
func countingShare(idle time.Duration, gate chan struct{}) (*openShare, *atomic.Int32) {
	var n atomic.Int32
	return &openShare{m: map[DatasetJob]*sharedOpen{}, idle: idle,
		open: func(ctx context.Context, job DatasetJob) (*h5.File, *h5.Dataset, error) {
			n.Add(1)
			if gate != nil {
				<-gate
			}
			return openJobDataset(ctx, job)
		}}, &n
}

func (s *openShare) entries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

var shareJob = DatasetJob{Source: "../../testdata/conformance/fixture.h5", Dataset: "acquisition/ElectricalSeries/data"}

// TestShareOpensOnce: the DoFns of a job acquiring its dataset at once in
// one process make one open and get the same dataset; jobs that differ
// only in what they do with it share it, a job with other open options does
// not; an open nobody holds stays for the idle time, is taken again without
// an open, and is closed after it.
func TestShareOpensOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, n := countingShare(time.Minute, nil)
		ctx := context.Background()
		const k = 8
		ds, rel := make([]*h5.Dataset, k), make([]func(), k)
		var wg sync.WaitGroup
		for i := range k {
			job := shareJob
			job.Selection, job.GroupBytes, job.Out = "0:10", int64(i+1), "out.json"
			wg.Go(func() {
				d, r, err := s.acquire(ctx, job)
				if err != nil {
					t.Error(err)
					return
				}
				ds[i], rel[i] = d, r
			})
		}
		wg.Wait()
		if t.Failed() {
			return
		}
		if got := n.Load(); got != 1 {
			t.Fatalf("%d opens for %d acquires, want 1", got, k)
		}
		for i := range ds {
			if ds[i] != ds[0] {
				t.Fatalf("acquire %d got another dataset", i)
			}
		}
		other := shareJob
		other.InFlight = 3
		d3, r3, err := s.acquire(ctx, other)
		if err != nil {
			t.Fatal(err)
		}
		if d3 == ds[0] || n.Load() != 2 {
			t.Errorf("other options: same dataset %v, %d opens, want another dataset and 2", d3 == ds[0], n.Load())
		}
		r3()
		for _, r := range rel {
			r()
		}
		rel[0]() // a release is once
		time.Sleep(time.Minute - time.Second)
		synctest.Wait()
		d, r, err := s.acquire(ctx, shareJob)
		if err != nil {
			t.Fatal(err)
		}
		if d != ds[0] || n.Load() != 2 {
			t.Errorf("before the idle time: same dataset %v, %d opens, want the same dataset and 2", d == ds[0], n.Load())
		}
		r()
		time.Sleep(time.Minute + time.Second)
		synctest.Wait()
		if e := s.entries(); e != 0 {
			t.Fatalf("%d opens left after the idle time, want 0", e)
		}
		if _, err := ds[0].Read(ctx, nil); err == nil {
			t.Error("the dataset still reads after its file was closed")
		}
	})
}

// TestShareFailedOpen: a failed open is not kept, and each acquire tries
// again; an acquire waiting for another's open returns when its context
// ends, and the open it waited for is kept for the others.
func TestShareFailedOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, n := countingShare(time.Minute, nil)
		bad := shareJob
		bad.Dataset = "acquisition/nope"
		for range 2 {
			if _, _, err := s.acquire(context.Background(), bad); err == nil {
				t.Fatal("acquire of a missing dataset succeeded")
			}
		}
		if n.Load() != 2 || s.entries() != 0 {
			t.Errorf("%d opens, %d kept, want 2 and 0", n.Load(), s.entries())
		}

		gate := make(chan struct{})
		s, n = countingShare(time.Minute, gate)
		var d *h5.Dataset
		var release func()
		var err error
		done := make(chan struct{})
		go func() {
			d, release, err = s.acquire(context.Background(), shareJob)
			close(done)
		}()
		synctest.Wait()
		ctx, cancel := context.WithCancel(context.Background())
		waited := make(chan error)
		go func() {
			_, _, err := s.acquire(ctx, shareJob)
			waited <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-waited; !errors.Is(err, context.Canceled) {
			t.Errorf("waiting acquire after cancel: %v, want context.Canceled", err)
		}
		close(gate)
		<-done
		if err != nil {
			t.Fatal(err)
		}
		if n.Load() != 1 || s.entries() != 1 {
			t.Errorf("%d opens, %d kept, want 1 and 1", n.Load(), s.entries())
		}
		if _, err := d.Read(context.Background(), nil); err != nil {
			t.Errorf("the open read: %v", err)
		}
		release()
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if s.entries() != 0 {
			t.Errorf("%d opens kept after the idle time, want 0", s.entries())
		}
	})
}
