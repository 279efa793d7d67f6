package h5

import (
	"context"
	"fmt"
	"slices"

	"github.com/lindigo/lindi/selection"
	"golang.org/x/sync/errgroup"
)

// readPointwise reads a selection with a pointwise item (an N-d mask or
// vindex arrays): the points are grouped by the chunk they fall in on their
// axes, each group is read once as an orthogonal selection (its distinct
// coordinates per axis, with Before and After), and each point's slab is
// copied out of its group's read.
func (d *Dataset) readPointwise(ctx context.Context, pw *selection.Pointwise) (*Array, error) {
	shape := d.d.Shape
	k := pw.Axes
	before, err := pw.Before.Resolve(shape[:pw.Axis])
	if err != nil {
		return nil, err
	}
	after, err := pw.After.Resolve(shape[pw.Axis+k:])
	if err != nil {
		return nil, err
	}
	nb, na := before.Len(), after.Len()
	outShape := append(append(before.Shape(), len(pw.Points)), after.Shape()...)
	n := nb * len(pw.Points) * na
	out := &Array{DType: d.d.DType.Native(), Shape: outShape}
	if err := d.f.checkSize(n, max(out.DType.Size, objectSize)); err != nil {
		return nil, err
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return nil, err
	}
	grid := shape[pw.Axis : pw.Axis+k]
	if c := st.Array.Chunks; len(c) == len(shape) {
		grid = c[pw.Axis : pw.Axis+k]
	}
	groups, order := groupPoints(pw.Points, grid)
	parts := make([]*Array, len(order))
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(maxPointReads)
	for i, key := range order {
		g := groups[key]
		mid := make(selection.Selection, k)
		for j := range g.axes {
			mid[j] = selection.List(g.axes[j]...)
		}
		sel := slices.Concat(pw.Before, mid, pw.After)
		eg.Go(func() error {
			a, err := d.read(ectx, sel)
			parts[i] = a
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	scatterPoints(out, pw.Points, order, groups, parts, nb, na)
	return out, nil
}

// groupPoints groups the points by the chunk they fall in, with each
// group's sorted distinct coordinates per axis.
func groupPoints(pts [][]int, grid []int) (map[string]*pointGroup, []string) {
	groups := map[string]*pointGroup{}
	var order []string
	for k, p := range pts {
		key := fmt.Sprint(chunkOf(p, grid))
		g, ok := groups[key]
		if !ok {
			g = &pointGroup{axes: make([][]int, len(p))}
			groups[key] = g
			order = append(order, key)
		}
		g.idx = append(g.idx, k)
		for j, c := range p {
			g.axes[j] = append(g.axes[j], c)
		}
	}
	for _, g := range groups {
		for j := range g.axes {
			slices.Sort(g.axes[j])
			g.axes[j] = slices.Compact(g.axes[j])
		}
	}
	return groups, order
}

// scatterPoints copies each point's slab (na elements for each of the nb
// positions of the axes before) from its group's read into out.
func scatterPoints(out *Array, pts [][]int, order []string, groups map[string]*pointGroup, parts []*Array, nb, na int) {
	size := out.DType.Size
	objects := len(parts) > 0 && parts[0].Objects != nil
	n := nb * len(pts) * na
	if objects {
		out.Objects = make([]any, n)
	} else {
		out.Data = make([]byte, n*size)
	}
	for i, key := range order {
		g, a := groups[key], parts[i]
		inner := 1
		for _, ax := range g.axes {
			inner *= len(ax)
		}
		for _, k := range g.idx {
			off := 0 // the point's position among the group's inner coordinates
			for j, c := range pts[k] {
				pos, _ := slices.BinarySearch(g.axes[j], c)
				off = off*len(g.axes[j]) + pos
			}
			for b := range nb {
				src := (b*inner + off) * na
				dst := (b*len(pts) + k) * na
				if objects {
					copy(out.Objects[dst:dst+na], a.Objects[src:src+na])
				} else {
					copy(out.Data[dst*size:(dst+na)*size], a.Data[src*size:(src+na)*size])
				}
			}
		}
	}
}

// maxPointReads bounds the chunk reads a point selection has in flight.
const maxPointReads = 16

// pointGroup is the points that fall in one chunk: their indices in the
// result and, per axis, the distinct coordinates they use there.
type pointGroup struct {
	idx  []int
	axes [][]int
}

// chunkOf gives the grid coordinates of the chunk holding point p.
func chunkOf(p, grid []int) []int {
	c := make([]int, len(p))
	for j := range p {
		if grid[j] > 0 {
			c[j] = p[j] / grid[j]
		}
	}
	return c
}
