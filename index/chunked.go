package index

import (
	"context"
	"fmt"
	"slices"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/selection"
)

// maxInline bounds the bytes of a dataset read to be inlined.
const maxInline = 256 << 20

// chunked indexes a numeric dataset by reference to its bytes in the HDF5
// file: its chunks, its contiguous block (split as lindi splits it), or its
// compact bytes inline.
func (d *dsIndex) chunked(ctx context.Context) error {
	filters, ok := numcodecs(d.ds)
	if !ok {
		return d.external(ctx, true)
	}
	loc, err := d.ds.Locator(ctx)
	if err != nil {
		return d.external(ctx, true) // a filter the reader cannot decode either: let the HDF5 path report it
	}
	fill := d.fill(ctx)
	switch d.ds.Layout() {
	case hdf5.LayoutChunked:
		grid := slices.Clone(loc.Grid())
		if t := d.b.o.threshold; t > 0 && chunkCount(d.shape, grid) > t {
			return d.external(ctx, true)
		}
		ok, err := d.chunkRefs(ctx, loc, grid)
		if err != nil || !ok {
			if err != nil {
				return err
			}
			return d.external(ctx, true)
		}
		d.commit(d.zarray(d.shape, grid, d.descr, fill, filters))
		return nil
	case hdf5.LayoutCompact:
		shape, chunks := d.whole()
		if d.n > 0 {
			raw, err := d.readAll(ctx)
			if err != nil {
				return err
			}
			d.refs = map[string]any{d.zeroKey(): inlineRef(raw)}
		}
		d.commit(d.zarray(shape, chunks, d.descr, fill, nil))
		return nil
	}
	return d.contiguous(ctx, loc, fill)
}

// chunkRefs refs every allocated chunk; ok is false when a chunk skipped
// some of the filters, which a Zarr array cannot say.
func (d *dsIndex) chunkRefs(ctx context.Context, loc *hdf5.Locator, grid []int) (bool, error) {
	full := len(loc.Pipeline().IDs())
	d.refs = map[string]any{}
	if d.n == 0 {
		return true, nil
	}
	counts := make([]int, len(grid))
	for i := range grid {
		counts[i] = (d.shape[i] + grid[i] - 1) / grid[i]
	}
	coords := make([]int, len(grid))
	for {
		ch, err := loc.Locate(ctx, coords)
		if err != nil {
			return false, err
		}
		if !ch.Missing {
			if ch.Data != nil || len(ch.Pipeline.IDs()) != full {
				return false, nil
			}
			d.refs[chunkKey(coords)] = []any{d.b.o.url, ch.Off, ch.Len}
		}
		if !selection.NextCoords(coords, counts) {
			return true, nil
		}
	}
}

// contiguous refs a contiguous dataset: one chunk, or chunks of about
// DefaultSplitBytes of whole rows when it is large, unfiltered and numeric.
func (d *dsIndex) contiguous(ctx context.Context, loc *hdf5.Locator, fill any) error {
	total, err := d.ds.NumBytes()
	if err != nil {
		return err
	}
	shape, chunks := d.whole()
	d.refs = map[string]any{}
	if d.n == 0 {
		d.commit(d.zarray(shape, chunks, d.descr, fill, nil))
		return nil
	}
	zeros := make([]int, len(loc.Grid()))
	ch, err := loc.Locate(ctx, zeros)
	if err != nil {
		return err
	}
	size := int64(total)
	if size <= d.b.o.splitBytes || len(d.shape) == 0 {
		if !ch.Missing {
			d.refs[d.zeroKey()] = []any{d.b.o.url, ch.Off, size}
		}
		d.commit(d.zarray(shape, chunks, d.descr, fill, nil))
		return nil
	}
	item := int64(d.ds.Datatype().Size)
	row := item
	for _, x := range d.shape[1:] {
		row *= int64(x)
	}
	nn := max(d.b.o.splitBytes/max(row, 1), 1)
	chunks = append([]int{int(nn)}, d.shape[1:]...)
	if !ch.Missing {
		rest := make([]int, len(d.shape)-1)
		for i := int64(0); i*nn < int64(d.shape[0]); i++ {
			off, n := i*nn*row, nn*row
			n = min(n, size-off)
			d.refs[chunkKey(append([]int{int(i)}, rest...))] = []any{d.b.o.url, ch.Off + off, n}
		}
	}
	d.commit(d.zarray(shape, chunks, d.descr, fill, nil))
	return nil
}

func chunkCount(shape, grid []int) int {
	n := 1
	for i := range grid {
		n *= (shape[i] + grid[i] - 1) / grid[i]
	}
	return n
}

func chunkKey(coords []int) string {
	b := make([]byte, 0, 4*len(coords))
	for i, c := range coords {
		if i > 0 {
			b = append(b, '.')
		}
		b = fmt.Appendf(b, "%d", c)
	}
	return string(b)
}

// readAll reads the n elements of the dataset as stored (C order, the file's
// byte order; heap IDs for variable-length types), through the read engine.
func (d *dsIndex) readAll(ctx context.Context) ([]byte, error) {
	ds, n := d.ds, d.n
	item := int(ds.Datatype().Size)
	if n > maxInline/max(item, 1) {
		return nil, fmt.Errorf("%d elements are too many to inline", n)
	}
	if l := ds.Layout(); l == hdf5.LayoutCompact || l == hdf5.LayoutContiguous {
		return ds.ReadRaw(ctx)
	}
	shape := make([]int, 0, len(ds.Shape()))
	for _, x := range ds.Shape() {
		shape = append(shape, int(x))
	}
	var fill []byte
	if fv := ds.Fill(); fv.Defined && len(fv.Value) == item {
		fill = fv.Value
	}
	arr, err := engine.HDF5(ctx, ds, shape, fill, ds.Path())
	if ds.Layout() == hdf5.LayoutVirtual {
		arr, err = engine.Virtual(ctx, ds, shape, fill, ds.Path(), engine.HDF5Sources(ds, d.b.f.Name(), d.b.files.open))
	}
	if err != nil {
		return nil, err
	}
	r, err := selection.Selection{}.Resolve(shape)
	if err != nil {
		return nil, err
	}
	out := make([]byte, n*item)
	return out, engine.Read(ctx, arr, r, out, engine.Options{})
}
