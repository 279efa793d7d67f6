package h5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/selection"
)

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

// readPoints reads the points as the one Vindex item over every axis they
// make, so that they share the pointwise read of Read.
func (d *Dataset) readPoints(ctx context.Context, points [][]int) (*Array, error) {
	if d.d.Err != nil {
		return nil, d.d.Err
	}
	n := len(d.d.Shape)
	arrays := make([][]int, n)
	for k, p := range points {
		if len(p) != n {
			return nil, fmt.Errorf("point %d has %d coordinates for %d dimensions: %w", k, len(p), n, selection.ErrInvalid)
		}
		for j, c := range p {
			arrays[j] = append(arrays[j], c)
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("a scalar dataset has no points to pick: %w", selection.ErrInvalid)
	}
	for j := range arrays {
		if arrays[j] == nil {
			arrays[j] = []int{}
		}
	}
	return d.read(ctx, selection.Selection{selection.Vindex(arrays...)})
}
