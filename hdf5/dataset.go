package hdf5

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/hdf5/internal/fileio"
	"github.com/lindigo/lindi/hdf5/internal/layout"
	"github.com/lindigo/lindi/internal/errpath"
)

// Dataset is an HDF5 dataset: its metadata, read when the dataset is
// opened, and the means to locate its raw data. A Dataset is immutable and
// safe for concurrent use.
type Dataset struct {
	f      *File
	path   string
	addr   uint64
	space  Dataspace
	dtype  *Datatype
	layout *layout.Layout
	fill   FillValue
	// filterMsg is the body of the filter pipeline message, nil without.
	filterMsg []byte
	filters   []layout.Filter
	pipes     *pipelines   // built on first use
	loc       *locatorMemo // the Locator, once made
	// err says why the raw data cannot be read (an unknown layout version,
	// external storage): the metadata is there, the Locator fails with err.
	err error
}

// locatorMemo keeps a dataset's Locator once it was made.
type locatorMemo struct {
	mu sync.Mutex
	l  *Locator
}

// openDataset reads a dataset's metadata messages.
func (f *File) openDataset(ctx context.Context, h *objectHeader, path string) (*Dataset, error) {
	ds := &Dataset{f: f, path: path, addr: h.addr, loc: new(locatorMemo)}
	if err := ds.load(ctx, h); err != nil {
		return nil, errpath.Wrap("", path, err)
	}
	return ds, nil
}

func (ds *Dataset) load(ctx context.Context, h *objectHeader) error {
	f, sizes := ds.f, ds.f.r.Sizes()
	m, ok := h.first(msgDataspace)
	if !ok {
		return fmt.Errorf("%w: dataset without a dataspace message", ErrFormat)
	}
	body, err := f.body(ctx, m)
	if err != nil {
		return err
	}
	if ds.space, err = parseDataspace(body, sizes); err != nil {
		return err
	}
	m, ok = h.first(msgDatatype)
	if !ok {
		return fmt.Errorf("%w: dataset without a datatype message", ErrFormat)
	}
	if ds.dtype, err = f.datatype(ctx, m); err != nil {
		return err
	}
	m, _ = h.first(msgLayout)
	if ds.layout, err = layout.Parse(m.body, sizes); errors.Is(err, ErrUnsupported) {
		// The dataset's metadata is readable, its data is not.
		ds.layout, ds.err = &layout.Layout{Class: layout.Class(0xff)}, err
	} else if err != nil {
		return err
	}
	if err := ds.loadFill(ctx, h); err != nil {
		return err
	}
	if m, ok := h.first(msgFilters); ok {
		if ds.filterMsg, err = f.body(ctx, m); err != nil {
			return err
		}
		if ds.filters, err = layout.ParseFilters(ds.filterMsg); err != nil {
			return err
		}
	}
	ds.pipes = newPipelines(f.codecs, ds.filters, int(ds.dtype.Size))
	if _, ok := h.first(msgExternalFile); ok && ds.err == nil {
		ds.err = fmt.Errorf("%w: raw data stored in external files", ErrUnsupported)
	}
	return nil
}

// Err reports why the dataset's raw data cannot be read (a layout message
// of an unknown version, data in external files; both ErrUnsupported), or
// nil. Its metadata and attributes read all the same; its Locator fails
// with this error. A virtual dataset's data is read through its Mappings.
func (ds *Dataset) Err() error { return ds.err }

// loadFill reads the fill value: the new message wins over the old one.
func (ds *Dataset) loadFill(ctx context.Context, h *objectHeader) error {
	var err error
	if m, ok := h.first(msgFill); ok {
		body, err := ds.f.body(ctx, m)
		if err != nil {
			return err
		}
		ds.fill, err = parseFill(body)
		if err != nil {
			return err
		}
	} else if m, ok := h.first(msgFillOld); ok {
		if ds.fill, err = parseFillOld(m.body); err != nil {
			return err
		}
	}
	if ds.fill.Defined && len(ds.fill.Value) != int(ds.dtype.Size) {
		return fmt.Errorf("%w: %d-byte fill value for %d-byte elements", ErrFormat, len(ds.fill.Value), ds.dtype.Size)
	}
	return nil
}

// Path returns the path the dataset was reached by.
func (ds *Dataset) Path() string { return ds.path }

// Addr returns the address of the dataset's object header.
func (ds *Dataset) Addr() uint64 { return ds.addr }

// Kind returns KindDataset.
func (ds *Dataset) Kind() ObjectKind { return KindDataset }

// Attrs returns the dataset's attributes in name order.
func (ds *Dataset) Attrs(ctx context.Context) ([]*Attribute, error) {
	return ds.f.attrs(ctx, ds.addr, ds.path)
}

// Space returns the dataset's dataspace.
func (ds *Dataset) Space() Dataspace { return ds.space }

// Shape returns the dataset's dimensions: empty for scalar and null
// dataspaces. The slice is shared; do not modify it.
func (ds *Dataset) Shape() []uint64 { return ds.space.Dims }

// MaxShape returns the dataset's maximum dimensions, Unlimited for an
// unlimited one. The slice is shared; do not modify it.
func (ds *Dataset) MaxShape() []uint64 { return ds.space.MaxDims }

// Datatype returns the dataset's element type.
func (ds *Dataset) Datatype() *Datatype { return ds.dtype }

// Fill returns the dataset's fill value (see FillValue for an undefined
// one).
func (ds *Dataset) Fill() FillValue { return ds.fill }

// Layout returns how the dataset's raw data is stored.
func (ds *Dataset) Layout() Layout { return Layout(ds.layout.Class) }

// Chunks returns the chunk shape of a chunked dataset, or nil. The slice
// is shared; do not modify it.
func (ds *Dataset) Chunks() []uint64 {
	if ds.layout.Class != layout.Chunked {
		return nil
	}
	return ds.layout.Chunk
}

// Pipeline returns the dataset's filter pipeline as a codecs pipeline
// built with the file's registry (WithCodecs): what decodes a chunk that
// went through every filter. It is empty for a dataset without filters;
// its IDs name the codecs. It fails with ErrUnsupported naming a filter
// the registry cannot decode (szip, nbit, unknown IDs).
func (ds *Dataset) Pipeline() (*codecs.Pipeline, error) {
	p, err := ds.pipes.get(0)
	if err != nil {
		return nil, fmt.Errorf("hdf5: filters of %s: %w", ds.path, err)
	}
	return p, nil
}

// FilterMessage returns the body of the dataset's filter pipeline message,
// or nil when the dataset has no filters.
func (ds *Dataset) FilterMessage() []byte { return ds.filterMsg }

// File returns the file the dataset belongs to.
func (ds *Dataset) File() *File { return ds.f }

// NumBytes returns the size of the dataset's data in bytes, unfiltered:
// elements × element size (variable-length elements count their stored
// heap IDs). It fails when the product overflows 64 bits.
func (ds *Dataset) NumBytes() (uint64, error) {
	n := ds.space.NumElements()
	size := uint64(ds.dtype.Size)
	if size != 0 && n > ^uint64(0)/size {
		return 0, fmt.Errorf("%w: %d elements of %d bytes", ErrFormat, n, size)
	}
	return n * size, nil
}

// ReadRaw returns the raw bytes of a compact or contiguous dataset, in the
// file's byte order, C order, read through its Locator: compact data
// shorter than the dataset is zero-padded, and contiguous storage that was
// never allocated reads as the fill value. It reads at most 256 MiB and
// fails with ErrUnsupported for chunked datasets, whose chunks need
// decoding.
func (ds *Dataset) ReadRaw(ctx context.Context) ([]byte, error) {
	b, err := ds.readRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("hdf5: read %s: %w", ds.path, err)
	}
	return b, nil
}

func (ds *Dataset) readRaw(ctx context.Context) ([]byte, error) {
	if ds.layout.Class == layout.Chunked {
		return nil, fmt.Errorf("%w: ReadRaw of a %s dataset", ErrUnsupported, ds.layout.Class)
	}
	n, err := ds.NumBytes()
	if err != nil {
		return nil, err
	}
	if n > fileio.MaxRead {
		return nil, fmt.Errorf("%w: %d bytes", fileio.ErrTooLarge, n)
	}
	loc, err := ds.Locator(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if n == 0 {
		return out, nil
	}
	coords := make([]int, len(loc.grid))
	if loc.class == layout.Compact { // one chunk, zero-padded
		ch, err := loc.Locate(ctx, coords)
		if err != nil {
			return nil, err
		}
		copy(out, ch.Data)
		return out, nil
	}
	// Contiguous data is a run of virtual chunks along the first dimension.
	for pos := 0; pos < len(out); coords[0]++ {
		ch, err := loc.Locate(ctx, coords)
		if err != nil {
			return nil, err
		}
		if ch.Missing {
			return ds.fillBytes(n), nil
		}
		if err := ds.f.r.ReadAt(ctx, out[pos:pos+int(ch.Len)], uint64(ch.Off)-ds.f.Base()); err != nil {
			return nil, err
		}
		pos += int(ch.Len)
	}
	return out, nil
}

// fillBytes returns n bytes of repeated fill value.
func (ds *Dataset) fillBytes(n uint64) []byte {
	b := make([]byte, n)
	if ds.fill.Defined {
		for i := 0; i+len(ds.fill.Value) <= len(b); i += len(ds.fill.Value) {
			copy(b[i:], ds.fill.Value)
		}
	}
	return b
}
