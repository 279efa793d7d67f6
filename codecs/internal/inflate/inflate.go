package inflate

import (
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
)

// zlibReaders pools zlib readers.
var zlibReaders sync.Pool

// Zlib returns a reader of the zlib stream in r, taken from a pool; it has
// read and checked the stream header. When r is an io.ByteReader (such as a
// *bytes.Reader) nothing past the stream is consumed. Reading to the end
// verifies the Adler-32 trailer. Return the reader with PutZlib when done,
// after an error too; it must not be used afterwards.
func Zlib(r io.Reader) (io.ReadCloser, error) {
	if zr, ok := zlibReaders.Get().(io.ReadCloser); ok {
		if err := zr.(zlib.Resetter).Reset(r, nil); err != nil {
			zlibReaders.Put(zr)
			return nil, err
		}
		return zr, nil
	}
	return zlib.NewReader(r)
}

// PutZlib returns a reader obtained from Zlib to the pool.
func PutZlib(zr io.ReadCloser) { zlibReaders.Put(zr) }

// gzipReaders pools gzip readers.
var gzipReaders sync.Pool

// Gzip returns a gzip reader from a pool, reading nothing until its Reset
// is called. Return it with PutGzip when done, after an error too; it must
// not be used afterwards.
func Gzip() *gzip.Reader {
	if zr, ok := gzipReaders.Get().(*gzip.Reader); ok {
		return zr
	}
	return new(gzip.Reader)
}

// PutGzip returns a reader obtained from Gzip to the pool.
func PutGzip(zr *gzip.Reader) { gzipReaders.Put(zr) }
