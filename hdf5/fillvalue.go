package hdf5

import (
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// FillValue is the value of a dataset's unwritten elements. When Defined
// is false the file sets no value and readers use zero bytes (as the HDF5
// library and h5py do); when Defined is true Value holds one element in
// the dataset's datatype (its length is the datatype's size).
type FillValue struct {
	Defined bool
	Value   []byte
}

// parseFill decodes a fill value message (type 0x0005), versions 1 to 3.
func parseFill(b []byte) (FillValue, error) {
	d := fileio.NewDecoder(b, fileio.Sizes{})
	var fv FillValue
	version := d.Uint8()
	hasValue := false
	switch version {
	case 1, 2:
		d.Skip(2) // space allocation time, fill value write time
		defined := d.Uint8() != 0
		hasValue = version == 1 || defined
	case 3:
		flags := d.Uint8()
		if flags&0xc0 != 0 {
			return fv, fmt.Errorf("%w: fill value flags %#x", ErrFormat, flags)
		}
		hasValue = flags&0x20 != 0
	default:
		if d.Err() == nil {
			return fv, fmt.Errorf("%w: fill value message version %d", ErrFormat, version)
		}
	}
	if hasValue {
		n := d.Uint32()
		fv.Value = d.Bytes(int(min(n, uint32(d.Len()+1))))
		fv.Defined = n > 0
	}
	if err := d.Err(); err != nil {
		return FillValue{}, fmt.Errorf("fill value message: %w", err)
	}
	if !fv.Defined {
		fv.Value = nil
	}
	return fv, nil
}

// parseFillOld decodes the old fill value message (type 0x0004): a size and
// the value.
func parseFillOld(b []byte) (FillValue, error) {
	d := fileio.NewDecoder(b, fileio.Sizes{})
	n := d.Uint32()
	v := d.Bytes(int(min(n, uint32(d.Len()+1))))
	if err := d.Err(); err != nil {
		return FillValue{}, fmt.Errorf("old fill value message: %w", err)
	}
	if n == 0 {
		return FillValue{}, nil
	}
	return FillValue{Defined: true, Value: v}, nil
}
