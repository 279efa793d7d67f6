package hdf5

import (
	"bytes"
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
	"github.com/lindigo/lindi/hdf5/layout"
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
}

// openDataset reads a dataset's metadata messages.
func (f *File) openDataset(ctx context.Context, h *objectHeader, path string) (*Dataset, error) {
	ds := &Dataset{f: f, path: path, addr: h.addr}
	if err := ds.load(ctx, h); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
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
	if ds.layout, err = layout.Parse(m.body, sizes); err != nil {
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
	if _, ok := h.first(msgExternalFile); ok {
		return fmt.Errorf("%w: raw data stored in external files", ErrUnsupported)
	}
	return nil
}

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
func (ds *Dataset) Kind() Kind { return KindDataset }

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

// Layout returns the dataset's decoded data layout message: compact data,
// the contiguous address and size, or the chunk shape and index type. The
// Layout is shared (its compact Data aliases a cache); do not modify it.
func (ds *Dataset) Layout() *layout.Layout { return ds.layout }

// Chunks returns the chunk shape of a chunked dataset, or nil. The slice
// is shared; do not modify it.
func (ds *Dataset) Chunks() []uint64 {
	if ds.layout.Class != layout.Chunked {
		return nil
	}
	return ds.layout.Chunk
}

// Filters returns the dataset's filter pipeline in the order HDF5 applied
// it when writing (decode in reverse), or nil. Filter.Codec maps each
// filter to a codec configuration. The slice is shared; do not modify it.
func (ds *Dataset) Filters() []layout.Filter { return ds.filters }

// Index returns the chunk index of a chunked dataset: chunk grid
// coordinates to the chunk's address (relative to File.Base), stored size
// and filter mask, or "not stored" (fill value). It fails for compact and
// contiguous datasets. Each call opens the index afresh; keep the result
// to benefit from its cache.
func (ds *Dataset) Index(ctx context.Context) (layout.Index, error) {
	idx, err := ds.layout.Index(ctx, ds.f.r, ds.space.Dims, ds.space.MaxDims)
	if err != nil {
		return nil, fmt.Errorf("hdf5: chunk index of %s: %w", ds.path, err)
	}
	return idx, nil
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
// file's byte order, C order. A contiguous dataset whose storage was never
// allocated reads as the fill value. It reads at most fileio.MaxRead bytes
// and fails with ErrUnsupported for chunked datasets, which read through
// their chunk index.
func (ds *Dataset) ReadRaw(ctx context.Context) ([]byte, error) {
	n, err := ds.NumBytes()
	if err != nil {
		return nil, fmt.Errorf("hdf5: read %s: %w", ds.path, err)
	}
	if n > fileio.MaxRead {
		return nil, fmt.Errorf("hdf5: read %s: %w: %d bytes", ds.path, fileio.ErrTooLarge, n)
	}
	switch ds.layout.Class {
	case layout.Compact:
		if uint64(len(ds.layout.Data)) < n {
			return nil, fmt.Errorf("hdf5: read %s: %w: %d bytes of compact data, want %d",
				ds.path, ErrFormat, len(ds.layout.Data), n)
		}
		return bytes.Clone(ds.layout.Data[:n]), nil
	case layout.Contiguous:
		if fileio.IsUndefined(ds.layout.Addr) {
			return ds.fillBytes(n), nil
		}
		if ds.layout.Size != 0 && ds.layout.Size < n {
			return nil, fmt.Errorf("hdf5: read %s: %w: %d bytes of contiguous storage, want %d",
				ds.path, ErrFormat, ds.layout.Size, n)
		}
		b, err := ds.f.r.Bytes(ctx, ds.layout.Addr, n)
		if err != nil {
			return nil, fmt.Errorf("hdf5: read %s: %w", ds.path, err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("hdf5: read %s: %w: ReadRaw of a %s dataset", ds.path, ErrUnsupported, ds.layout.Class)
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
