package engine

import (
	"context"

	"github.com/lindigo/lindi/selection"
)

// StoredSizes returns the number of stored bytes of each chunk of plans, in
// order, located as a read locates a batch (concurrently, prepared): 0 for a
// missing chunk, the length of the inline bytes for a chunk held in memory,
// the bytes a chunk made when read (a virtual dataset's) holds.
// Callers pass batches of a few thousand chunks, as reads do.
func StoredSizes(ctx context.Context, a *Chunked, plans []*selection.ChunkPlan) ([]int64, error) {
	jobs, err := locate(ctx, a, plans)
	if err != nil {
		return nil, err
	}
	sizes := make([]int64, len(jobs))
	for i, j := range jobs {
		switch c := j.chunk; {
		case c.Missing:
		case c.Make != nil: // made when read: as many bytes as it holds
			sizes[i] = int64(a.chunkLen() * a.ItemSize)
		case c.Src == nil:
			sizes[i] = int64(len(c.Data))
		default:
			sizes[i] = c.Len
		}
	}
	return sizes, nil
}

// BatchChunks is how many chunks a read locates at once, the size of the
// batches StoredSizes is meant for.
const BatchChunks = batchChunks
