package fetch

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/lindigo/lindi/io/source"
)

// block is one read: a run of the source covering one or more ranges.
type block struct {
	src      source.Source
	off, len int64
	members  []member
}

// member is a range inside a block.
type member struct {
	i      int   // index in the caller's batch
	rel    int64 // offset inside the block
	len    int64
	shared bool // overlaps another member: deliver a copy
}

// sizing is the split of one batch: reads joining ranges stay within
// merge bytes; reads of one range larger than part are split in parts.
type sizing struct{ merge, part int64 }

// sizeFor spreads a batch of total bytes over width reads at once: reads of
// about total/width bytes, within [minPart, partSize], so that a batch
// of a few MiB still keeps many connections busy, each delivering its
// ranges as soon as it ends.
func (f *Fetcher) sizeFor(total int64, width int) sizing {
	part := min(max(total/int64(width)+1, f.minPart), f.partSize)
	return sizing{merge: min(f.maxMerged, part), part: part}
}

// layout plans a batch of total bytes and sizes its reads so that, where
// the part size allows, it takes no more reads than the fetcher keeps in
// flight: splitting every range at total/concurrency bytes rounds up per
// range, and ten 3 MB ranges became 70 reads for 64 slots, so that the last
// six waited a round trip for a slot.
//
// The width is the fetcher's concurrency, or less where the sources' hosts
// let fewer requests run at once (source.Concurrency): a batch planned for
// 64 reads against a host that takes 16 made 60 requests where 22 would
// do, and on a server that takes a connection per request the extra
// connections overflowed its listen backlog (bench/backlog.py: 1.1 s
// against 0.15 s).
//
// Ranges are joined across gaps of up to maxGap bytes. When the batch still
// takes more reads than the width, so that some wait a round trip for a
// slot, blocks are also joined across wider gaps where the host showed that
// reading the gap costs less than that round trip (see bridge).
func (f *Fetcher) layout(ranges []Range, total int64) (sizing, []*block) {
	width := f.width(ranges)
	sz := f.sizeFor(total, width)
	blocks := f.plan(ranges, sz)
	for sz.part < f.partSize && reads(blocks, sz.part) > width {
		sz.part = min(sz.part+sz.part/4+1, f.partSize)
		sz.merge = min(f.maxMerged, sz.part)
		blocks = f.plan(ranges, sz)
	}
	return sz, f.bridge(blocks, sz, width)
}

// width is how many reads of ranges may run at once: the fetcher's
// concurrency, bounded by the limit of the first range's host when it has
// one (a batch's ranges are of one file, or of one store's chunks on one
// host).
func (f *Fetcher) width(ranges []Range) int {
	if len(ranges) > 0 {
		if c := source.Concurrency(ranges[0].Src); c > 0 {
			return min(c, f.concurrency)
		}
	}
	return f.concurrency
}

// reads counts the reads of blocks split in parts of at most part bytes.
func reads(blocks []*block, part int64) int {
	n := 0
	for _, b := range blocks {
		n += int((b.len + part - 1) / part)
	}
	return n
}

// plan groups the non-empty ranges by source, sorts each group by offset and
// coalesces neighbours into blocks.
func (f *Fetcher) plan(ranges []Range, sz sizing) []*block {
	groups := map[source.Source][]int{}
	var order []source.Source
	var alone []int // sources that cannot be map keys
	for i, r := range ranges {
		if r.Len == 0 {
			continue
		}
		if !reflect.TypeOf(r.Src).Comparable() {
			alone = append(alone, i)
			continue
		}
		if _, ok := groups[r.Src]; !ok {
			order = append(order, r.Src)
		}
		groups[r.Src] = append(groups[r.Src], i)
	}
	var blocks []*block
	for _, src := range order {
		blocks = append(blocks, f.coalesce(ranges, groups[src], sz.merge)...)
	}
	for _, i := range alone {
		blocks = append(blocks, f.coalesce(ranges, []int{i}, sz.merge)...)
	}
	return blocks
}

// coalesce joins the ranges idx (all of one source) into blocks of at most
// merge bytes (or one range).
func (f *Fetcher) coalesce(ranges []Range, idx []int, merge int64) []*block {
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(ranges[a].Off, ranges[b].Off); c != 0 {
			return c
		}
		return cmp.Compare(ranges[b].Len, ranges[a].Len)
	})
	var blocks []*block
	var cur *block
	for _, i := range idx {
		r := ranges[i]
		end := r.Off + r.Len
		if cur != nil && r.Off <= cur.off+cur.len+f.maxGap && max(end, cur.off+cur.len)-cur.off <= merge {
			cur.len = max(end, cur.off+cur.len) - cur.off
		} else {
			cur = &block{src: r.Src, off: r.Off, len: r.Len}
			blocks = append(blocks, cur)
		}
		cur.members = append(cur.members, member{i: i, rel: r.Off - cur.off, len: r.Len})
	}
	for _, b := range blocks {
		markShared(b.members)
	}
	return blocks
}

// markShared flags members overlapping another, given members sorted by
// offset: one overlaps an earlier member if it starts before the furthest
// end so far, and a later one if the next starts before its own end.
func markShared(ms []member) {
	var far int64
	for k := range ms {
		m := &ms[k]
		end := m.rel + m.len
		if k > 0 && m.rel < far {
			m.shared = true
		}
		if k+1 < len(ms) && ms[k+1].rel < end {
			m.shared = true
		}
		far = max(far, end)
	}
}

// partSpan returns the size of the parts a block of n bytes is split into:
// nearly equal, at most partSize.
func partSpan(n, partSize int64) int64 {
	k := (n + partSize - 1) / partSize
	return (n + k - 1) / k
}
