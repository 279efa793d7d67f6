package engine

import (
	"context"

	"github.com/lindigo/lindi/selection"
)

// Sizer is implemented by a Locator that tells a chunk's stored size
// without reading the chunk and without a request of its own for it: from
// an HDF5 chunk index, LINDI refs, or a local file's size. Missing chunks
// are 0 bytes. known is false when the size needs I/O per chunk (a remote
// Zarr store's objects, a Zarr v3 shard's index).
type Sizer interface {
	ChunkSize(ctx context.Context, coords []int) (n int64, known bool, err error)
}

// StoredSize returns the sum of the stored (encoded) sizes of c's chunks,
// and false when c's Locator cannot tell them without I/O per chunk (it
// is no Sizer, or it says so of a chunk).
func StoredSize(ctx context.Context, c *Chunked) (int64, bool, error) {
	s, ok := c.Locator.(Sizer)
	if !ok {
		return 0, false, nil
	}
	counts := make([]int, len(c.Shape))
	for i, n := range c.Shape {
		if n == 0 {
			return 0, true, nil
		}
		counts[i] = (n + c.Chunks[i] - 1) / c.Chunks[i]
	}
	coords := make([]int, len(counts))
	var total int64
	for k := 0; ; k++ {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
		}
		n, known, err := s.ChunkSize(ctx, coords)
		if err != nil || !known {
			return 0, false, err
		}
		total += n
		if !selection.NextCoords(coords, counts) {
			return total, true, nil
		}
	}
}
