package source

import (
	"context"
	"fmt"
	"io"
)

// Reader is a Source over an io.ReaderAt of known size: an object the caller
// already holds (an S3 SDK object, a file opened elsewhere, a blob in
// memory). It is as safe for concurrent use as the io.ReaderAt.
type Reader struct {
	r     io.ReaderAt
	size  int64
	name  string
	stats Counters
}

// NewReader returns a Source reading size bytes of r, named name in errors.
// It fails if size is negative.
func NewReader(name string, r io.ReaderAt, size int64) (*Reader, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: %s: nil io.ReaderAt", ErrRange, name)
	}
	if size < 0 {
		return nil, fmt.Errorf("%w: %s: size %d", ErrRange, name, size)
	}
	return &Reader{r: r, size: size, name: name}, nil
}

// ReadAt reads len(p) bytes at off, never past the size given to
// NewReader; it returns io.EOF when fewer bytes remain.
func (s *Reader) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, fmt.Errorf("%w: %s: offset %d", ErrRange, s.name, off)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off >= s.size {
		return 0, io.EOF
	}
	want := p
	if rest := s.size - off; int64(len(p)) > rest {
		want = p[:rest]
	}
	n, err := s.r.ReadAt(want, off)
	s.stats.add(1, int64(n), 0)
	if n == len(want) {
		err = nil
		if n < len(p) {
			err = io.EOF
		}
	} else if err == nil || err == io.EOF {
		err = fmt.Errorf("source: %s: %w: read %d of %d bytes at %d within the size given", s.name, io.ErrUnexpectedEOF, n, len(want), off)
	} else {
		err = fmt.Errorf("source: %s: %w", s.name, err)
	}
	return n, err
}

// Size reports the size given to NewReader.
func (s *Reader) Size(context.Context) (int64, error) { return s.size, nil }

// Name reports the name given to NewReader.
func (s *Reader) Name() string { return s.name }

// Stats reports the reads made so far.
func (s *Reader) Stats() Stats { return s.stats.Snapshot() }
