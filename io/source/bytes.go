package source

import (
	"context"
	"fmt"
	"io"
)

// Bytes is a Source over a byte slice held in memory. It aliases the slice:
// the caller must not modify it while the source is in use.
type Bytes struct {
	b     []byte
	name  string
	stats Counters
}

// NewBytes returns a Source reading b, named name in errors.
func NewBytes(name string, b []byte) *Bytes { return &Bytes{b: b, name: name} }

// ReadAt copies len(p) bytes at off into p; it returns io.EOF when fewer
// bytes remain.
func (s *Bytes) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, fmt.Errorf("%w: %s: offset %d", ErrRange, s.name, off)
	}
	if off >= int64(len(s.b)) {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, s.b[off:])
	s.stats.add(1, int64(n), 0)
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Size reports len of the slice.
func (s *Bytes) Size(ctx context.Context) (int64, error) { return int64(len(s.b)), nil }

// Name reports the name given to NewBytes.
func (s *Bytes) Name() string { return s.name }

// Stats reports the reads made so far.
func (s *Bytes) Stats() Stats { return s.stats.Snapshot() }

// Close does nothing; it lets Bytes stand where an io.Closer is expected.
func (s *Bytes) Close() error { return nil }
