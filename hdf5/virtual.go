package hdf5

import (
	"bytes"
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
	"github.com/lindigo/lindi/hdf5/internal/layout"
)

// Mapping is one mapping of a virtual dataset: the elements Source selects
// in the dataset Dataset of the file File are the elements Virtual selects
// in the virtual dataset, the k-th of one (in selection order: C order
// for hyperslabs, listed order for points) being the k-th of the other.
// File "." names the virtual dataset's own file; another name is resolved
// as HDF5 resolves it, relative to that file's location. File and Dataset
// may hold printf-style patterns ("%b"), which Mapping leaves as stored.
type Mapping struct {
	File, Dataset   string
	Source, Virtual Selection
}

// Mappings returns the mappings of a virtual dataset (LayoutVirtual), read
// from the global heap, in stored order; the elements none of them cover
// read as the fill value. It fails with ErrFormat for a corrupt heap
// object and with ErrUnsupported for a dataset of another layout.
func (ds *Dataset) Mappings(ctx context.Context) ([]Mapping, error) {
	if ds.layout.Class != layout.Virtual {
		return nil, fmt.Errorf("hdf5: mappings of %s: %w: a %s dataset", ds.path, ErrUnsupported, ds.layout.Class)
	}
	m, err := ds.mappings(ctx)
	if err != nil {
		return nil, fmt.Errorf("hdf5: mappings of virtual dataset %s: %w", ds.path, err)
	}
	return m, nil
}

func (ds *Dataset) mappings(ctx context.Context) ([]Mapping, error) {
	addr, idx := ds.layout.Addr, ds.layout.HeapIndex
	if fileio.IsUndefined(addr) {
		return nil, nil // no mappings: every element is fill
	}
	c, err := ds.f.collection(ctx, addr)
	if err != nil {
		return nil, err
	}
	obj, ok := c[uint16(idx)]
	if !ok || idx > 0xffff {
		return nil, fmt.Errorf("%w: no object %d in the global heap collection at %d", ErrFormat, idx, addr)
	}
	return parseMappings(obj, ds.f.r.Sizes())
}

// maxMappings bounds the mappings one virtual dataset may list, against
// hostile files (each takes at least 34 bytes of the heap object).
const maxMappings = 1 << 20

// parseMappings decodes the heap object of a virtual dataset's mappings
// (encoding version 0): their count, then each mapping's source file and
// dataset names (NUL-terminated), source and virtual selections, then a
// checksum of everything before it.
func parseMappings(b []byte, sizes fileio.Sizes) ([]Mapping, error) {
	if err := fileio.VerifyChecksum(b, "virtual dataset mappings"); err != nil {
		return nil, err
	}
	d := fileio.NewDecoder(b[:len(b)-4], sizes)
	if v := d.Uint8(); v != 0 && d.Err() == nil {
		return nil, fmt.Errorf("%w: virtual dataset mappings of encoding version %d", ErrUnsupported, v)
	}
	n := d.Length()
	if err := d.Err(); err != nil {
		return nil, err
	}
	if n > maxMappings || n > uint64(d.Len()) {
		return nil, fmt.Errorf("%w: %d mappings in %d bytes", ErrFormat, n, d.Len())
	}
	out := make([]Mapping, n)
	for i := range out {
		m, err := parseMapping(d)
		if err != nil {
			return nil, fmt.Errorf("mapping %d: %w", i, err)
		}
		out[i] = m
	}
	if d.Len() != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last mapping", ErrFormat, d.Len())
	}
	return out, nil
}

func parseMapping(d *fileio.Decoder) (Mapping, error) {
	var m Mapping
	var err error
	if m.File, err = nulString(d, "source file name"); err != nil {
		return m, err
	}
	if m.Dataset, err = nulString(d, "source dataset name"); err != nil {
		return m, err
	}
	if m.Source, err = parseSelection(d); err != nil {
		return m, fmt.Errorf("source selection: %w", err)
	}
	if m.Virtual, err = parseSelection(d); err != nil {
		return m, fmt.Errorf("virtual selection: %w", err)
	}
	return m, nil
}

// nulString reads a NUL-terminated string.
func nulString(d *fileio.Decoder, what string) (string, error) {
	rest := d.Bytes(d.Len())
	i := bytes.IndexByte(rest, 0)
	if i < 0 {
		return "", fmt.Errorf("%w: %s without its terminating NUL", ErrFormat, what)
	}
	d.Seek(d.Pos() - len(rest) + i + 1)
	return string(rest[:i]), nil
}
