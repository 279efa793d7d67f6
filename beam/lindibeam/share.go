package lindibeam

import (
	"context"
	"sync"
	"time"

	"github.com/lindigo/lindi/h5"
)

// shared holds the datasets a DatasetStats job opened in this process, so
// that its DoFns running here open the dataset once: the plan opens it (an
// open of a remote HDF5 file is three round trips, and the plan reads the
// chunk index), and a reduce worker of the same job in the same process
// (the in-process runner, or a worker that also ran the plan) takes that
// open instead of making its own. On a cluster a worker elsewhere opens the
// dataset itself, once, as before. An open no DoFn holds is closed after
// shareIdle.
var shared = openShare{m: map[DatasetJob]*sharedOpen{}, idle: shareIdle, open: openJobDataset}

// shareIdle is how long an open no DoFn holds stays open for the next.
const shareIdle = 30 * time.Second

// openShare maps a job (its fields that decide the open: source, dataset
// and options, with the others zeroed) to its open dataset.
type openShare struct {
	mu   sync.Mutex
	m    map[DatasetJob]*sharedOpen
	idle time.Duration // how long an open no one holds stays open
	open func(context.Context, DatasetJob) (*h5.File, *h5.Dataset, error)
}

// sharedOpen is one open dataset and the DoFns holding it.
type sharedOpen struct {
	ready chan struct{} // closed once the open ended; err or file set
	err   error
	file  *h5.File
	d     *h5.Dataset
	refs  int
	idle  *time.Timer // closes the file once no DoFn holds it
}

// openKey is the part of job that decides its open.
func openKey(job DatasetJob) DatasetJob {
	return DatasetJob{Source: job.Source, Dataset: job.Dataset, InFlight: job.InFlight, Concurrency: job.Concurrency}
}

// acquire returns job's open dataset, opening it if no DoFn of this process
// did, and the function that lets it go. A failed open is not kept: the
// next acquire tries again.
func (s *openShare) acquire(ctx context.Context, job DatasetJob) (*h5.Dataset, func(), error) {
	k := openKey(job)
	s.mu.Lock()
	e := s.m[k]
	if e == nil {
		e = &sharedOpen{ready: make(chan struct{})}
		s.m[k] = e
		e.refs++
		s.mu.Unlock()
		e.file, e.d, e.err = s.open(ctx, job)
		if e.err != nil {
			s.mu.Lock()
			delete(s.m, k)
			s.mu.Unlock()
		}
		close(e.ready)
	} else {
		e.refs++
		if e.idle != nil {
			e.idle.Stop()
			e.idle = nil
		}
		s.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			s.release(k, e)
			return nil, nil, ctx.Err()
		}
	}
	if e.err != nil {
		return nil, nil, e.err
	}
	return e.d, sync.OnceFunc(func() { s.release(k, e) }), nil
}

// release lets e go; the last holder of a good open leaves it to be closed
// after s.idle unless another DoFn takes it first.
func (s *openShare) release(k DatasetJob, e *sharedOpen) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.refs--
	if e.refs > 0 || e.file == nil {
		return
	}
	e.idle = time.AfterFunc(s.idle, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if e.refs == 0 && s.m[k] == e {
			delete(s.m, k)
			e.file.Close()
		}
	})
}
