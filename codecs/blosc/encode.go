package blosc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/lindigo/lindi/codecs/internal/compress"
	"github.com/lindigo/lindi/codecs/internal/shuffle"
)

// ErrOptions is wrapped by Encode's errors for Options it cannot honour.
// Options that c-blosc could write but this package does not (blosclz,
// snappy, bit shuffle) also wrap ErrUnsupported.
var ErrOptions = errors.New("blosc: invalid encoding options")

// Options say how Encode writes a chunk, with the meaning numcodecs' Blosc
// codec gives its configuration.
type Options struct {
	// Compressor is the inner compressor: "lz4", "lz4hc", "zlib" or "zstd".
	Compressor string
	// Level is the compression level, 0 (store) to 9.
	Level int
	// Shuffle is 0 for none, 1 for byte shuffle, or -1 (numcodecs'
	// AUTOSHUFFLE), which means byte shuffle. Bit shuffle (2) is not written.
	Shuffle int
	// TypeSize is the element size in bytes; sizes above 255 are written
	// as 1, as c-blosc does.
	TypeSize int
	// BlockSize forces the block size; 0 lets Encode choose as c-blosc does.
	BlockSize int
}

// innerCompressor describes one compressor Encode can write.
type innerCompressor struct {
	code int  // header code
	hcr  bool // c-blosc's "high compression ratio" codecs get larger blocks
}

var innerCompressors = map[string]innerCompressor{
	"lz4":   {code: codeLZ4},
	"lz4hc": {code: codeLZ4, hcr: true},
	"zlib":  {code: codeZlib, hcr: true},
	"zstd":  {code: codeZstd, hcr: true},
}

// Check reports whether Encode can write chunks with o, without data.
func (o Options) Check() error {
	if _, ok := innerCompressors[o.Compressor]; !ok {
		switch o.Compressor {
		case "blosclz", "snappy":
			return fmt.Errorf("%w: %w: compressor %q is read but not written", ErrOptions, ErrUnsupported, o.Compressor)
		}
		return fmt.Errorf("%w: unknown compressor %q", ErrOptions, o.Compressor)
	}
	switch {
	case o.Level < 0 || o.Level > 9:
		return fmt.Errorf("%w: clevel %d (want 0 to 9)", ErrOptions, o.Level)
	case o.Shuffle == 2:
		return fmt.Errorf("%w: %w: bit shuffle is read but not written", ErrOptions, ErrUnsupported)
	case o.Shuffle < -1 || o.Shuffle > 2:
		return fmt.Errorf("%w: shuffle %d (want -1, 0 or 1)", ErrOptions, o.Shuffle)
	case o.TypeSize < 1:
		return fmt.Errorf("%w: typesize %d (want 1 or more)", ErrOptions, o.TypeSize)
	case o.BlockSize < 0 || o.BlockSize > maxBlockSize:
		return fmt.Errorf("%w: blocksize %d (want 0 to %d)", ErrOptions, o.BlockSize, maxBlockSize)
	}
	return nil
}

// Encode appends the blosc chunk of src written with o to dst and returns
// the extended slice. The chunk follows c-blosc 1.x's rules, so that
// c-blosc (numcodecs) and Decode read it: blocks of the size c-blosc
// chooses, split into one stream per byte of the element where c-blosc
// splits, each stream stored raw when compression does not shrink it, and
// the whole chunk stored uncompressed ("memcpyed") at level 0, below 128
// bytes, or when compression would make it larger than the data plus the
// header. Encode runs on the calling goroutine.
//
// Inputs beyond 2^31-17 bytes fail with ErrTooLarge; bad options with
// ErrOptions. On error dst is returned unchanged.
func Encode(dst, src []byte, o Options) ([]byte, error) {
	if err := o.Check(); err != nil {
		return dst, err
	}
	if len(src) > maxSize {
		return dst, fmt.Errorf("%w: %d bytes to encode, blosc's maximum is %d", ErrTooLarge, len(src), maxSize)
	}
	e := newEncoding(src, o)
	start := len(dst)
	out := slices.Grow(dst, len(src)+HeaderSize)
	if e.flags&FlagMemcpyed == 0 {
		if frame, ok := e.compress(out[start : start : start+len(src)+HeaderSize]); ok {
			return out[:start+len(frame)], nil
		}
		e.flags |= FlagMemcpyed
	}
	out = e.header(out)
	binary.LittleEndian.PutUint32(out[start+12:], uint32(len(src)+HeaderSize))
	return append(out, src...), nil
}

// encoding is one Encode call's plan.
type encoding struct {
	src       []byte
	inner     innerCompressor
	level     int
	name      string
	typesize  int
	blocksize int
	flags     byte
	split     bool
}

func newEncoding(src []byte, o Options) encoding {
	e := encoding{src: src, inner: innerCompressors[o.Compressor], level: o.Level, name: o.Compressor, typesize: o.TypeSize}
	if e.typesize > maxTypesize {
		e.typesize = 1
	}
	e.blocksize = e.computeBlocksize(o.BlockSize)
	if o.Shuffle != 0 {
		e.flags |= FlagShuffle
	}
	e.split = e.splits(e.blocksize)
	if !e.split {
		e.flags |= FlagDontSplit
	}
	e.flags |= byte(e.inner.code) << 5
	if o.Level == 0 || len(src) < minBufferSize {
		e.flags |= FlagMemcpyed
	}
	return e
}

// splits is c-blosc's split_block in its default FORWARD_COMPAT mode.
func (e *encoding) splits(blocksize int) bool {
	return e.inner.code != codeZstd && e.typesize <= maxSplits && blocksize/e.typesize >= minBufferSize
}

// l1 is the cache size c-blosc's block size heuristics start from.
const l1 = 32 << 10

// computeBlocksize is c-blosc 1.21's compute_blocksize.
func (e *encoding) computeBlocksize(forced int) int {
	nbytes, ts := len(e.src), e.typesize
	if nbytes < ts {
		return 1
	}
	bs := nbytes
	switch {
	case forced > 0:
		bs = max(forced, minBufferSize)
	case nbytes >= l1:
		bs = l1
		if e.inner.hcr {
			bs *= 2
		}
		bs = bs * [10]int{1, 2, 4, 8, 16, 16, 32, 32, 32, 32}[e.level] / 4
		if e.level == 9 && e.inner.hcr {
			bs *= 2
		}
	}
	if e.level > 0 && e.splits(bs) {
		bs = min(bs, 1<<18) * ts
		bs = min(max(bs, 1<<16), 1<<20)
	}
	bs = min(bs, nbytes)
	if bs > ts {
		bs = bs / ts * ts
	}
	return bs
}

// header appends the 16-byte header, cbytes left zero.
func (e *encoding) header(out []byte) []byte {
	var h [HeaderSize]byte
	h[0], h[1], h[2], h[3] = formatVersion, 1, e.flags, byte(e.typesize)
	binary.LittleEndian.PutUint32(h[4:], uint32(len(e.src)))
	binary.LittleEndian.PutUint32(h[8:], uint32(e.blocksize))
	return append(out, h[:]...)
}

// compress writes the compressed chunk into out (empty, with the capacity
// of the largest chunk worth writing: nbytes+16) and returns it, or false
// when the chunk does not fit and must be stored memcpyed.
func (e *encoding) compress(out []byte) ([]byte, bool) {
	nblocks := (len(e.src) + e.blocksize - 1) / e.blocksize
	budget := cap(out)
	if HeaderSize+4*nblocks > budget {
		return nil, false
	}
	out = e.header(out)
	out = out[:HeaderSize+4*nblocks]
	s := getEncodeScratch(e)
	defer putEncodeScratch(s)
	for j := range nblocks {
		binary.LittleEndian.PutUint32(out[HeaderSize+4*j:], uint32(len(out)))
		block := e.src[j*e.blocksize : min((j+1)*e.blocksize, len(e.src))]
		var ok bool
		if out, ok = e.block(out, block, len(block) < e.blocksize, s); !ok {
			return nil, false
		}
	}
	binary.LittleEndian.PutUint32(out[12:], uint32(len(out)))
	return out, true
}

// block appends the streams of one block to out, within cap(out).
func (e *encoding) block(out, block []byte, leftover bool, s *scratchBufs) ([]byte, bool) {
	ts := e.typesize
	data := block
	if e.flags&FlagShuffle != 0 && ts > 1 {
		data = s.shuffled[:len(block)]
		shuffle.Shuffle(data, block, ts)
	}
	nsplits := 1
	if e.split && !leftover {
		nsplits = ts
	}
	neblock := len(block) / nsplits
	for k := range nsplits {
		stream := data[k*neblock : (k+1)*neblock]
		if cap(out)-len(out) < 4 {
			return nil, false
		}
		pos := len(out) + 4
		room := min(neblock, cap(out)-pos)
		n := e.stream(out[pos:pos+room], stream, s)
		if n == 0 || n >= neblock {
			if room < neblock {
				return nil, false
			}
			n = copy(out[pos:pos+neblock], stream)
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(n))
		out = out[:pos+n]
	}
	return out, true
}

// stream compresses src into dst and returns the compressed length, or 0
// when it does not fit dst.
func (e *encoding) stream(dst, src []byte, s *scratchBufs) int {
	switch e.name {
	case "lz4":
		return compress.LZ4Block(dst, src, 10-e.level)
	case "lz4hc":
		return compress.LZ4HCBlock(dst, src, e.level)
	}
	var z []byte
	var err error
	if e.name == "zlib" {
		z, err = compress.Zlib(s.packed[:0], src, e.level)
	} else {
		z, err = compress.Zstd(s.packed[:0], src, zstdLevel(e.level))
	}
	s.packed = z[:0]
	if err != nil || len(z) > len(dst) {
		return 0
	}
	return copy(dst, z)
}

// zstdLevel is the zstd level c-blosc 1.x uses for clevel.
func zstdLevel(clevel int) int {
	if clevel < 9 {
		return 2*clevel - 1
	}
	return compress.MaxZstdLevel
}

// scratchBufs are one Encode call's working buffers: the shuffled block
// and the output of the stream compressors that cannot write in place.
type scratchBufs struct {
	shuffled []byte
	packed   []byte
}

var encodeScratch = sync.Pool{New: func() any { return new(scratchBufs) }}

func getEncodeScratch(e *encoding) *scratchBufs {
	s := encodeScratch.Get().(*scratchBufs)
	if e.flags&FlagShuffle != 0 && cap(s.shuffled) < e.blocksize {
		s.shuffled = make([]byte, e.blocksize)
	}
	return s
}

func putEncodeScratch(s *scratchBufs) {
	if cap(s.shuffled) > maxPooled {
		s.shuffled = nil
	}
	if cap(s.packed) > maxPooled {
		s.packed = nil
	}
	encodeScratch.Put(s)
}
