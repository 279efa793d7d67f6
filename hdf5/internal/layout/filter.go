package layout

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// HDF5 filter identifiers.
const (
	FilterDeflate     = 1
	FilterShuffle     = 2
	FilterFletcher32  = 3
	FilterSzip        = 4
	FilterNbit        = 5
	FilterScaleOffset = 6
	FilterLZF         = 32000
	FilterBlosc       = 32001
	FilterZstd        = 32015
)

// maxFilters is the most filters a pipeline may hold (H5Z_MAX_NFILTERS).
const maxFilters = 32

// Filter is one stage of a dataset's filter pipeline.
type Filter struct {
	ID         uint16
	Name       string // optional in version 2 messages for IDs below 256
	Flags      uint16
	ClientData []uint32
}

// Optional reports whether the filter may be skipped for a chunk when it
// fails: such chunks have the filter's bit set in their filter mask.
func (f Filter) Optional() bool { return f.Flags&1 != 0 }

// ParseFilters decodes a Filter Pipeline message (versions 1 and 2) into
// its filters, in the order HDF5 applied them when writing.
func ParseFilters(msg []byte) ([]Filter, error) {
	d := fileio.NewDecoder(msg, fileio.Sizes{})
	version, n := d.Uint8(), int(d.Uint8())
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("hdf5: filter pipeline message: %w", err)
	}
	if version != 1 && version != 2 {
		return nil, fmt.Errorf("%w: filter pipeline message version %d", ErrUnsupported, version)
	}
	if n > maxFilters {
		return nil, fmt.Errorf("%w: filter pipeline of %d filters (at most %d)", ErrCorrupt, n, maxFilters)
	}
	if version == 1 {
		d.Skip(6)
	}
	out := make([]Filter, n)
	for i := range out {
		out[i] = decodeFilter(d, version)
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("hdf5: filter pipeline message version %d: %w", version, err)
	}
	return out, nil
}

func decodeFilter(d *fileio.Decoder, version uint8) Filter {
	var f Filter
	f.ID = d.Uint16()
	var nameLen int
	if version == 1 || f.ID >= 256 {
		nameLen = int(d.Uint16())
	}
	f.Flags = d.Uint16()
	nvalues := int(d.Uint16())
	name := d.Bytes(nameLen)
	if version == 1 {
		d.Skip((8 - nameLen%8) % 8)
	}
	f.Name, _, _ = strings.Cut(string(name), "\x00")
	if nvalues > d.Len()/4 {
		d.Failf("%w: filter %d has %d client data values in %d bytes", ErrCorrupt, f.ID, nvalues, d.Len())
		return f
	}
	if nvalues > 0 {
		f.ClientData = make([]uint32, nvalues)
		for j := range f.ClientData {
			f.ClientData[j] = d.Uint32()
		}
	}
	if version == 1 && nvalues%2 == 1 {
		d.Skip(4)
	}
	return f
}

// Codec returns the numcodecs-style JSON configuration that decodes the
// filter, from the table beside the codec registrations (codecs.HDF5Filter).
// elemSize is the dataset's element size in bytes, used by shuffle when the
// filter's client data does not give it. Filters without a codec (szip,
// nbit, unknown IDs) fail with ErrUnsupported naming the filter.
func (f Filter) Codec(elemSize int) ([]byte, error) {
	cfg, err := codecs.HDF5Filter(f.ID, f.ClientData, elemSize)
	if errors.Is(err, codecs.ErrUnknownCodec) {
		return nil, fmt.Errorf("%w: filter %d (%s)", ErrUnsupported, f.ID, f.displayName())
	}
	if err != nil {
		return nil, fmt.Errorf("hdf5: filter %d (%s): %w", f.ID, f.displayName(), err)
	}
	return cfg, nil
}

// displayName returns the filter's stored name or the library's name for
// its ID.
func (f Filter) displayName() string {
	if f.Name != "" {
		return f.Name
	}
	switch f.ID {
	case FilterSzip:
		return "szip"
	case FilterNbit:
		return "nbit"
	case FilterScaleOffset:
		return "scaleoffset"
	}
	return "unnamed"
}
