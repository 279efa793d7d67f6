package blosc

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/lindigo/lindi/codecs/internal/shuffle"
	"golang.org/x/sync/errgroup"
)

// parallelMin is the decoded chunk size from which Decode spreads blocks
// over goroutines. Measured with lz4+shuffle and 64 KiB blocks on 2 cores
// (BenchmarkDecodeParallel): parallel breaks even at 256 KiB and is 1.35x
// faster at 512 KiB, 1.6x at 1 MiB, 1.9x at 4 MiB. A variable so that
// benchmarks can move it.
var parallelMin = 512 << 10

// Decode decodes the blosc chunk at the start of src and appends the
// decoded bytes to dst, returning the extended slice. Bytes after the
// chunk's cbytes are ignored (some writers pad chunks).
//
// A chunk whose header claims more than limit decoded bytes fails with
// ErrTooLarge before anything is allocated. On error Decode returns dst
// unchanged in length, though bytes past its length may have been written.
func Decode(dst, src []byte, limit int) ([]byte, error) {
	if len(src) >= HeaderSize {
		// Checked on the raw field, before ParseHeader's own checks, so
		// that an oversized chunk is reported as such on every platform.
		if n := binary.LittleEndian.Uint32(src[4:8]); limit < 0 || uint64(n) > uint64(limit) {
			return dst, fmt.Errorf("%w: chunk decodes to %d bytes, limit %d", ErrTooLarge, n, limit)
		}
	}
	h, err := ParseHeader(src)
	if err != nil {
		return dst, err
	}
	if h.NBytes == 0 {
		return dst, nil
	}
	if err := h.validate(len(src)); err != nil {
		return dst, err
	}
	n := len(dst)
	grown := slices.Grow(dst, h.NBytes)[:n+h.NBytes]
	c := chunk{h: h, src: src[:h.CBytes], out: grown[n:]}
	if h.Memcpyed() {
		copy(c.out, c.src[HeaderSize:])
		return grown, nil
	}
	if err := c.decode(); err != nil {
		return dst, err
	}
	return grown, nil
}

// chunk is one Decode call's view of its input and output.
type chunk struct {
	h   Header
	src []byte // the whole chunk, exactly cbytes long
	out []byte // the decoded chunk, exactly nbytes long
}

// decode decodes every block, in parallel when the chunk is large. Each
// block writes only its own part of c.out.
func (c *chunk) decode() error {
	nblocks := c.h.nblocks()
	workers := min(runtime.GOMAXPROCS(0), nblocks)
	if c.h.NBytes < parallelMin || workers < 2 {
		tmp := c.scratch()
		defer putScratch(tmp)
		for j := range nblocks {
			if err := c.block(j, *tmp); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		g      errgroup.Group
		next   atomic.Int64
		failed atomic.Bool
	)
	for range workers {
		g.Go(func() error {
			tmp := c.scratch()
			defer putScratch(tmp)
			for !failed.Load() {
				j := int(next.Add(1) - 1)
				if j >= nblocks {
					return nil
				}
				if err := c.block(j, *tmp); err != nil {
					failed.Store(true)
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// scratch returns a buffer for the shuffled form of a block: BlockSize
// bytes, or none when the chunk is not shuffled.
func (c *chunk) scratch() *[]byte {
	if c.h.Flags&(FlagShuffle|FlagBitShuffle) == 0 {
		return new([]byte)
	}
	return getScratch(c.h.BlockSize)
}

// block decodes block j into its place in c.out, using tmp (BlockSize
// bytes when the chunk is shuffled) for the shuffled form.
func (c *chunk) block(j int, tmp []byte) error {
	h := c.h
	start := j * h.BlockSize
	bsize := min(h.BlockSize, h.NBytes-start)
	leftover := bsize < h.BlockSize
	dst := c.out[start : start+bsize]
	ts := h.TypeSize

	// The rules below are c-blosc 1.x's blosc_d: byte shuffle needs
	// elements of 2 bytes or more and wins over bit shuffle; bit shuffle
	// needs at least one whole element in the block.
	byteShuffled := h.Flags&FlagShuffle != 0 && ts > 1
	bitShuffled := !byteShuffled && h.Flags&FlagBitShuffle != 0 && bsize >= ts
	streams := dst
	if byteShuffled || bitShuffled {
		streams = tmp[:bsize]
	}

	// A block is split into one stream per byte of the element unless the
	// writer said not to, the element is large, the block holds few
	// elements, or it is the short last block.
	nsplits := 1
	if h.Flags&FlagDontSplit == 0 && ts <= maxSplits && bsize/ts >= minBufferSize && !leftover {
		nsplits = ts
	}
	neblock := bsize / nsplits
	if neblock*nsplits != bsize {
		return fmt.Errorf("%w: block %d of %d bytes does not split into %d streams", ErrCorrupt, j, bsize, nsplits)
	}

	off := int(binary.LittleEndian.Uint32(c.src[HeaderSize+4*j:]))
	for s := range nsplits {
		if off < 0 || off > len(c.src)-4 { // off < 0: a huge offset on 32-bit platforms
			return fmt.Errorf("%w: block %d stream %d starts at %d, past cbytes %d", ErrCorrupt, j, s, off, len(c.src))
		}
		cb := int(binary.LittleEndian.Uint32(c.src[off:]))
		off += 4
		if cb < 0 || cb > len(c.src)-off {
			return fmt.Errorf("%w: block %d stream %d of %d bytes overruns cbytes %d", ErrCorrupt, j, s, cb, len(c.src))
		}
		out := streams[s*neblock : (s+1)*neblock]
		in := c.src[off : off+cb]
		if cb == neblock {
			copy(out, in) // stored raw: compression did not pay
		} else if err := decodeStream(int(h.Flags>>5), out, in); err != nil {
			return fmt.Errorf("%w: block %d stream %d: %s: %v", ErrCorrupt, j, s, h.Compressor(), err)
		}
		off += cb
	}

	switch {
	case byteShuffled:
		shuffle.Unshuffle(dst, streams, ts)
	case bitShuffled:
		if err := shuffle.BitUnshuffle(dst, streams, ts); err != nil {
			return fmt.Errorf("%w: block %d: %v", ErrCorrupt, j, err)
		}
	}
	return nil
}

// scratch recycles per-block buffers between calls. Buffers above
// maxPooled are left to the garbage collector rather than kept alive.
var scratch sync.Pool

const maxPooled = 16 << 20

func getScratch(n int) *[]byte {
	if b, ok := scratch.Get().(*[]byte); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n)
	return &b
}

func putScratch(b *[]byte) {
	if cap(*b) > 0 && cap(*b) <= maxPooled {
		scratch.Put(b)
	}
}
