package hdf5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// maxCollections bounds the parsed global heap collections a File keeps.
const maxCollections = 256

// collection is a parsed global heap collection: object index → bytes.
type collection map[uint16][]byte

// ReadVlen resolves the variable-length elements in raw, the stored bytes
// of a dataset or attribute whose datatype is variable-length (each
// element is a 4-byte length, a global heap collection address and a
// 4-byte object index). It returns each element's bytes: a string's bytes
// for variable-length strings, count × base size bytes for sequences. An
// element with a zero address or length is empty. The returned slices
// alias a cache and must not be modified.
func (f *File) ReadVlen(ctx context.Context, raw []byte) ([][]byte, error) {
	sz := f.r.Sizes()
	width := 8 + sz.OffsetSize
	if len(raw)%width != 0 {
		return nil, fmt.Errorf("hdf5: %d bytes are not a whole number of %d-byte variable-length elements", len(raw), width)
	}
	out := make([][]byte, len(raw)/width)
	d := fileio.NewDecoder(raw, sz)
	for i := range out {
		n, addr, idx := d.Uint32(), d.Offset(), d.Uint32()
		if n == 0 || addr == 0 {
			out[i] = []byte{}
			continue
		}
		c, err := f.collection(ctx, addr)
		if err != nil {
			return nil, err
		}
		obj, ok := c[uint16(idx)]
		if !ok || idx > 0xffff {
			return nil, fmt.Errorf("%w: no object %d in the global heap collection at %d", ErrFormat, idx, addr)
		}
		out[i] = obj
	}
	return out, d.Err()
}

// collection returns the global heap collection at addr.
func (f *File) collection(ctx context.Context, addr uint64) (collection, error) {
	if c, ok := f.collections.Get(addr); ok {
		return c, nil
	}
	c, err := f.readCollection(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("global heap collection at %d: %w", addr, err)
	}
	f.collections.Put(addr, c)
	return c, nil
}

func (f *File) readCollection(ctx context.Context, addr uint64) (collection, error) {
	sz := f.r.Sizes()
	hdr := uint64(8 + sz.LengthSize)
	d, err := f.r.Decoder(ctx, addr, hdr)
	if err != nil {
		return nil, err
	}
	d.Signature("GCOL")
	version := d.Uint8()
	d.Skip(3)
	size := d.Length()
	if err := d.Err(); err != nil {
		return nil, err
	}
	if version != 1 {
		return nil, fmt.Errorf("%w: global heap version %d", ErrFormat, version)
	}
	if size < hdr || size > fileio.MaxRead {
		return nil, fmt.Errorf("%w: global heap collection of %d bytes", ErrFormat, size)
	}
	b, err := f.r.Bytes(ctx, addr, size)
	if err != nil {
		return nil, err
	}
	d = fileio.NewDecoder(b, sz)
	d.Seek(int(hdr))
	c := make(collection)
	objHdr := 8 + sz.LengthSize
	for d.Len() >= objHdr {
		idx := d.Uint16()
		d.Skip(6) // reference count, reserved
		n := d.Length()
		if idx == 0 {
			break // free space runs to the end of the collection
		}
		if n > uint64(d.Len()) {
			return nil, fmt.Errorf("%w: global heap object %d of %d bytes overruns its collection", ErrFormat, idx, n)
		}
		c[idx] = d.Bytes(int(n))
		d.Skip(min(int((8-n%8)%8), d.Len()))
	}
	return c, d.Err()
}
