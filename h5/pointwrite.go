package h5

import (
	"context"
	"slices"

	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/selection"
)

// writePoints writes a pointwise selection (a Vindex or MaskND item) of d:
// vals are the values in the selection's C order, stored elements (raw,
// itemSize bytes each) or object items (objs). The points are grouped by
// the chunk they fall in, as reads group them; each group's orthogonal
// block is read, the selected elements changed and the block written back,
// one group at a time (groups may share chunks on the other axes).
func (d *Dataset) writePoints(ctx context.Context, w *datasetWrite, pw *selection.Pointwise, raw []byte, objs []any) error {
	shape := d.d.Shape
	k := pw.Axes
	before, err := pw.Before.Resolve(shape[:pw.Axis])
	if err != nil {
		return err
	}
	after, err := pw.After.Resolve(shape[pw.Axis+k:])
	if err != nil {
		return err
	}
	nb, na, npts := before.Len(), after.Len(), len(pw.Points)
	is := w.a.ItemSize
	grid := shape[pw.Axis : pw.Axis+k]
	if c := w.a.Chunks; len(c) == len(shape) {
		grid = c[pw.Axis : pw.Axis+k]
	}
	groups, order := groupPoints(pw.Points, grid)
	for _, key := range order {
		g := groups[key]
		mid := make(selection.Selection, k)
		inner := 1
		for j := range g.axes {
			mid[j] = selection.List(g.axes[j]...)
			inner *= len(g.axes[j])
		}
		_, stored, err := d.resolve(slices.Concat(pw.Before, mid, pw.After))
		if err != nil {
			return err
		}
		n := stored.Len()
		var block []byte
		var items []any
		if objs != nil {
			items = make([]any, n)
			err = engine.ReadObjects(ctx, w.a, stored, items, d.f.engineOptions())
		} else {
			block = make([]byte, n*is)
			err = engine.Read(ctx, w.a, stored, block, d.f.engineOptions())
		}
		if err != nil {
			return err
		}
		for _, p := range g.idx {
			off := 0 // the point's position among the group's coordinates
			for j, c := range pw.Points[p] {
				pos, _ := slices.BinarySearch(g.axes[j], c)
				off = off*len(g.axes[j]) + pos
			}
			for b := range nb {
				dst, src := (b*inner+off)*na, (b*npts+p)*na
				if objs != nil {
					copy(items[dst:dst+na], objs[src:src+na])
				} else {
					copy(block[dst*is:(dst+na)*is], raw[src*is:(src+na)*is])
				}
			}
		}
		if objs != nil {
			err = engine.WriteObjects(ctx, w.a, stored, items, w.opt)
		} else {
			err = engine.Write(ctx, w.a, stored, block, w.opt)
		}
		if err := d.f.failIf(err); err != nil {
			return err
		}
	}
	return nil
}
