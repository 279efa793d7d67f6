package h5

import (
	"context"
	"fmt"
	"slices"

	"github.com/lindigo/lindi/selection"
	"golang.org/x/sync/errgroup"
)

// maxPointReads bounds the chunk reads a point selection has in flight.
const maxPointReads = 16

// ReadPoints reads the elements at a list of coordinates, numpy's
// ds[[i0, i1, …], [j0, j1, …]] and zarr's vindex: element k of the result
// is the element at points[k] (one coordinate per dimension, negative
// values counting from the end). The result has shape [len(points)]. Each
// chunk the points touch is read once, with the chunks read in parallel.
func (d *Dataset) ReadPoints(ctx context.Context, points [][]int) (*Array, error) {
	a, err := d.readPoints(ctx, points)
	if err != nil {
		return nil, fmt.Errorf("h5: read %d points of %s: %w", len(points), d.path, err)
	}
	return a, nil
}

// pointGroup is the points that fall in one chunk: their indices in the
// result and, per axis, the distinct coordinates they use there.
type pointGroup struct {
	idx  []int
	axes [][]int
}

func (d *Dataset) readPoints(ctx context.Context, points [][]int) (*Array, error) {
	if d.d.Err != nil {
		return nil, d.d.Err
	}
	shape := d.d.Shape
	pts, err := normalizePoints(points, shape)
	if err != nil {
		return nil, err
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return nil, err
	}
	grid := st.Array.Chunks
	if len(shape) == 0 || len(grid) != len(shape) {
		grid = shape
	}
	groups, order := groupPoints(pts, grid)
	parts := make([]*Array, len(order))
	eg, ectx := errgroup.WithContext(ctx)
	eg.SetLimit(maxPointReads)
	for i, key := range order {
		g := groups[key]
		sel := make(selection.Selection, len(g.axes))
		for j := range g.axes {
			sel[j] = selection.List(g.axes[j]...)
		}
		eg.Go(func() error {
			a, err := d.read(ectx, sel)
			parts[i] = a
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	return gather(d, pts, order, groups, parts)
}

// gather picks each point's element out of the orthogonal read of its chunk.
func gather(d *Dataset, pts [][]int, order []string, groups map[string]*pointGroup, parts []*Array) (*Array, error) {
	out := &Array{DType: d.d.DType.Native(), Shape: []int{len(pts)}}
	size := out.DType.Size
	objects := len(parts) > 0 && parts[0].Objects != nil
	if objects {
		out.Objects = make([]any, len(pts))
	} else {
		out.Data = make([]byte, len(pts)*size)
	}
	for i, key := range order {
		g, a := groups[key], parts[i]
		for _, k := range g.idx {
			off := 0 // the point's position in the C-order result of the chunk's read
			for j, c := range pts[k] {
				pos, _ := slices.BinarySearch(g.axes[j], c)
				off = off*len(g.axes[j]) + pos
			}
			if objects {
				out.Objects[k] = a.Objects[off]
			} else {
				copy(out.Data[k*size:(k+1)*size], a.Data[off*size:])
			}
		}
	}
	return out, nil
}

// normalizePoints checks each point's rank and range and wraps negative
// coordinates.
func normalizePoints(points [][]int, shape []int) ([][]int, error) {
	out := make([][]int, len(points))
	for k, p := range points {
		if len(p) != len(shape) {
			return nil, fmt.Errorf("point %d has %d coordinates for %d dimensions: %w", k, len(p), len(shape), selection.ErrInvalid)
		}
		q := make([]int, len(p))
		for j, c := range p {
			if c < 0 {
				c += shape[j]
			}
			if c < 0 || c >= shape[j] {
				return nil, fmt.Errorf("point %d: index %d out of range for dimension %d of size %d: %w", k, p[j], j, shape[j], selection.ErrInvalid)
			}
			q[j] = c
		}
		out[k] = q
	}
	return out, nil
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
