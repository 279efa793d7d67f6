package fileio

import "fmt"

// Undefined is the decoded value of the HDF5 undefined address: a field of
// "size of offsets" bytes that are all 0xff.
const Undefined = ^uint64(0)

// IsUndefined reports whether addr is the undefined address.
func IsUndefined(addr uint64) bool { return addr == Undefined }

// Sizes holds the superblock fields every other structure depends on: the
// byte width of addresses ("size of offsets") and of lengths ("size of
// lengths"), and the base address that file addresses are relative to.
type Sizes struct {
	OffsetSize int    // size of offsets in bytes: 2, 4 or 8
	LengthSize int    // size of lengths in bytes: 2, 4 or 8
	Base       uint64 // absolute file offset of address 0
}

// Validate reports an error unless OffsetSize and LengthSize are 2, 4 or 8,
// the only widths the HDF5 specification allows.
func (s Sizes) Validate() error {
	if !validWidth(s.OffsetSize) {
		return fmt.Errorf("hdf5: invalid size of offsets %d (want 2, 4 or 8)", s.OffsetSize)
	}
	if !validWidth(s.LengthSize) {
		return fmt.Errorf("hdf5: invalid size of lengths %d (want 2, 4 or 8)", s.LengthSize)
	}
	return nil
}

func validWidth(n int) bool { return n == 2 || n == 4 || n == 8 }
