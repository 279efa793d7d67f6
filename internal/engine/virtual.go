package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/lindigo/lindi/hdf5"
)

// VirtualOpener opens the source dataset of a virtual dataset's mapping:
// the dataset at path dataset in the file named file as the mapping stores
// it ("." is the virtual dataset's own file; another name is resolved
// against that file's location by the opener, with its guards). It returns
// nil and no error when the file or the dataset does not exist: HDF5 then
// reads the mapping's elements as the fill value.
type VirtualOpener func(ctx context.Context, file, dataset string) (*Chunked, error)

// Virtual gives the engine's view of a virtual HDF5 dataset
// (hdf5.LayoutVirtual): an array cut into chunks of at most
// hdf5.VirtualChunkBytes, whose bytes are assembled as each is decoded:
// the fill value, then mapping after mapping (a later one overwriting an
// earlier), the elements of the mapping's source selection, read through
// the engine from the dataset open gives. dims, fill and name are as for
// HDF5. Mappings whose selections are "all" or hyperslabs (regular, or
// blocks that tile a product of ranges, as a strided slice's do) are
// read, the k-th source element to the k-th virtual one whatever the two
// shapes; a mapping with printf-style source names, an unlimited count,
// points or other unions of blocks fails with hdf5.ErrUnsupported naming
// the dataset, as does a source of another element size. Opening the
// sources waits for the first read.
func Virtual(ctx context.Context, hd *hdf5.Dataset, dims []int, fill []byte, name string, open VirtualOpener) (*Chunked, error) {
	maps, err := hd.Mappings(ctx)
	if err != nil {
		return nil, err
	}
	is := int(hd.Datatype().Size)
	l := &virtualLocator{name: name, shape: dims, grid: virtualGrid(dims, is), item: is, fill: fill, open: open}
	for i, m := range maps {
		vm, err := newVirtualMapping(m, dims)
		if err != nil {
			return nil, fmt.Errorf("engine: virtual dataset %s: mapping %d (%s in %s): %w", name, i, m.Dataset, m.File, err)
		}
		l.maps = append(l.maps, vm)
	}
	return &Chunked{Shape: dims, Chunks: l.grid, ItemSize: is, Fill: fill, Name: name, Locator: l}, nil
}

// virtualGrid is the chunk shape a virtual dataset is assembled in: whole
// trailing dimensions while they fit hdf5.VirtualChunkBytes, at least one
// element along each dimension.
func virtualGrid(shape []int, itemSize int) []int {
	grid := make([]int, len(shape))
	budget := max(hdf5.VirtualChunkBytes/max(itemSize, 1), 1)
	for i := len(shape) - 1; i >= 0; i-- {
		grid[i] = max(min(shape[i], budget), 1)
		budget = max(budget/grid[i], 1)
	}
	return grid
}

// virtualMapping is a mapping as the engine reads it: its virtual
// selection as axes, its source opened on first use.
type virtualMapping struct {
	file, dataset string
	sel           hdf5.Selection // the source selection
	virt          []axis
	n             int // elements either selection holds

	mu  sync.Mutex
	src *virtualSource // once opened
}

// virtualSource is a mapping's opened source: nil arr for a missing one.
type virtualSource struct {
	arr  *Chunked
	axes []axis
	// align maps each source axis to the virtual axis of the same length
	// (-1 for an axis of one element) when the two selections have one
	// shape but for such axes; nil otherwise.
	align []int
}

func newVirtualMapping(m hdf5.Mapping, dims []int) (*virtualMapping, error) {
	file, err := literalName(m.File)
	if err == nil {
		_, err = literalName(m.Dataset)
	}
	if err != nil {
		return nil, err
	}
	virt, err := selectionAxes(m.Virtual, dims)
	if err != nil {
		return nil, fmt.Errorf("virtual selection: %w", err)
	}
	dataset, _ := literalName(m.Dataset)
	n, ok := numElements(virt)
	if !ok {
		return nil, fmt.Errorf("%w: a virtual selection of too many elements", hdf5.ErrFormat)
	}
	return &virtualMapping{file: file, dataset: dataset, sel: m.Source, virt: virt, n: n}, nil
}

// literalName undoes the escape of a source name without printf-style
// patterns ("%%" is "%"); one with a pattern ("%b", the block number of an
// unlimited mapping) is unsupported.
func literalName(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	if strings.Contains(strings.ReplaceAll(s, "%%", ""), "%") {
		return "", fmt.Errorf("%w: a printf-style source name %q", hdf5.ErrUnsupported, s)
	}
	return strings.ReplaceAll(s, "%%", "%"), nil
}

// source opens the mapping's source, once (a failure is not remembered).
func (m *virtualMapping) source(ctx context.Context, l *virtualLocator) (*virtualSource, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.src != nil {
		return m.src, nil
	}
	arr, err := l.array(ctx, m.file, m.dataset)
	if err != nil {
		return nil, err
	}
	src := &virtualSource{arr: arr}
	if arr != nil {
		if arr.ItemSize != l.item || arr.Objects {
			return nil, fmt.Errorf("%w: a source of %d-byte elements for %d-byte elements", hdf5.ErrUnsupported, arr.ItemSize, l.item)
		}
		if src.axes, err = selectionAxes(m.sel, arr.Shape); err != nil {
			return nil, fmt.Errorf("source selection: %w", err)
		}
		if n, ok := numElements(src.axes); n != m.n || !ok {
			return nil, fmt.Errorf("%w: source selection of %d elements for a virtual selection of %d", hdf5.ErrFormat, n, m.n)
		}
		src.align = alignAxes(m.virt, src.axes)
	}
	m.src = src
	return src, nil
}

// FileOpener opens the HDF5 file a virtual dataset's mapping names: file,
// as the mapping stores it, resolved against from, the path or URL of the
// file holding the virtual dataset. It returns the file and its resolved
// name, or a nil file and no error when no such file exists.
type FileOpener func(ctx context.Context, from, file string) (*hdf5.File, string, error)

// maxVirtualDepth bounds a chain of virtual datasets each a source of the
// next (a dataset mapped from itself would never end).
const maxVirtualDepth = 8

// HDF5Sources returns the VirtualOpener of the virtual dataset vd of the
// file named name: a mapping's source is a dataset of vd's file (".") or
// of the file openFile opens, read through HDF5 (or Virtual, with its own
// sources, for a virtual one), whose elements must be of vd's type; a
// file or dataset that does not exist is nil (fill).
func HDF5Sources(vd *hdf5.Dataset, name string, openFile FileOpener) VirtualOpener {
	return (&hdf5Sources{vd: vd, name: name, openFile: openFile}).open
}

type hdf5Sources struct {
	vd       *hdf5.Dataset
	name     string
	openFile FileOpener
	depth    int
}

func (s *hdf5Sources) open(ctx context.Context, file, dataset string) (*Chunked, error) {
	if s.depth >= maxVirtualDepth {
		return nil, fmt.Errorf("%w: more than %d virtual datasets mapped from one another", hdf5.ErrUnsupported, maxVirtualDepth)
	}
	hf, name := s.vd.File(), s.name
	if file != "." {
		var err error
		if hf, name, err = s.openFile(ctx, s.name, file); err != nil || hf == nil {
			return nil, err
		}
	}
	hd, err := hf.Dataset(ctx, dataset)
	if errors.Is(err, hdf5.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	want, _ := s.vd.Datatype().NumpyDescr()
	if got, _ := hd.Datatype().NumpyDescr(); got != want || hd.Datatype().Class == hdf5.ClassVlen || hd.Datatype().Class == hdf5.ClassReference {
		return nil, fmt.Errorf("%w: source %s of type %s for elements of type %s", hdf5.ErrUnsupported, hd.Path(), got, want)
	}
	dims := []int{1}
	if hd.Space().Kind != hdf5.SpaceScalar {
		dims = make([]int, len(hd.Shape()))
		for i, n := range hd.Shape() {
			if n > math.MaxInt32*1024 {
				return nil, fmt.Errorf("%w: source %s has a dimension of %d elements", hdf5.ErrUnsupported, hd.Path(), n)
			}
			dims[i] = int(n)
		}
	}
	var fill []byte
	if fv := hd.Fill(); fv.Defined && len(fv.Value) == int(hd.Datatype().Size) {
		fill = fv.Value
	}
	if hd.Layout() == hdf5.LayoutVirtual {
		next := &hdf5Sources{vd: hd, name: name, openFile: s.openFile, depth: s.depth + 1}
		return Virtual(ctx, hd, dims, fill, hd.Path(), next.open)
	}
	return HDF5(ctx, hd, dims, fill, hd.Path())
}

// array opens the source dataset of a mapping, once for all the mappings
// that name it (a failure is not remembered).
func (l *virtualLocator) array(ctx context.Context, file, dataset string) (*Chunked, error) {
	key := file + "\x00" + dataset
	l.mu.Lock()
	defer l.mu.Unlock()
	if arr, ok := l.arrays[key]; ok {
		return arr, nil
	}
	arr, err := l.open(ctx, file, dataset)
	if err != nil {
		return nil, err
	}
	if l.arrays == nil {
		l.arrays = map[string]*Chunked{}
	}
	l.arrays[key] = arr
	return arr, nil
}
