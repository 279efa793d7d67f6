package blosc

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/snappy"
	"github.com/pierrec/lz4/v4"

	"github.com/lindigo/lindi/codecs/internal/inflate"
	"github.com/lindigo/lindi/codecs/internal/zstdec"
)

// decodeStream decodes one compressed stream of src into dst, which is
// exactly the stream's decoded size, with the compressor named by code
// (already validated). Its errors name what went wrong, not where.
func decodeStream(code int, dst, src []byte) error {
	switch code {
	case codeBlosclz:
		return blosclzDecode(dst, src)
	case codeLZ4:
		return lz4Decode(dst, src)
	case codeSnappy:
		return snappyDecode(dst, src)
	case codeZlib:
		return zlibDecode(dst, src)
	case codeZstd:
		return zstdDecode(dst, src)
	}
	return fmt.Errorf("compressor code %d", code)
}

func lz4Decode(dst, src []byte) error {
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return err
	}
	if n != len(dst) {
		return fmt.Errorf("decoded %d bytes, want %d", n, len(dst))
	}
	return nil
}

func snappyDecode(dst, src []byte) error {
	if len(dst) == 0 {
		return fmt.Errorf("empty stream")
	}
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return err
	}
	if n != len(dst) {
		return fmt.Errorf("stream holds %d bytes, want %d", n, len(dst))
	}
	out, err := snappy.Decode(dst, src)
	if err != nil {
		return err
	}
	if &out[0] != &dst[0] { // snappy decodes in place when dst is large enough
		copy(dst, out)
	}
	return nil
}

func zlibDecode(dst, src []byte) error {
	out, err := inflate.Zlib(dst[:0], src, len(dst))
	switch {
	case errors.Is(err, inflate.ErrTooLarge):
		return fmt.Errorf("stream longer than %d bytes", len(dst))
	case err != nil:
		return err
	case len(out) != len(dst):
		return fmt.Errorf("stream of %d bytes, want %d", len(out), len(dst))
	}
	return nil
}

// zstdDecode decodes into exactly dst: the capacity limit makes the shared
// decoder refuse a hostile frame instead of allocating for it.
func zstdDecode(dst, src []byte) error {
	out, err := zstdec.DecodeAll(dst[:0:len(dst)], src)
	if err != nil {
		return err
	}
	if len(out) != len(dst) {
		return fmt.Errorf("decoded %d bytes, want %d", len(out), len(dst))
	}
	return nil
}
