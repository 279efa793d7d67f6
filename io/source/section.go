package source

import (
	"context"
	"fmt"
	"io"
)

// Section is the Source of n bytes at off in another source, e.g. a member
// of a tar file. Reads past its end return io.EOF; it never reads outside
// [off, off+n) of the source beneath.
type Section struct {
	src    Source
	off, n int64
	name   string
}

// NewSection returns the section [off, off+n) of src, named name in errors
// (src's name when name is empty).
func NewSection(src Source, off, n int64, name string) (*Section, error) {
	if off < 0 || n < 0 || off > 1<<62 || n > 1<<62 {
		return nil, fmt.Errorf("%w: section of %s: offset %d, length %d", ErrRange, src.Name(), off, n)
	}
	if name == "" {
		name = src.Name()
	}
	return &Section{src: src, off: off, n: n, name: name}, nil
}

// ReadAt reads from the section; off is relative to its start.
func (s *Section) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%w: %s: offset %d", ErrRange, s.name, off)
	}
	if off >= s.n {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	short := false
	if rest := s.n - off; int64(len(p)) > rest {
		p, short = p[:rest], true
	}
	n, err := s.src.ReadAt(ctx, p, s.off+off)
	if err == nil && short {
		err = io.EOF
	}
	return n, err
}

// Size reports the length of the section.
func (s *Section) Size(ctx context.Context) (int64, error) { return s.n, nil }

// Name reports the section's name.
func (s *Section) Name() string { return s.name }

// Stats reports the statistics of the source beneath, if it keeps any.
func (s *Section) Stats() Stats {
	if r, ok := s.src.(Reporter); ok {
		return r.Stats()
	}
	return Stats{}
}

// Close does nothing: the source beneath belongs to the caller.
func (s *Section) Close() error { return nil }
