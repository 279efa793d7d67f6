package fileio

import (
	"encoding/binary"
	"errors"
	"fmt"
)

var (
	// ErrShort reports a structure that ends before all its fields were
	// read.
	ErrShort = errors.New("hdf5: structure truncated")
	// ErrSignature reports a structure that does not start with the
	// signature its kind requires: the address points somewhere else.
	ErrSignature = errors.New("hdf5: bad signature")
)

// Decoder is a little-endian cursor over a byte slice. Reads past the end
// do not panic: they return zero values and record a sticky error that Err
// reports, so a parser can decode a run of fields and check once. The
// first error wins; later reads are no-ops.
//
// The zero Decoder decodes an empty slice with zero Sizes.
type Decoder struct {
	b     []byte
	pos   int
	sizes Sizes
	err   error
}

// NewDecoder returns a Decoder reading b from its start. sizes gives the
// widths used by Offset and Length. The Decoder aliases b: slices returned
// by Bytes and Rest share its memory.
func NewDecoder(b []byte, sizes Sizes) *Decoder {
	return &Decoder{b: b, sizes: sizes}
}

// Err returns the first error met, or nil.
func (d *Decoder) Err() error { return d.err }

// Fail records err as the Decoder's error if it has none yet, and stops
// further decoding. Parsers use it to report a bad field value.
func (d *Decoder) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// Failf is Fail with a formatted error.
func (d *Decoder) Failf(format string, args ...any) {
	d.Fail(fmt.Errorf(format, args...))
}

// Pos returns the cursor's offset from the start of the slice.
func (d *Decoder) Pos() int { return d.pos }

// Len returns the number of bytes left after the cursor.
func (d *Decoder) Len() int { return len(d.b) - d.pos }

// Sizes returns the field widths the Decoder was made with.
func (d *Decoder) Sizes() Sizes { return d.sizes }

// Seek moves the cursor to offset pos from the start of the slice; an
// offset outside [0, len] records ErrShort.
func (d *Decoder) Seek(pos int) {
	if d.err != nil {
		return
	}
	if pos < 0 || pos > len(d.b) {
		d.err = fmt.Errorf("%w: seek to %d in %d bytes", ErrShort, pos, len(d.b))
		return
	}
	d.pos = pos
}

// take returns the next n bytes, or nil after recording ErrShort.
func (d *Decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.pos {
		d.err = fmt.Errorf("%w: need %d bytes at offset %d, have %d", ErrShort, n, d.pos, len(d.b)-d.pos)
		return nil
	}
	p := d.b[d.pos : d.pos+n]
	d.pos += n
	return p
}

// Skip advances the cursor by n bytes.
func (d *Decoder) Skip(n int) { d.take(n) }

// Bytes returns the next n bytes. The result aliases the decoded slice;
// it is nil after an error.
func (d *Decoder) Bytes(n int) []byte { return d.take(n) }

// Rest returns all bytes after the cursor and moves the cursor to the end.
func (d *Decoder) Rest() []byte { return d.take(d.Len()) }

// Uint8 decodes one byte.
func (d *Decoder) Uint8() uint8 {
	p := d.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

// Uint16 decodes a little-endian uint16.
func (d *Decoder) Uint16() uint16 {
	p := d.take(2)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint16(p)
}

// Uint32 decodes a little-endian uint32.
func (d *Decoder) Uint32() uint32 {
	p := d.take(4)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

// Uint64 decodes a little-endian uint64.
func (d *Decoder) Uint64() uint64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

// Uint decodes a little-endian unsigned integer of n bytes, 0 ≤ n ≤ 8, as
// used by fields whose width depends on other fields (chunk sizes, record
// counts). A width outside 0..8 records an error.
func (d *Decoder) Uint(n int) uint64 {
	if n < 0 || n > 8 {
		d.Failf("hdf5: unsupported integer width %d bytes", n)
		return 0
	}
	p := d.take(n)
	if p == nil {
		return 0
	}
	return DecodeUint(p)
}

// Offset decodes an address of Sizes.OffsetSize bytes. All bytes 0xff
// decode as Undefined.
func (d *Decoder) Offset() uint64 { return d.allOnes(d.sizes.OffsetSize) }

// Length decodes a length of Sizes.LengthSize bytes. All bytes 0xff decode
// as Undefined, which some structures use for "unknown".
func (d *Decoder) Length() uint64 { return d.allOnes(d.sizes.LengthSize) }

func (d *Decoder) allOnes(n int) uint64 {
	if n <= 0 || n > 8 {
		d.Failf("hdf5: unsupported field width %d bytes (sizes not set?)", n)
		return 0
	}
	v := d.Uint(n)
	if d.err == nil && n < 8 && v == 1<<(8*n)-1 {
		return Undefined
	}
	return v
}

// Signature consumes len(sig) bytes and records an error wrapping
// ErrSignature, naming both signatures, unless they equal sig.
func (d *Decoder) Signature(sig string) {
	p := d.take(len(sig))
	if p != nil && string(p) != sig {
		d.Failf("%w %q, want %q", ErrSignature, p, sig)
	}
}

// DecodeUint decodes a little-endian unsigned integer of len(p) ≤ 8
// bytes. Bytes past the eighth are ignored.
func DecodeUint(p []byte) uint64 {
	var v uint64
	for i := min(len(p), 8) - 1; i >= 0; i-- {
		v = v<<8 | uint64(p[i])
	}
	return v
}
