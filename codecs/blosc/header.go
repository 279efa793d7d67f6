package blosc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Errors returned, wrapped with detail, by ParseHeader and Decode.
var (
	// ErrCorrupt reports a chunk that is malformed or truncated.
	ErrCorrupt = errors.New("blosc: corrupt chunk")
	// ErrTooLarge reports a chunk whose decoded size exceeds the caller's limit.
	ErrTooLarge = errors.New("blosc: decoded size exceeds limit")
	// ErrUnsupported reports a format version, flag or compressor this
	// package does not decode.
	ErrUnsupported = errors.New("blosc: unsupported chunk")
)

// HeaderSize is the size in bytes of the fixed chunk header.
const HeaderSize = 16

// Flag bits of Header.Flags, as c-blosc 1.x defines them. The top three
// bits hold the compressor code (see Header.Compressor).
const (
	// FlagShuffle marks chunks whose elements are byte-shuffled.
	FlagShuffle = 0x01
	// FlagMemcpyed marks chunks stored uncompressed after the header.
	FlagMemcpyed = 0x02
	// FlagBitShuffle marks chunks whose elements are bit-shuffled.
	FlagBitShuffle = 0x04
	// FlagDontSplit marks chunks whose blocks are not split into one
	// stream per byte of the element.
	FlagDontSplit = 0x10
)

const (
	formatVersion = 2
	flagReserved  = 0x08 // "compressor flags from the future" in c-blosc
	maxTypesize   = 255
	maxSplits     = 16  // MAX_SPLITS in c-blosc
	minBufferSize = 128 // MIN_BUFFERSIZE in c-blosc
	// maxBlockSize is c-blosc's BLOSC_MAX_BLOCKSIZE.
	maxBlockSize = (1<<31 - 1 - maxTypesize*4) / 3
	// maxSize is c-blosc's BLOSC_MAX_BUFFERSIZE.
	maxSize = 1<<31 - 1 - HeaderSize
)

// Compressor codes, stored in the top three bits of the flags.
const (
	codeBlosclz = 0
	codeLZ4     = 1 // lz4 and lz4hc share one format
	codeSnappy  = 2
	codeZlib    = 3
	codeZstd    = 4
)

var compressorNames = [...]string{"blosclz", "lz4", "snappy", "zlib", "zstd"}

// Header is the fixed 16-byte header of a blosc chunk.
type Header struct {
	Version   uint8 // format version; 2 for c-blosc 1.x
	VersionLZ uint8 // version of the inner compressor's format
	Flags     uint8 // FlagShuffle, FlagMemcpyed, FlagBitShuffle, FlagDontSplit and the compressor code
	TypeSize  int   // element size in bytes, used by shuffling and splitting
	NBytes    int   // decoded size of the chunk
	BlockSize int   // decoded size of each block but the last
	CBytes    int   // size of the whole encoded chunk, header included
}

// ParseHeader reads the header at the start of src. It fails with
// ErrUnsupported when the format version is not 2 and with ErrCorrupt when
// src is shorter than HeaderSize or a size field exceeds 2^31-1; the other
// fields are returned as found and checked by Decode. On error the Header
// is zero.
func ParseHeader(src []byte) (Header, error) {
	if len(src) < HeaderSize {
		return Header{}, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrCorrupt, len(src), HeaderSize)
	}
	h := Header{
		Version:   src[0],
		VersionLZ: src[1],
		Flags:     src[2],
		TypeSize:  int(src[3]),
		NBytes:    int(binary.LittleEndian.Uint32(src[4:8])),
		BlockSize: int(binary.LittleEndian.Uint32(src[8:12])),
		CBytes:    int(binary.LittleEndian.Uint32(src[12:16])),
	}
	if h.Version != formatVersion {
		return Header{}, fmt.Errorf("%w: format version %d (want %d)", ErrUnsupported, h.Version, formatVersion)
	}
	for _, f := range [...]struct {
		name string
		off  int
	}{{"nbytes", 4}, {"blocksize", 8}, {"cbytes", 12}} {
		// c-blosc reads these as int32; larger values are negative there,
		// and would not fit an int on 32-bit platforms here.
		if v := binary.LittleEndian.Uint32(src[f.off:]); v > math.MaxInt32 {
			return Header{}, fmt.Errorf("%w: %s %d exceeds 2^31-1", ErrCorrupt, f.name, v)
		}
	}
	return h, nil
}

// Compressor returns the name of the inner compressor: "blosclz", "lz4"
// (also used by lz4hc), "snappy", "zlib", "zstd", or "unknown(N)".
func (h Header) Compressor() string {
	code := int(h.Flags >> 5)
	if code < len(compressorNames) {
		return compressorNames[code]
	}
	return fmt.Sprintf("unknown(%d)", code)
}

// Shuffle returns the shuffle the chunk was written with: "none", "byte"
// or "bit", following the precedence Decode uses (byte shuffle wins, and
// a byte shuffle of 1-byte elements is none).
func (h Header) Shuffle() string {
	switch {
	case h.Flags&FlagShuffle != 0 && h.TypeSize > 1:
		return "byte"
	case h.Flags&FlagBitShuffle != 0:
		return "bit"
	}
	return "none"
}

// Memcpyed reports whether the data is stored uncompressed after the header.
func (h Header) Memcpyed() bool { return h.Flags&FlagMemcpyed != 0 }

// validate checks everything Decode relies on that the header alone can
// tell, mirroring c-blosc's own checks. It assumes NBytes > 0.
func (h Header) validate(srcLen int) error {
	switch {
	case h.NBytes > maxSize:
		return fmt.Errorf("%w: nbytes %d exceeds blosc's maximum %d", ErrCorrupt, h.NBytes, maxSize)
	case h.CBytes < HeaderSize:
		return fmt.Errorf("%w: cbytes %d smaller than the header", ErrCorrupt, h.CBytes)
	case h.CBytes > srcLen:
		return fmt.Errorf("%w: truncated: cbytes %d but only %d bytes", ErrCorrupt, h.CBytes, srcLen)
	case h.TypeSize == 0:
		return fmt.Errorf("%w: typesize 0", ErrCorrupt)
	case h.BlockSize <= 0 || h.BlockSize > h.NBytes || h.BlockSize > maxBlockSize:
		return fmt.Errorf("%w: blocksize %d for nbytes %d", ErrCorrupt, h.BlockSize, h.NBytes)
	case h.Flags&flagReserved != 0:
		return fmt.Errorf("%w: reserved flag bit 0x08 set (flags %#02x)", ErrUnsupported, h.Flags)
	}
	if h.Memcpyed() {
		if h.CBytes != h.NBytes+HeaderSize {
			return fmt.Errorf("%w: memcpyed chunk with cbytes %d, want nbytes+16 = %d", ErrCorrupt, h.CBytes, h.NBytes+HeaderSize)
		}
		return nil
	}
	if code := int(h.Flags >> 5); code >= len(compressorNames) {
		return fmt.Errorf("%w: compressor code %d", ErrUnsupported, code)
	}
	if n := h.nblocks(); n > (h.CBytes-HeaderSize)/4 {
		return fmt.Errorf("%w: %d blocks do not fit their offsets in cbytes %d", ErrCorrupt, n, h.CBytes)
	}
	return nil
}

// nblocks returns the number of blocks, the short last one included.
func (h Header) nblocks() int {
	return (h.NBytes + h.BlockSize - 1) / h.BlockSize
}
