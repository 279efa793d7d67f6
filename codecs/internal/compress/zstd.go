package compress

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Zstd levels as libzstd numbers them: negative levels are its fast modes,
// 0 means the default 3, 22 is the maximum.
const (
	MinZstdLevel = -131072 // ZSTD_minCLevel
	MaxZstdLevel = 22      // ZSTD_maxCLevel
)

// CheckZstdLevel reports whether level is a libzstd level, with an error
// wrapping ErrLevel if not.
func CheckZstdLevel(level int) error {
	if level < MinZstdLevel || level > MaxZstdLevel {
		return fmt.Errorf("%w: zstd level %d (want %d to %d)", ErrLevel, level, MinZstdLevel, MaxZstdLevel)
	}
	return nil
}

// zstdEncoders holds one shared encoder per klauspost speed and frame kind,
// built on first use. EncodeAll is safe for concurrent use.
var zstdEncoders [5][2]func() (*zstd.Encoder, error)

func init() {
	for l := zstd.SpeedFastest; l <= zstd.SpeedBestCompression; l++ {
		for single := range 2 {
			zstdEncoders[l][single] = sync.OnceValues(func() (*zstd.Encoder, error) {
				return zstd.NewWriter(nil,
					zstd.WithEncoderLevel(l),
					zstd.WithEncoderCRC(false), // as numcodecs writes
					// Entropy-code literals even in blocks without matches:
					// noisy samples have few matches but skewed bytes, and
					// the fast levels would otherwise store them raw (36000
					// bytes of ephys int16 stayed 36010 at level 1, 25711
					// with it; libzstd gives 25712).
					zstd.WithAllLitEntropyCompression(true),
					zstd.WithZeroFrames(true),
					zstd.WithSingleSegment(single == 1))
			})
		}
	}
}

// singleSegmentBelow is klauspost's MinWindowSize: EncodeAll writes
// shorter inputs as multi-segment frames, which omit the content size when
// it is under 256 bytes, so they go to a single-segment encoder instead.
const singleSegmentBelow = 1 << 10

// Zstd appends one zstd frame of src at a libzstd level to dst. The frame
// always declares its content size (numcodecs 0.11 cannot decode frames
// that do not) and carries no checksum. Empty input gives a frame of an
// empty raw block, as libzstd writes it.
func Zstd(dst, src []byte, level int) ([]byte, error) {
	if err := CheckZstdLevel(level); err != nil {
		return dst, err
	}
	if level == 0 {
		level = 3
	}
	single := 0
	if len(src) < singleSegmentBelow {
		single = 1
	}
	enc, err := zstdEncoders[zstd.EncoderLevelFromZstd(level)][single]()
	if err != nil {
		return dst, err
	}
	return enc.EncodeAll(src, dst), nil
}
