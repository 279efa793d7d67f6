package zstdec

import (
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// MaxMemory caps what a decoder may produce for one call (and the window a
// stream may ask for). Callers pass tighter bounds per call, so it only has
// to admit the largest chunk anyone stores: 16 GiB.
const MaxMemory = 1 << 34

// ErrTooLarge is returned by DecodeAll when the frames would decode past the
// capacity of dst (or past MaxMemory).
var ErrTooLarge = zstd.ErrDecoderSizeExceeded

// shared is the decoder behind DecodeAll.
var shared = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithDecoderMaxMemory(MaxMemory),
		zstd.WithDecodeAllCapLimit(true),
	)
})

// DecodeAll appends the decoding of every frame in src to dst and returns
// the extended slice. It writes nothing past cap(dst): frames that would
// decode further fail with ErrTooLarge, before anything is allocated. Other
// errors mean corrupt input (or, on first use, a decoder that cannot be
// built).
func DecodeAll(dst, src []byte) ([]byte, error) {
	d, err := shared()
	if err != nil {
		return dst, err
	}
	return d.DecodeAll(src, dst)
}

// streams pools the decoders handed out by Reader.
var streams sync.Pool

// Reader returns a streaming decoder reading the frames of r, taken from a
// pool; it decodes synchronously, with little memory. Return it with
// PutReader when done, after an error too; it must not be used afterwards.
func Reader(r io.Reader) (*zstd.Decoder, error) {
	d, _ := streams.Get().(*zstd.Decoder)
	if d == nil {
		var err error
		d, err = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(MaxMemory),
			zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, err
		}
	}
	if err := d.Reset(r); err != nil {
		PutReader(d)
		return nil, err
	}
	return d, nil
}

// PutReader returns a decoder obtained from Reader to the pool, detached
// from its input so the pool keeps nothing alive. A decoder that cannot be
// detached is dropped.
func PutReader(d *zstd.Decoder) {
	if err := d.Reset(nil); err == nil {
		streams.Put(d)
	}
}
