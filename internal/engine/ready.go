package engine

import (
	"sync"

	"github.com/lindigo/lindi/selection"
)

// tracker reports, through Options.Ready, how many leading output elements
// hold their final values: every element before the Start of the first
// chunk not yet decoded. It follows the chunks in the order the plan yields
// them, which for an ordered plan is the order of their Starts; for other
// plans it reports only the end of the read.
type tracker struct {
	mu      sync.Mutex
	ready   func(int)
	ordered bool
	starts  []int  // Start of each chunk of the current batch, by job seq
	done    []bool // decoded, by job seq
	next    int    // first chunk of the batch not decoded
	after   int    // an element count no later chunk's Start is below
	last    int    // last count reported
}

// newTracker returns nil when fn is nil.
func newTracker(fn func(int), p *selection.Plan) *tracker {
	if fn == nil {
		return nil
	}
	return &tracker{ready: fn, ordered: p.Ordered()}
}

// batch starts tracking the jobs of a batch; after is the Start of the
// first chunk of the next batch, or the output's length after the last.
func (t *tracker) batch(jobs []job, after int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.starts = t.starts[:0]
	t.done = t.done[:0]
	for _, j := range jobs {
		t.starts = append(t.starts, j.plan.Start())
		t.done = append(t.done, false)
	}
	t.next, t.after = 0, after
}

// decoded marks job seq of the current batch decoded and reports the new
// count when it grew.
func (t *tracker) decoded(seq int) {
	if t == nil || !t.ordered {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done[seq] = true
	for t.next < len(t.done) && t.done[t.next] {
		t.next++
	}
	n := t.after
	if t.next < len(t.starts) {
		n = t.starts[t.next]
	}
	if n > t.last {
		t.last = n
		t.ready(n)
	}
}

// end reports the whole output once the read succeeded.
func (t *tracker) end(total int) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if total > t.last {
		t.last = total
		t.ready(total)
	}
}
