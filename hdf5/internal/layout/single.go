package layout

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// single is the index of a dataset stored as one chunk: the layout holds
// the chunk's address (and, when filtered, its size and filter mask).
type single struct {
	g     *grid
	chunk Chunk
}

func newSingle(r *fileio.Reader, l *Layout, g *grid) (*single, error) {
	c := Chunk{Addr: l.Addr, Size: g.chunkBytes}
	if l.Flags&FlagSingleFiltered != 0 {
		c.Size, c.FilterMask = l.SingleSize, l.SingleMask
	}
	if _, err := r.Abs(c.Addr, c.Size); err != nil {
		return nil, err
	}
	for i, n := range g.n {
		if n > 1 {
			return nil, fmt.Errorf("%w: single-chunk index but %d chunks in dimension %d", ErrCorrupt, n, i)
		}
	}
	return &single{g: g, chunk: c}, nil
}

func (s *single) Lookup(_ context.Context, coords []int) (Chunk, bool, error) {
	if err := s.g.check(coords); err != nil {
		return Chunk{}, false, err
	}
	return s.chunk, true, nil
}

func (s *single) All(context.Context) ([]Entry, error) {
	for _, n := range s.g.n {
		if n == 0 {
			return nil, nil
		}
	}
	return []Entry{{Coords: make([]int, len(s.g.n)), Chunk: s.chunk}}, nil
}
