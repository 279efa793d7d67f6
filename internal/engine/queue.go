package engine

import (
	"container/heap"
	"context"
	"runtime"
	"sync"
)

// jobQueue hands jobs from the producers to the decoders, the lowest seq
// first of those waiting. Fetched blocks complete and deliver side by side;
// a first-in, first-out handoff interleaved them, so that the output's first
// chunks were among the last decoded and a writer behind Options.Ready
// waited for the end of the read (a local 320-chunk image: 20 MB written
// after the last chunk, none while decoding).
//
// A job waits in the queue; its producer waits with it only while more than
// free jobs are queued, as a channel of that capacity would hold it.
type jobQueue struct {
	mu     sync.Mutex
	waits  pendingHeap
	free   int
	closed bool
	wake   chan struct{} // a token per job queued, for decoders waiting
}

// pending is a queued job and the release of its producer.
type pending struct {
	j        job
	released chan struct{} // closed when the producer may go on
	out      bool          // released is closed
}

func newJobQueue(free int) *jobQueue {
	return &jobQueue{free: free, wake: make(chan struct{}, max(free, 1))}
}

// push queues j and returns once the job is taken or there is room for it,
// or ctx ends.
func (q *jobQueue) push(ctx context.Context, j job) error {
	p := &pending{j: j, released: make(chan struct{})}
	q.mu.Lock()
	heap.Push(&q.waits, p)
	if q.waits.Len() <= q.free {
		p.release()
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default: // as many tokens as decoders are waiting for
	}
	select {
	case <-p.released:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pop returns the queued job of lowest seq, waiting for one; ok is false
// once the queue is closed and empty.
func (q *jobQueue) pop(ctx context.Context) (j job, ok bool, err error) {
	for {
		q.mu.Lock()
		if q.waits.Len() > 0 {
			p := heap.Pop(&q.waits).(*pending)
			woke := p.release()
			if q.waits.Len() <= q.free {
				for _, w := range q.waits {
					woke = w.release() || woke
				}
			}
			q.mu.Unlock()
			if woke {
				// Let the producer queue its next job before this
				// decoder is busy with the one it took: decoders do not
				// yield, and a block's next chunk would otherwise wait
				// behind later ones.
				runtime.Gosched()
			}
			return p.j, true, nil
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return job{}, false, nil
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
			return job{}, false, ctx.Err()
		}
	}
}

// close ends the queue once the producers are done: decoders take what is
// left, then stop.
func (q *jobQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	close(q.wake)
}

// release lets p's producer go on and reports whether it was waiting.
func (p *pending) release() bool {
	if p.out {
		return false
	}
	p.out = true
	close(p.released)
	return true
}

// pendingHeap is a min-heap of pending jobs by seq (container/heap).
type pendingHeap []*pending

func (h pendingHeap) Len() int           { return len(h) }
func (h pendingHeap) Less(a, b int) bool { return h[a].j.seq < h[b].j.seq }
func (h pendingHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *pendingHeap) Push(x any)        { *h = append(*h, x.(*pending)) }
func (h *pendingHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return p
}
