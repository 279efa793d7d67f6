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
	before, err := pw.Before.Resolve(shape[:pw.Axis])
	if err != nil {
		return err
	}
	after, err := pw.After.Resolve(shape[pw.Axis+pw.Axes:])
	if err != nil {
		return err
	}
	v := pointValues{pw: pw, raw: raw, objs: objs, nb: before.Len(), na: after.Len(), is: w.a.ItemSize}
	grid := shape[pw.Axis : pw.Axis+pw.Axes]
	if c := w.a.Chunks; len(c) == len(shape) {
		grid = c[pw.Axis : pw.Axis+pw.Axes]
	}
	groups, order := groupPoints(pw.Points, grid)
	for _, key := range order {
		if err := d.writePointGroup(ctx, w, v, groups[key]); err != nil {
			return err
		}
	}
	return nil
}

// pointValues are the values of a pointwise write: raw (items of is bytes)
// or objs, for each of nb positions before the points' axes, each point,
// and na positions after them.
type pointValues struct {
	pw     *selection.Pointwise
	raw    []byte
	objs   []any
	nb, na int
	is     int
}

// writePointGroup reads the orthogonal block of the points of g, puts
// their values in and writes it back.
func (d *Dataset) writePointGroup(ctx context.Context, w *datasetWrite, v pointValues, g *pointGroup) error {
	mid := make(selection.Selection, v.pw.Axes)
	inner := 1
	for j := range g.axes {
		mid[j] = selection.List(g.axes[j]...)
		inner *= len(g.axes[j])
	}
	_, stored, err := d.resolve(slices.Concat(v.pw.Before, mid, v.pw.After))
	if err != nil {
		return err
	}
	n := stored.Len()
	var block []byte
	var items []any
	if v.objs != nil {
		items = make([]any, n)
		err = engine.ReadObjects(ctx, w.a, stored, items, d.f.engineOptions())
	} else {
		block = make([]byte, n*v.is)
		err = engine.Read(ctx, w.a, stored, block, d.f.engineOptions())
	}
	if err != nil {
		return err
	}
	v.scatter(g, inner, block, items)
	if v.objs != nil {
		err = engine.WriteObjects(ctx, w.a, stored, items, w.opt)
	} else {
		err = engine.Write(ctx, w.a, stored, block, w.opt)
	}
	return d.f.failIf(err)
}

// scatter copies the values of g's points into the block read for them
// (block, or items for objects), whose middle axes hold inner positions.
func (v pointValues) scatter(g *pointGroup, inner int, block []byte, items []any) {
	npts, na, is := len(v.pw.Points), v.na, v.is
	for _, p := range g.idx {
		off := 0 // the point's position among the group's coordinates
		for j, c := range v.pw.Points[p] {
			pos, _ := slices.BinarySearch(g.axes[j], c)
			off = off*len(g.axes[j]) + pos
		}
		for b := range v.nb {
			dst, src := (b*inner+off)*na, (b*npts+p)*na
			if v.objs != nil {
				copy(items[dst:dst+na], v.objs[src:src+na])
			} else {
				copy(block[dst*is:(dst+na)*is], v.raw[src*is:(src+na)*is])
			}
		}
	}
}
