package fileio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// ErrChecksum reports a metadata structure whose stored checksum does not
// match its bytes.
var ErrChecksum = errors.New("hdf5: checksum mismatch")

// Checksum returns the Jenkins lookup3 hashlittle hash of b with initial
// value 0: the checksum HDF5 stores after its version 2 metadata
// structures (superblock v2/v3, object header v2, B-tree v2, heaps, fixed
// and extensible array blocks).
func Checksum(b []byte) uint32 { return hashlittle(b, 0) }

func hashlittle(b []byte, initval uint32) uint32 {
	a := 0xdeadbeef + uint32(len(b)) + initval
	bb, c := a, a
	for len(b) > 12 {
		a += binary.LittleEndian.Uint32(b[0:])
		bb += binary.LittleEndian.Uint32(b[4:])
		c += binary.LittleEndian.Uint32(b[8:])
		a, bb, c = mix(a, bb, c)
		b = b[12:]
	}
	if len(b) == 0 {
		return c
	}
	// The final 1..12 bytes are added as little-endian words padded
	// with zeros, which is what lookup3's byte-wise tail switch computes.
	var tail [12]byte
	copy(tail[:], b)
	a += binary.LittleEndian.Uint32(tail[0:])
	bb += binary.LittleEndian.Uint32(tail[4:])
	c += binary.LittleEndian.Uint32(tail[8:])
	return final(a, bb, c)
}

func mix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

func final(a, b, c uint32) uint32 {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return c
}

// VerifyChecksum checks a structure whose last four bytes are the
// little-endian Checksum of all the bytes before them. what names the
// structure in the error, which wraps ErrChecksum.
func VerifyChecksum(b []byte, what string) error {
	if len(b) < 4 {
		return fmt.Errorf("%w: %s is %d bytes, too short to hold a checksum", ErrShort, what, len(b))
	}
	n := len(b) - 4
	stored := binary.LittleEndian.Uint32(b[n:])
	if got := Checksum(b[:n]); got != stored {
		return fmt.Errorf("%w in %s: stored %#08x, computed %#08x", ErrChecksum, what, stored, got)
	}
	return nil
}
