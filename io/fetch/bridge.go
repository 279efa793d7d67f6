package fetch

import (
	"container/heap"
	"reflect"
	"slices"

	"github.com/lindigo/lindi/io/source"
)

// bridge joins neighbouring blocks of one source across gaps wider than
// maxGap, when the batch's reads outnumber width: the reads beyond the width
// wait a whole round trip for a slot, and a gap whose bytes one connection
// reads in less than the host's round trip (source.Costs) costs less than
// that wait. At 20 ms, twenty 43 KB chunks 650 KB apart (a slab of one tile
// out of each group of frames) were 20 reads for 16 slots, the last four a
// round trip late; four of them joined to a neighbour make 16.
//
// Gaps are bridged smallest first (bridges spreads them among equal ones),
// each block's bridged gaps together
// costing less than one round trip and the joined block staying within
// the batch's merge size, and only as many as lower the number of rounds of
// reads, ceil(reads/width), to the fewest the bridges allow. Without an
// estimate of both costs from the host nothing is bridged.
func (f *Fetcher) bridge(blocks []*block, sz sizing, width int) []*block {
	n := reads(blocks, sz.part)
	if n <= width {
		return blocks
	}
	joins := f.bridges(blocks, sz.merge)
	rounds := (n + width - 1) / width
	best := (n - len(joins) + width - 1) / width
	if best == rounds {
		return blocks
	}
	// Each join makes one read of two (both within the merge size, each was
	// one read), so these many reach the fewest rounds.
	return joinRuns(blocks, joins[:n-best*width])
}

// gap is the space between blocks[k] and blocks[k+1], which are of one
// source, of size bytes; budget is the bytes one connection of its host
// reads in a round trip.
type gap struct {
	k      int
	size   int64
	cost   int64 // gap bytes of the block its bridge makes, when last costed
	budget float64
}

// bridges returns, in the order they are taken, the gaps that may be
// bridged: cheapest first, the cost of a gap being the gap bytes of the
// block its bridge makes (its own, for a gap between blocks not joined
// yet: smallest gaps first), while that block stays within merge bytes
// and its gap bytes within the budget. Costing the whole block spreads the
// bridges among equal gaps rather than chaining them into one long read.
func (f *Fetcher) bridges(blocks []*block, merge int64) []int {
	// Runs of joined blocks are intervals of indices, known at their ends:
	// last[i] for the run starting at i, head[j] for the one ending at j,
	// bridged[i] the gap bytes of the run starting at i.
	last := make([]int, len(blocks))
	head := make([]int, len(blocks))
	bridged := make([]int64, len(blocks))
	for k := range blocks {
		last[k], head[k] = k, k
	}
	cost := func(g gap) int64 { return bridged[head[g.k]] + bridged[g.k+1] + g.size }
	q := gapQueue(f.gaps(blocks))
	heap.Init(&q)
	var joins []int
	for q.Len() > 0 {
		g := heap.Pop(&q).(gap)
		if c := cost(g); c > g.cost {
			g.cost = c // a neighbour was joined since: queue it again
			heap.Push(&q, g)
			continue
		}
		i, j := head[g.k], last[g.k+1]
		if blocks[j].off+blocks[j].len-blocks[i].off > merge || float64(g.cost) >= g.budget {
			continue
		}
		last[i], head[j], bridged[i] = j, i, g.cost
		joins = append(joins, g.k)
	}
	return joins
}

// gapQueue orders gaps by cost, then by place.
type gapQueue []gap

func (q gapQueue) Len() int { return len(q) }
func (q gapQueue) Less(a, b int) bool {
	return q[a].cost < q[b].cost || q[a].cost == q[b].cost && q[a].k < q[b].k
}
func (q gapQueue) Swap(a, b int) { q[a], q[b] = q[b], q[a] }
func (q *gapQueue) Push(x any)   { *q = append(*q, x.(gap)) }
func (q *gapQueue) Pop() any {
	old := *q
	g := old[len(old)-1]
	*q = old[:len(old)-1]
	return g
}

// gaps lists the gaps wider than maxGap between neighbouring blocks of one
// source whose host showed its costs, with the bytes one of its
// connections reads in one round trip.
func (f *Fetcher) gaps(blocks []*block) []gap {
	var out []gap
	var last source.Source
	var budget float64
	for k := 0; k+1 < len(blocks); k++ {
		a, b := blocks[k], blocks[k+1]
		size := b.off - (a.off + a.len)
		if size <= f.maxGap || !sameSource(a.src, b.src) {
			continue
		}
		if a.src != last {
			last, budget = a.src, 0
			if rtt, rate, ok := source.Costs(a.src); ok {
				budget = rtt.Seconds() * rate
			}
		}
		if float64(size) < budget {
			out = append(out, gap{k: k, size: size, cost: size, budget: budget})
		}
	}
	return out
}

// sameSource reports whether a and b are one source; sources that cannot
// be compared are never the same (plan reads each of their ranges alone).
func sameSource(a, b source.Source) bool {
	return reflect.TypeOf(a).Comparable() && reflect.TypeOf(b).Comparable() && a == b
}

// joinRuns joins blocks[k] and blocks[k+1] for each k of joins.
func joinRuns(blocks []*block, joins []int) []*block {
	join := make([]bool, len(blocks))
	for _, k := range joins {
		join[k] = true
	}
	out := make([]*block, 0, len(blocks)-len(joins))
	for k, b := range blocks {
		if k == 0 || !join[k-1] {
			out = append(out, &block{src: b.src, off: b.off, len: b.len, members: slices.Clip(b.members)})
			continue
		}
		cur := out[len(out)-1]
		for _, m := range b.members {
			m.rel += b.off - cur.off
			cur.members = append(cur.members, m)
		}
		cur.len = b.off + b.len - cur.off
	}
	return out
}
