package codecs

import (
	"encoding/binary"

	"github.com/pierrec/lz4/v4"

	"github.com/lindigo/lindi/codecs/internal/shuffle"
)

// Decoders of two HDF5 filter plugins that h5py reads only with hdf5plugin:
// bitshuffle (filter 32008, with or without its LZ4 framing) and HDF5-LZ4
// (filter 32004). The ids are imagecodecs', whose numcodecs entry points read
// the same bytes: imagecodecs_bitshuffle and imagecodecs_lz4h5. The bitshuffle
// filter's LZ4 framing has no numcodecs codec; it is registered as
// "hdf5_bitshuffle_lz4" for reading HDF5 files, and an index links such a
// dataset to its HDF5 file instead of naming it.

// bshufBlockMult is bitshuffle's BSHUF_BLOCKED_MULT: a block holds a multiple
// of 8 elements; the last elements that make no such multiple are stored as
// they are.
const bshufBlockMult = 8

// bshufDefaultBlock is bitshuffle's bshuf_default_block_size: about 8 KiB of
// elements, a multiple of 8, at least 128.
func bshufDefaultBlock(itemsize int) int {
	n := 8192 / itemsize
	n -= n % bshufBlockMult
	return max(n, 128)
}

// bitshuffleCodec undoes bitshuffle's bshuf_bitshuffle: the elements, in
// blocks of blocksize (0: bitshuffle's default), each block's bits
// transposed within its elements.
type bitshuffleCodec struct{ itemsize, blocksize int }

func newBitshuffle(config []byte) (Codec, error) {
	itemsize, blocksize, err := bitshuffleParams("imagecodecs_bitshuffle", config, true)
	if err != nil {
		return nil, err
	}
	return bitshuffleCodec{itemsize, blocksize}, nil
}

// bitshuffleParams reads and checks the itemsize (default 1) and, where the
// codec has one, the blocksize (default 0) of a bitshuffle configuration.
func bitshuffleParams(id string, config []byte, blocks bool) (itemsize, blocksize int, err error) {
	p, err := parseParams(id, config)
	if err == nil {
		itemsize, err = p.int("itemsize", 1)
	}
	if err == nil && blocks {
		blocksize, err = p.int("blocksize", 0)
	}
	if err == nil {
		err = checkBitshuffle(id, itemsize, blocksize)
	}
	return itemsize, blocksize, err
}

func checkBitshuffle(id string, itemsize, blocksize int) error {
	if itemsize < 1 || itemsize > 1<<20 {
		return errConfig(id, "itemsize %d", itemsize)
	}
	if blocksize < 0 || blocksize%bshufBlockMult != 0 {
		return errConfig(id, "blocksize %d is not a multiple of %d", blocksize, bshufBlockMult)
	}
	return nil
}

func (c bitshuffleCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "imagecodecs_bitshuffle"
	if len(src) > limit {
		return dst, errTooLarge(id, limit)
	}
	if len(src)%c.itemsize != 0 {
		return dst, errCorrupt(id, "%d bytes are not whole %d-byte elements", len(src), c.itemsize)
	}
	start := len(dst)
	dst = grow(dst, len(src))[:start+len(src)]
	out := dst[start:]
	block := c.blocksize
	if block == 0 {
		block = bshufDefaultBlock(c.itemsize)
	}
	blockBytes := block * c.itemsize
	off := 0
	for ; len(src)-off >= blockBytes; off += blockBytes {
		_ = shuffle.BitUnshuffle(out[off:off+blockBytes], src[off:off+blockBytes], c.itemsize)
	}
	last := (len(src) - off) / c.itemsize
	last -= last % bshufBlockMult
	if n := last * c.itemsize; n > 0 {
		_ = shuffle.BitUnshuffle(out[off:off+n], src[off:off+n], c.itemsize)
		off += n
	}
	copy(out[off:], src[off:])
	return dst, nil
}

// bitshuffleLZ4Codec undoes the bitshuffle HDF5 filter with LZ4: a header
// (the decoded size, 8 bytes, and the block size in bytes, 4, big-endian),
// then each block's bitshuffled elements as one LZ4 block after its
// compressed size (4 bytes, big-endian), then the last elements that fill no
// multiple of 8, as they are.
type bitshuffleLZ4Codec struct{ itemsize int }

func newBitshuffleLZ4(config []byte) (Codec, error) {
	itemsize, _, err := bitshuffleParams("hdf5_bitshuffle_lz4", config, false)
	if err != nil {
		return nil, err
	}
	return bitshuffleLZ4Codec{itemsize}, nil
}

func (c bitshuffleLZ4Codec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "hdf5_bitshuffle_lz4"
	n, blockBytes, err := pluginHeader(id, src, limit)
	if err != nil {
		return dst, err
	}
	if n%c.itemsize != 0 || blockBytes%c.itemsize != 0 || (blockBytes/c.itemsize)%bshufBlockMult != 0 || (blockBytes == 0 && n > 0) {
		return dst, errCorrupt(id, "%d bytes in blocks of %d bytes are not whole blocks of 8 %d-byte elements", n, blockBytes, c.itemsize)
	}
	start := len(dst)
	dst = grow(dst, n)[:start+n]
	out := dst[start:]
	tail := (n / c.itemsize % bshufBlockMult) * c.itemsize
	var tmp []byte
	pos, off := 12, 0
	for off < n-tail {
		size := min(blockBytes, n-tail-off)
		if len(src)-pos < 4 {
			return dst[:start], errCorrupt(id, "input ends before the block at byte %d of the output", off)
		}
		csize := int(binary.BigEndian.Uint32(src[pos:]))
		pos += 4
		if csize > len(src)-pos {
			return dst[:start], errCorrupt(id, "block of %d bytes past the end of the input", csize)
		}
		if cap(tmp) < size {
			tmp = make([]byte, blockBytes)
		}
		tmp = tmp[:size]
		got, err := lz4.UncompressBlock(src[pos:pos+csize], tmp)
		if err != nil {
			return dst[:start], wrapCorrupt(id, err)
		}
		if got != size {
			return dst[:start], errCorrupt(id, "block decoded to %d bytes, want %d", got, size)
		}
		_ = shuffle.BitUnshuffle(out[off:off+size], tmp, c.itemsize)
		pos += csize
		off += size
	}
	if len(src)-pos != tail {
		return dst[:start], errCorrupt(id, "%d bytes after the blocks, want the %d of the last elements", len(src)-pos, tail)
	}
	copy(out[off:], src[pos:])
	return dst, nil
}

// MaxEncodedLen bounds the framing: blocks of at least 8 bytes, each at
// most LZ4's bound plus its 4-byte size.
func (bitshuffleLZ4Codec) MaxEncodedLen(n int) int { return 12 + 4*n + 64 }

// lz4H5Codec decodes the HDF5-LZ4 filter's framing (imagecodecs' LZ4H5): the
// decoded size (8 bytes) and the block size (4 bytes), big-endian, then each
// block as its compressed size (4 bytes, big-endian) and one LZ4 block; a
// block whose compressed size equals its size is stored as it is.
type lz4H5Codec struct{}

func (lz4H5Codec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "imagecodecs_lz4h5"
	n, block, err := pluginHeader(id, src, limit)
	if err != nil {
		return dst, err
	}
	if block == 0 && n > 0 {
		return dst, errCorrupt(id, "block size 0")
	}
	start := len(dst)
	dst = grow(dst, n)[:start+n]
	out := dst[start:]
	pos := 12
	for off := 0; off < n; {
		size := min(block, n-off)
		if len(src)-pos < 4 {
			return dst[:start], errCorrupt(id, "input ends before the block at byte %d of the output", off)
		}
		csize := int(binary.BigEndian.Uint32(src[pos:]))
		pos += 4
		if csize > len(src)-pos {
			return dst[:start], errCorrupt(id, "block of %d bytes past the end of the input", csize)
		}
		if csize == size {
			copy(out[off:off+size], src[pos:pos+csize])
		} else {
			got, err := lz4.UncompressBlock(src[pos:pos+csize], out[off:off+size])
			if err != nil {
				return dst[:start], wrapCorrupt(id, err)
			}
			if got != size {
				return dst[:start], errCorrupt(id, "block decoded to %d bytes, want %d", got, size)
			}
		}
		pos += csize
		off += size
	}
	return dst, nil
}

// MaxEncodedLen bounds the framing: each block is at most its size (stored)
// plus its 4-byte size, and blocks are at least a byte.
func (lz4H5Codec) MaxEncodedLen(n int) int { return 12 + 5*n + 64 }

// pluginHeader reads the 12-byte header the bitshuffle and HDF5-LZ4 filters
// both begin with: the decoded size (big-endian uint64, at most limit) and
// the block size in bytes (big-endian uint32).
func pluginHeader(id string, src []byte, limit int) (n, block int, err error) {
	if len(src) < 12 {
		return 0, 0, errCorrupt(id, "input of %d bytes has no header", len(src))
	}
	total := binary.BigEndian.Uint64(src)
	if total > uint64(max(limit, 0)) {
		return 0, 0, errTooLarge(id, limit)
	}
	return int(total), int(binary.BigEndian.Uint32(src[8:])), nil
}
