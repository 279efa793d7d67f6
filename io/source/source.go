package source

import "context"

// Source reads byte ranges of one object: a local file, a URL, a blob in memory.
//
// ReadAt follows the contract of io.ReaderAt with a context: it reads len(p)
// bytes starting at off and returns the number read; when n < len(p) the error
// says why (io.EOF at the end of the object). Implementations are safe for
// concurrent use and stop promptly when ctx is cancelled.
type Source interface {
	ReadAt(ctx context.Context, p []byte, off int64) (n int, err error)
	// Size reports the length of the object in bytes.
	Size(ctx context.Context) (int64, error)
	// Name is the path or URL the source reads, for error messages.
	Name() string
}
