package blosc

import (
	"bytes"
	"fmt"
	"io"

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
	br := bytes.NewReader(src)
	defer br.Reset(nil) // the pooled reader must not keep src alive
	zr, err := inflate.Zlib(br)
	if err != nil {
		return err
	}
	defer inflate.PutZlib(zr)
	if _, err := io.ReadFull(zr, dst); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return fmt.Errorf("stream shorter than %d bytes", len(dst))
		}
		return err
	}
	// Reading past the end checks the Adler-32 and that nothing is left.
	var one [1]byte
	if n, err := zr.Read(one[:]); n != 0 || err != io.EOF {
		if err != nil && err != io.EOF {
			return err
		}
		return fmt.Errorf("stream longer than %d bytes", len(dst))
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
