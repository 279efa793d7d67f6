package layout

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// implicit is the index of an unfiltered dataset whose chunks were all
// allocated at creation, one after another in row-major order over the
// maximum chunk grid: chunk i lies at Addr + i × chunk bytes.
type implicit struct {
	g    *grid
	lin  *linear
	addr uint64
}

func newImplicit(r *fileio.Reader, l *Layout, g *grid) (*implicit, error) {
	lin, err := g.linear(g.order(-1))
	if err != nil {
		return nil, err
	}
	if lin.total != 0 && g.chunkBytes > ^uint64(0)/lin.total {
		return nil, fmt.Errorf("%w: %d chunks of %d bytes overflow", ErrCorrupt, lin.total, g.chunkBytes)
	}
	if _, err := r.Abs(l.Addr, lin.total*g.chunkBytes); err != nil {
		return nil, err
	}
	return &implicit{g: g, lin: lin, addr: l.Addr}, nil
}

func (m *implicit) chunk(idx uint64) Chunk {
	return Chunk{Addr: m.addr + idx*m.g.chunkBytes, Size: m.g.chunkBytes}
}

func (m *implicit) Lookup(_ context.Context, coords []int) (Chunk, bool, error) {
	if err := m.g.check(coords); err != nil {
		return Chunk{}, false, err
	}
	return m.chunk(m.lin.index(coords)), true, nil
}

func (m *implicit) All(context.Context) ([]Entry, error) {
	var out []Entry
	for idx := range m.lin.total {
		if c := m.lin.coords(idx); m.g.inside(c) {
			out = append(out, Entry{Coords: toInts(c), Chunk: m.chunk(idx)})
		}
	}
	return out, nil
}
