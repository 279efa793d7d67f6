package layout

import (
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// grid is the chunk grid of a dataset: how many chunks fit its current
// and maximum extent along each dimension, and the linear chunk numbering
// the array-based indexes use.
type grid struct {
	dims       []uint64 // current dataset dimensions
	chunk      []uint64 // chunk dimensions in elements
	chunkBytes uint64   // bytes of an unfiltered chunk
	n          []uint64 // chunks covering the current extent, per dimension
	max        []uint64 // chunks covering the maximum extent; Undefined if unlimited
}

func newGrid(l *Layout, dims, maxDims []uint64) (*grid, error) {
	if len(dims) != len(l.Chunk) {
		return nil, fmt.Errorf("%w: dataset has %d dimensions, its chunks %d", ErrCorrupt, len(dims), len(l.Chunk))
	}
	if maxDims == nil {
		maxDims = dims
	}
	if len(maxDims) != len(dims) {
		return nil, fmt.Errorf("hdf5: %d maximum dimensions for %d dimensions", len(maxDims), len(dims))
	}
	cb, _ := l.ChunkBytes() // checked by Parse
	g := &grid{dims: dims, chunk: l.Chunk, chunkBytes: cb, n: make([]uint64, len(dims)), max: make([]uint64, len(dims))}
	for i, c := range l.Chunk {
		g.n[i] = ceilDiv(dims[i], c)
		g.max[i] = fileio.Undefined
		if !fileio.IsUndefined(maxDims[i]) {
			if maxDims[i] < dims[i] {
				return nil, fmt.Errorf("hdf5: maximum dimension %d smaller than dimension %d", maxDims[i], dims[i])
			}
			g.max[i] = ceilDiv(maxDims[i], c)
		}
	}
	return g, nil
}

func ceilDiv(a, b uint64) uint64 { return a/b + min(a%b, 1) }

// empty reports whether the current extent holds no chunk.
func (g *grid) empty() bool {
	for _, n := range g.n {
		if n == 0 {
			return true
		}
	}
	return false
}

// check rejects coordinates outside the current chunk grid.
func (g *grid) check(coords []int) error {
	if len(coords) != len(g.n) {
		return fmt.Errorf("hdf5: %d chunk coordinates for a %d-dimensional dataset", len(coords), len(g.n))
	}
	for i, c := range coords {
		if c < 0 || uint64(c) >= g.n[i] {
			return fmt.Errorf("hdf5: chunk coordinate %d out of range [0, %d) in dimension %d", c, g.n[i], i)
		}
	}
	return nil
}

// partial reports whether the chunk at coords crosses the end of the
// current extent.
func (g *grid) partial(coords []int) bool {
	for i, c := range coords {
		if (uint64(c)+1)*g.chunk[i] > g.dims[i] {
			return true
		}
	}
	return false
}

// inside reports whether coords lie in the current chunk grid.
func (g *grid) inside(coords []uint64) bool {
	for i, c := range coords {
		if c >= g.n[i] {
			return false
		}
	}
	return true
}

// order returns the dimensions in the order of a linear numbering: the
// unlimited dimension unlim first when unlim ≥ 0, the others after it in
// their order (the "swizzled" order of extensible arrays), or the natural
// order when unlim < 0.
func (g *grid) order(unlim int) []int {
	o := make([]int, 0, len(g.n))
	if unlim >= 0 {
		o = append(o, unlim)
	}
	for i := range g.n {
		if i != unlim {
			o = append(o, i)
		}
	}
	return o
}

// linear numbers chunks in row-major order over the maximum grid, with
// dimensions taken in the order order: the numbering of fixed arrays,
// implicit indexes and (swizzled) extensible arrays. The first dimension
// of order may be unlimited: its extent does not enter the numbering.
type linear struct {
	order []int
	down  []uint64 // stride of each dimension of order
	total uint64   // chunks in the numbering; Undefined when unbounded
}

func (g *grid) linear(order []int) (*linear, error) {
	lin := &linear{order: order, down: make([]uint64, len(order))}
	stride := uint64(1)
	for k := len(order) - 1; k >= 0; k-- {
		lin.down[k] = stride
		m := g.max[order[k]]
		if fileio.IsUndefined(m) {
			if k != 0 {
				return nil, fmt.Errorf("%w: unlimited dimension %d in a fixed-size chunk numbering", ErrCorrupt, order[k])
			}
			lin.total = fileio.Undefined
			return lin, nil
		}
		if m != 0 && stride > ^uint64(0)/m {
			return nil, fmt.Errorf("%w: chunk grid %v overflows", ErrCorrupt, g.max)
		}
		stride *= m
	}
	lin.total = stride
	return lin, nil
}

// index returns the linear number of the chunk at coords.
func (lin *linear) index(coords []int) uint64 {
	var idx uint64
	for k, dim := range lin.order {
		idx += uint64(coords[dim]) * lin.down[k]
	}
	return idx
}

// coords converts a linear number back to grid coordinates.
func (lin *linear) coords(idx uint64) []uint64 {
	c := make([]uint64, len(lin.order))
	for k, dim := range lin.order {
		c[dim] = idx / lin.down[k]
		idx %= lin.down[k]
	}
	return c
}

func toInts(c []uint64) []int {
	out := make([]int, len(c))
	for i, v := range c {
		out[i] = int(v)
	}
	return out
}
