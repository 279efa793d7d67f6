package hdf5

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// signature opens every HDF5 superblock.
var signature = []byte("\x89HDF\r\n\x1a\n")

// superblock holds what the rest of the reader needs from the superblock.
type superblock struct {
	version  int
	offset   uint64 // absolute file offset of the signature
	sizes    fileio.Sizes
	eof      uint64 // end-of-file address
	rootAddr uint64 // object header address of the root group
	extAddr  uint64 // superblock extension object header, or Undefined
}

// maxSuperblockSize bounds the bytes read for a superblock: version 0/1
// with 8-byte offsets and lengths needs 100 bytes.
const maxSuperblockSize = 128

// findSuperblock looks for the signature at 0, 512, 1024, 2048, … as the
// specification says, and decodes the superblock it finds.
func findSuperblock(ctx context.Context, r *fileio.Reader) (*superblock, error) {
	for off := uint64(0); off+uint64(len(signature)) <= uint64(r.Size()); {
		n := min(uint64(maxSuperblockSize), uint64(r.Size())-off)
		b, err := r.Bytes(ctx, off, n)
		if err != nil {
			return nil, fmt.Errorf("hdf5: read superblock at %d: %w", off, err)
		}
		if bytes.HasPrefix(b, signature) {
			sb, err := parseSuperblock(b, off)
			if err != nil {
				return nil, fmt.Errorf("hdf5: superblock at %d in %s: %w", off, r.Name(), err)
			}
			return sb, nil
		}
		if off == 0 {
			off = 512
		} else {
			off *= 2
		}
	}
	return nil, fmt.Errorf("%w: no signature in %s", ErrNotHDF5, r.Name())
}

// parseSuperblock decodes the superblock in b, found at file offset off.
func parseSuperblock(b []byte, off uint64) (*superblock, error) {
	if len(b) < len(signature)+1 {
		return nil, fmt.Errorf("%w: superblock of %d bytes", fileio.ErrShort, len(b))
	}
	sb := &superblock{version: int(b[len(signature)]), offset: off}
	var err error
	switch sb.version {
	case 0, 1:
		err = sb.parseV0(b)
	case 2, 3:
		err = sb.parseV2(b)
	default:
		return nil, fmt.Errorf("%w: superblock version %d", ErrUnsupported, sb.version)
	}
	if err != nil {
		return nil, err
	}
	// Addresses are relative to the superblock's position, whatever the
	// stored base address says: the library rebases a file whose stored
	// base disagrees (a user block added after writing), and so do we.
	sb.sizes.Base = off
	return sb, nil
}

// parseV0 decodes superblock versions 0 and 1.
func (sb *superblock) parseV0(b []byte) error {
	if len(b) < 16 {
		return fmt.Errorf("%w: superblock of %d bytes", fileio.ErrShort, len(b))
	}
	sizes := fileio.Sizes{OffsetSize: int(b[13]), LengthSize: int(b[14])}
	if err := sizes.Validate(); err != nil {
		return errors.Join(ErrFormat, err)
	}
	d := fileio.NewDecoder(b, sizes)
	d.Skip(9) // signature, version
	d.Skip(4) // free-space, root group, reserved, shared header versions
	d.Skip(3) // sizes, reserved
	leafK, internalK := d.Uint16(), d.Uint16()
	d.Skip(4) // file consistency flags
	if sb.version == 1 {
		d.Skip(4) // indexed storage internal node K, reserved
	}
	d.Offset() // base address, superseded by the signature's position
	d.Offset() // free-space info (unused by the library)
	sb.eof = d.Offset()
	d.Offset() // driver information block
	// Root group symbol table entry: link name offset, object header.
	d.Offset()
	sb.rootAddr = d.Offset()
	sb.extAddr = fileio.Undefined
	if err := d.Err(); err != nil {
		return err
	}
	if leafK == 0 || internalK == 0 {
		return fmt.Errorf("%w: group B-tree K values %d/%d", ErrFormat, leafK, internalK)
	}
	sb.sizes = sizes
	return nil
}

// parseV2 decodes superblock versions 2 and 3, checking their checksum.
func (sb *superblock) parseV2(b []byte) error {
	if len(b) < 12 {
		return fmt.Errorf("%w: superblock of %d bytes", fileio.ErrShort, len(b))
	}
	sizes := fileio.Sizes{OffsetSize: int(b[9]), LengthSize: int(b[10])}
	if err := sizes.Validate(); err != nil {
		return errors.Join(ErrFormat, err)
	}
	total := 12 + 4*sizes.OffsetSize + 4
	if len(b) < total {
		return fmt.Errorf("%w: superblock needs %d bytes, file has %d", fileio.ErrShort, total, len(b))
	}
	if err := fileio.VerifyChecksum(b[:total], "superblock"); err != nil {
		return err
	}
	d := fileio.NewDecoder(b[:total], sizes)
	d.Skip(12)
	d.Offset() // base address
	sb.extAddr = d.Offset()
	sb.eof = d.Offset()
	sb.rootAddr = d.Offset()
	sb.sizes = sizes
	return d.Err()
}
