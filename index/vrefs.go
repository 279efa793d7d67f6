package index

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/selection"
)

// vmap is a mapping of a virtual dataset that refs can express: its
// source's chunks are the virtual dataset's, along aligned axes.
type vmap struct {
	loc      *hdf5.Locator
	url      string
	vs, ss   []vspan // the selections, one span per axis
	sourceOf []int   // per virtual axis, the source axis it is, -1 for none
	fill     []byte  // the source's unwritten elements
	filters  []any   // the source's pipeline, as numcodecs configurations
}

// vspan is a selection of n consecutive coordinates from lo on.
type vspan struct{ lo, n int }

// virtualRefs refs a virtual dataset's elements as its sources' chunks
// where every mapping allows it: selections of one block per axis, of one
// shape but for axes of one element, sources chunked alike (the virtual
// chunk along an axis is the source chunk along the axis it maps to, one
// element along the others), with one filter pipeline, each block starting
// on a chunk boundary and ending on one or at the dataset's edge, no
// chunk mapped twice, and unwritten source chunks holding the virtual
// dataset's fill value, and no more chunks than the chunk threshold. ok is
// false otherwise, with no refs made: the caller inlines or links the
// dataset. A missing source leaves its chunks
// unwritten (fill), as HDF5 reads it.
func (d *dsIndex) virtualRefs(ctx context.Context) (ok bool, err error) {
	maps, err := d.ds.Mappings(ctx)
	if err != nil || len(d.shape) == 0 {
		return false, nil
	}
	var grid []int
	var filters []any
	d.refs = map[string]any{}
	covered := map[string]bool{}
	for _, m := range maps {
		vm, err := d.vmapping(ctx, m)
		if err != nil || vm == nil {
			d.refs = nil
			return false, err
		}
		if vm.loc == nil {
			continue // a missing source
		}
		g, ok := vm.grid(d.shape)
		if ok && grid != nil {
			a, _ := json.Marshal(vm.filters)
			b, _ := json.Marshal(filters)
			ok = slices.Equal(g, grid) && bytes.Equal(a, b)
		}
		if t := d.b.o.threshold; ok && t > 0 && chunkCount(d.shape, g) > t {
			ok = false // as many refs as a chunked dataset that is linked
		}
		if ok {
			grid, filters = g, vm.filters
			ok, err = d.refMapping(ctx, vm, grid, covered)
		}
		if !ok || err != nil {
			d.refs = nil
			return false, err
		}
	}
	if grid == nil {
		d.refs = nil
		return false, nil
	}
	d.commit(d.zarray(d.shape, grid, d.descr, d.fill(ctx), filters))
	return true, nil
}

// refMapping refs the chunks of one mapping; ok is false where a block
// starts or ends off a chunk boundary, a chunk is mapped twice, skips
// filters, is held in the object header, or is unwritten with another
// fill value than the virtual dataset's.
func (d *dsIndex) refMapping(ctx context.Context, vm *vmap, grid []int, covered map[string]bool) (bool, error) {
	chunks := vm.loc.Grid()
	counts := make([]int, len(grid))
	for i, sp := range vm.vs {
		if sp.lo%grid[i] != 0 || sp.n%grid[i] != 0 && sp.lo+sp.n != d.shape[i] {
			return false, nil
		}
		if j := vm.sourceOf[i]; j >= 0 && vm.ss[j].lo%chunks[j] != 0 {
			return false, nil
		}
		counts[i] = (sp.n + grid[i] - 1) / grid[i]
	}
	vfill := make([]byte, d.ds.Datatype().Size)
	if fv := d.ds.Fill(); fv.Defined {
		vfill = fv.Value
	}
	full := len(vm.loc.Pipeline().IDs())
	at, key, src := make([]int, len(grid)), make([]int, len(grid)), make([]int, len(vm.ss))
	for {
		for j, sp := range vm.ss {
			src[j] = sp.lo / chunks[j]
		}
		for i, j := range vm.sourceOf {
			if key[i] = vm.vs[i].lo/grid[i] + at[i]; j >= 0 {
				src[j] += at[i]
			}
		}
		k := chunkKey(key)
		ch, err := vm.loc.Locate(ctx, src)
		switch {
		case err != nil:
			return false, err
		case covered[k], ch.Missing && !bytes.Equal(vm.fill, vfill), !ch.Missing && (ch.Data != nil || len(ch.Pipeline.IDs()) != full):
			return false, nil
		case !ch.Missing:
			d.refs[k] = []any{vm.url, ch.Off, ch.Len}
		}
		covered[k] = true
		if !selection.NextCoords(at, counts) {
			return true, nil
		}
	}
}

// vmapping opens a mapping's source; nil when refs cannot express it, a
// vmap with no loc for a missing source.
func (d *dsIndex) vmapping(ctx context.Context, m hdf5.Mapping) (*vmap, error) {
	if strings.Contains(m.File+m.Dataset, "%") {
		return nil, nil
	}
	f, url := d.b.f, d.b.o.url
	if m.File != "." {
		hf, name, err := d.b.files.open(ctx, d.b.f.Name(), m.File)
		switch {
		case err != nil:
			return nil, ctx.Err() // not expressible: the reader says why
		case hf == nil:
			return &vmap{}, nil // missing: fill
		}
		if url, err = refName(name, "", false); err != nil {
			return nil, nil
		}
		f = hf
	}
	sd, err := f.Dataset(ctx, m.Dataset)
	if errors.Is(err, hdf5.ErrNotFound) {
		return &vmap{}, nil
	}
	if err != nil {
		return nil, ctx.Err()
	}
	want, _ := d.ds.Datatype().NumpyDescr()
	if got, _ := sd.Datatype().NumpyDescr(); got != want || sd.Layout() != hdf5.LayoutChunked {
		return nil, nil
	}
	vm := &vmap{url: url, fill: make([]byte, sd.Datatype().Size)}
	if fv := sd.Fill(); fv.Defined {
		vm.fill = fv.Value
	}
	var ok bool
	if vm.vs, ok = spans(m.Virtual, d.ds.Shape()); !ok {
		return nil, nil
	}
	if vm.ss, ok = spans(m.Source, sd.Shape()); !ok {
		return nil, nil
	}
	if vm.filters, ok = numcodecs(sd); !ok {
		return nil, nil
	}
	if vm.loc, err = sd.Locator(ctx); err != nil {
		return nil, nil
	}
	return vm, nil
}

// spans is a selection of one block per axis, ok false for another.
func spans(s hdf5.Selection, dims []uint64) ([]vspan, bool) {
	out := make([]vspan, len(dims))
	switch {
	case s.Kind == hdf5.RegionAll:
		for i, n := range dims {
			out[i] = vspan{0, int(n)}
		}
		return out, true
	case s.Kind != hdf5.RegionBlocks:
		return nil, false
	case s.Regular != nil && len(s.Regular.Start) == len(dims):
		h := s.Regular
		for i := range dims {
			if h.Count[i] != 1 || h.Block[i] > dims[i] || h.Start[i] > dims[i]-h.Block[i] {
				return nil, false
			}
			out[i] = vspan{int(h.Start[i]), int(h.Block[i])}
		}
		return out, true
	case s.Regular == nil && len(s.Blocks) == 1 && len(s.Blocks[0][0]) == len(dims):
		b := s.Blocks[0]
		for i := range dims {
			if b[0][i] > b[1][i] || b[1][i] >= dims[i] {
				return nil, false
			}
			out[i] = vspan{int(b[0][i]), int(b[1][i]-b[0][i]) + 1}
		}
		return out, true
	}
	return nil, false
}

// grid pairs the long axes (more than one element) of the two selections
// in order and returns the virtual chunk shape; ok is false where the
// shapes differ or a source axis of one element has chunks longer than
// that.
func (vm *vmap) grid(vdims []int) (grid []int, ok bool) {
	long := func(s []vspan) (out []int) {
		for i, sp := range s {
			if sp.n != 1 {
				out = append(out, i)
			}
		}
		return out
	}
	vi, sj := long(vm.vs), long(vm.ss)
	if len(vi) != len(sj) {
		return nil, false
	}
	chunks := vm.loc.Grid()
	vm.sourceOf, grid = make([]int, len(vdims)), make([]int, len(vdims))
	for i := range grid {
		vm.sourceOf[i], grid[i] = -1, 1
	}
	for k := range vi {
		if vm.vs[vi[k]].n != vm.ss[sj[k]].n {
			return nil, false
		}
		vm.sourceOf[vi[k]], grid[vi[k]] = sj[k], chunks[sj[k]]
	}
	for j, sp := range vm.ss {
		if sp.n == 1 && chunks[j] != 1 {
			return nil, false
		}
	}
	return grid, true
}
