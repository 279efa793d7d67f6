package h5

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/selection"
)

// RegionReference is an HDF5 dataset region reference (h5py's
// RegionReference): a dataset and a selection of its elements. Region
// references appear as attribute values and as the items of reference
// datasets (Array.Objects); DerefRegion resolves one.
type RegionReference struct {
	// Path is the dataset's path.
	Path string
	// All is set when the region is the whole dataset.
	All bool
	// Blocks are the hyperslab blocks of the region, each its first and
	// last coordinates (inclusive).
	Blocks [][2][]int
	// Points are the coordinates of a point selection.
	Points [][]int
}

// maxRegionAxis bounds the indices one axis of a region's selection lists.
const maxRegionAxis = 1 << 24

// Selection gives the region as a selection of its dataset when it is one:
// the whole dataset, or blocks that together form an orthogonal grid (every
// combination of the indices covered on each axis, as h5py's regionref[...]
// with slices and integers makes). Reading it gives h5py's ds[ref] shape.
// Points and other unions of blocks are not orthogonal selections: they fail
// with ErrType (Points and Blocks hold them).
func (r RegionReference) Selection() (selection.Selection, error) {
	switch {
	case r.All:
		return selection.Selection{selection.Ellipsis()}, nil
	case len(r.Points) > 0:
		return nil, fmt.Errorf("%w: region of %s is %d points, not an orthogonal selection", ErrType, r.Path, len(r.Points))
	case len(r.Blocks) == 0:
		return nil, fmt.Errorf("%w: region of %s selects nothing", ErrType, r.Path)
	}
	rank := len(r.Blocks[0][0])
	axes := make([][]int, rank)
	total := 0
	for _, b := range r.Blocks {
		if len(b[0]) != rank || len(b[1]) != rank {
			return nil, fmt.Errorf("%w: region of %s mixes ranks", ErrFormat, r.Path)
		}
		vol := 1
		for j := range rank {
			if b[1][j] < b[0][j] || b[1][j]-b[0][j] >= maxRegionAxis {
				return nil, fmt.Errorf("%w: region of %s has block %v", ErrFormat, r.Path, b)
			}
			for i := b[0][j]; i <= b[1][j]; i++ {
				axes[j] = append(axes[j], i)
			}
			vol *= b[1][j] - b[0][j] + 1
		}
		total += vol
		if total > math.MaxInt32 || slices.ContainsFunc(axes, func(a []int) bool { return len(a) > maxRegionAxis }) {
			return nil, fmt.Errorf("%w: region of %s is too large to express as a selection", ErrType, r.Path)
		}
	}
	product := 1
	sel := make(selection.Selection, rank)
	for j, idx := range axes {
		slices.Sort(idx)
		idx = slices.Compact(idx)
		product *= len(idx)
		sel[j] = axisItem(idx)
	}
	if product != total {
		return nil, fmt.Errorf("%w: region of %s (%d blocks) is not an orthogonal selection", ErrType, r.Path, len(r.Blocks))
	}
	return sel, nil
}

// axisItem expresses sorted, distinct indices as a slice when they are
// evenly spaced, and as a list otherwise.
func axisItem(idx []int) selection.Item {
	if len(idx) == 1 {
		return selection.Slice(idx[0], idx[0]+1, 1)
	}
	step := idx[1] - idx[0]
	for i := 2; i < len(idx); i++ {
		if idx[i]-idx[i-1] != step {
			return selection.List(idx...)
		}
	}
	return selection.Slice(idx[0], idx[len(idx)-1]+1, step)
}

// DerefRegion returns the dataset a region reference points into and the
// region as a selection of it (see RegionReference.Selection).
func (f *File) DerefRegion(ctx context.Context, r RegionReference) (*Dataset, selection.Selection, error) {
	o, err := f.Get(ctx, r.Path)
	if err != nil {
		return nil, nil, err
	}
	d, ok := o.(*Dataset)
	if !ok {
		return nil, nil, fmt.Errorf("%w: region reference to %s", ErrNotDataset, r.Path)
	}
	sel, err := r.Selection()
	if err != nil {
		return d, nil, err
	}
	return d, sel, nil
}

// regionReference converts a driver's region reference.
func regionReference(r driver.RegionRef) RegionReference {
	out := RegionReference{Path: r.Path, All: r.All}
	for _, b := range r.Blocks {
		out.Blocks = append(out.Blocks, [2][]int{ints(b[0]), ints(b[1])})
	}
	for _, p := range r.Points {
		out.Points = append(out.Points, ints(p))
	}
	return out
}

// ints converts coordinates, which a dataset's dimensions bound (they fit
// an int once the dataset opened).
func ints(u []uint64) []int {
	out := make([]int, len(u))
	for i, x := range u {
		out[i] = int(min(x, math.MaxInt32*1024))
	}
	return out
}
