package hdf5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// msgSharedTable is the shared message table message (type 0x000F) of the
// superblock extension.
const msgSharedTable = 0x0f

// sohmTypes maps the bits of an index's message type flags to the message
// types it holds.
var sohmTypes = [...]uint16{msgDataspace, msgDatatype, msgFill, msgFilters, msgAttribute}

// maxSOHMIndexes is the most indexes a shared message table may have
// (H5O_SHMESG_MAX_NINDEXES).
const maxSOHMIndexes = 8

// loadSOHM reads the shared object header message table, when the
// superblock extension has one, into f.sohm: message type → address of
// the fractal heap holding the shared messages of that type.
func (f *File) loadSOHM(ctx context.Context) error {
	if fileio.IsUndefined(f.sb.extAddr) {
		return nil
	}
	ext, err := f.header(ctx, f.sb.extAddr)
	if err != nil {
		return fmt.Errorf("superblock extension: %w", err)
	}
	m, ok := ext.first(msgSharedTable)
	if !ok {
		return nil
	}
	d := fileio.NewDecoder(m.body, f.r.Sizes())
	version, table, n := d.Uint8(), d.Offset(), int(d.Uint8())
	if err := d.Err(); err != nil {
		return fmt.Errorf("shared message table message: %w", err)
	}
	if version != 0 || n > maxSOHMIndexes {
		return fmt.Errorf("%w: shared message table version %d with %d indexes", ErrFormat, version, n)
	}
	entry := 14 + 2*f.r.Sizes().OffsetSize
	b, err := f.r.Bytes(ctx, table, uint64(4+n*entry+4))
	if err != nil {
		return fmt.Errorf("shared message table: %w", err)
	}
	if err := fileio.VerifyChecksum(b, "shared message table"); err != nil {
		return err
	}
	d = fileio.NewDecoder(b, f.r.Sizes())
	d.Signature("SMTB")
	for range n {
		d.Skip(2) // version, index type
		flags := d.Uint16()
		d.Skip(4 + 2 + 2 + 2) // minimum size, list and B-tree cutoffs, count
		d.Offset()            // index (list or B-tree): not needed to read by heap ID
		heap := d.Offset()
		for bit, typ := range sohmTypes {
			if flags&(1<<bit) != 0 {
				f.sohm[typ] = heap
			}
		}
	}
	return d.Err()
}

// sohmMessage returns the body of a message of type typ stored in the
// shared message heap under heap ID id.
func (f *File) sohmMessage(ctx context.Context, typ uint16, id []byte) ([]byte, error) {
	addr, ok := f.sohm[typ]
	if !ok {
		return nil, fmt.Errorf("%w: message type %#x shared in a heap the shared message table does not name", ErrFormat, typ)
	}
	heap, err := f.openFractalHeap(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("shared message heap: %w", err)
	}
	b, err := heap.object(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("shared message of type %#x: %w", typ, err)
	}
	return b, nil
}
