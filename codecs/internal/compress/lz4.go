package compress

import (
	"sync"

	"github.com/pierrec/lz4/v4"
)

var (
	lz4Fast = sync.Pool{New: func() any { return new(lz4.CompressorCCompat) }}
	lz4HC   = sync.Pool{New: func() any { return new(lz4.CompressorHC) }}
)

// LZ4BlockBound is the size of a buffer that any LZ4 block of n input
// bytes fits in.
func LZ4BlockBound(n int) int { return lz4.CompressBlockBound(n) }

// LZ4Block compresses src into dst as one raw LZ4 block, the way
// LZ4_compress_fast does with acceleration (values below 1 mean 1). It
// returns the block's length, or 0 when the block does not fit in dst; a
// dst of LZ4BlockBound(len(src)) bytes always fits.
func LZ4Block(dst, src []byte, acceleration int) int {
	c := lz4Fast.Get().(*lz4.CompressorCCompat)
	c.Acceleration = acceleration
	n, err := c.CompressBlock(src, dst)
	lz4Fast.Put(c)
	if err != nil {
		return 0
	}
	return n
}

// LZ4HCBlock compresses src into dst as one raw LZ4 block with the high
// compression search at level 1 to 9 (LZ4HC's levels; others are clamped).
// It returns 0 when the block does not fit in dst, as LZ4Block does.
func LZ4HCBlock(dst, src []byte, level int) int {
	level = min(max(level, 1), 9)
	c := lz4HC.Get().(*lz4.CompressorHC)
	c.Level = lz4.CompressionLevel(1 << (8 + level)) // lz4.Level1 ... lz4.Level9
	n, err := c.CompressBlock(src, dst)
	lz4HC.Put(c)
	if err != nil {
		return 0
	}
	return n
}
