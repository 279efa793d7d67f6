package driver

import (
	"context"
	"sync"
)

// Pending is the target of a hard link that a driver reads only when it is
// first needed: a driver that opens a file lazily (HDF5 over HTTP, where
// every object header may cost a round trip) gives its links' Nodes as
// Pendings, and h5 loads them as paths are traversed. It is safe for
// concurrent use: concurrent Loads share one read.
type Pending struct {
	load func(context.Context) (Node, error)

	mu   sync.Mutex
	done bool
	val  Node
}

// NewPending returns a Pending whose Load calls load. load may return a nil
// Node for an object that is neither a group nor a dataset (an HDF5
// committed datatype), which the tree leaves out.
func NewPending(load func(context.Context) (Node, error)) *Pending {
	return &Pending{load: load}
}

// Load returns the node, reading it on the first successful call. A failure
// is not remembered (it may be the caller's cancelled context): the next
// call tries again.
func (p *Pending) Load(ctx context.Context) (Node, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return p.val, nil
	}
	n, err := p.load(ctx)
	if err != nil {
		return nil, err
	}
	p.val, p.done = n, true
	return n, nil
}

func (*Pending) node() {}
