package hdf5

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/layout"
)

// readChunked assembles a whole chunked dataset through its chunk index,
// decoding deflate and shuffle with the standard library (the codecs
// package is the engine's business; this checks the index and filters).
func readChunked(ctx context.Context, ds *Dataset) ([]byte, error) {
	idx, err := ds.layout.Index(ctx, ds.f.r, ds.space.Dims, ds.space.MaxDims)
	if err != nil {
		return nil, err
	}
	entries, err := idx.All(ctx)
	if err != nil {
		return nil, err
	}
	size := int(ds.Datatype().Size)
	shape, chunk := ds.Shape(), ds.Chunks()
	out := ds.fillBytes(ds.Space().NumElements() * uint64(size))
	chunkElems := 1
	for _, c := range chunk {
		chunkElems *= int(c)
	}
	for _, e := range entries {
		stored := make([]byte, e.Size)
		if _, err := ds.File().Source().ReadAt(ctx, stored, int64(ds.File().Base()+e.Addr)); err != nil {
			return nil, err
		}
		data, err := unfilter(stored, ds.filters, e.FilterMask, size)
		if err != nil {
			return nil, fmt.Errorf("chunk %v: %w", e.Coords, err)
		}
		if len(data) != chunkElems*size {
			return nil, fmt.Errorf("chunk %v: %d bytes, want %d", e.Coords, len(data), chunkElems*size)
		}
		scatter(out, data, shape, chunk, e.Coords, size)
	}
	return out, nil
}

// unfilter undoes the pipeline in reverse, skipping masked filters.
func unfilter(b []byte, filters []layout.Filter, mask uint32, size int) ([]byte, error) {
	for i := len(filters) - 1; i >= 0; i-- {
		if mask&(1<<i) != 0 {
			continue
		}
		switch filters[i].ID {
		case layout.FilterDeflate:
			zr, err := zlib.NewReader(bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			if b, err = io.ReadAll(zr); err != nil {
				return nil, err
			}
		case layout.FilterShuffle:
			u := make([]byte, len(b))
			n := len(b) / size
			for j := range n * size {
				u[(j%n)*size+j/n] = b[j]
			}
			copy(u[n*size:], b[n*size:])
			b = u
		default:
			return nil, fmt.Errorf("filter %d not handled by the test", filters[i].ID)
		}
	}
	return b, nil
}

// scatter copies a chunk into a C-order array, clipping at the edges.
func scatter(out, data []byte, shape, chunk []uint64, coords []int, size int) {
	rank := len(shape)
	pos := make([]uint64, rank) // position inside the chunk
	for k := 0; k < len(data)/size; k++ {
		inside, dst := true, uint64(0)
		for d := range rank {
			g := uint64(coords[d])*chunk[d] + pos[d]
			if g >= shape[d] {
				inside = false
			}
			dst = dst*shape[d] + g
		}
		if inside {
			copy(out[dst*uint64(size):], data[k*size:(k+1)*size])
		}
		for d := rank - 1; d >= 0; d-- {
			if pos[d]++; pos[d] < chunk[d] {
				break
			}
			pos[d] = 0
		}
	}
}

// TestChunkedValues reads every chunked dataset a whole-dataset case
// covers through Index and compares with the expected values.
func TestChunkedValues(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		f := openBytes(t, name, readFixture(t, name))
		checked := map[layout.IndexType]int{}
		for _, c := range wholeCases(t, name) {
			ds, err := f.Dataset(ctx, c.Dataset)
			if err != nil {
				t.Fatal(err)
			}
			if ds.layout.Class != layout.Chunked {
				continue
			}
			checked[ds.layout.IndexType]++
			t.Run(name+"/"+c.ID+"/"+c.Dataset, func(t *testing.T) {
				raw, err := readChunked(ctx, ds)
				if err != nil {
					t.Fatal(err)
				}
				got, err := f.decodeElements(ctx, ds.Datatype(), raw, int(ds.Space().NumElements()))
				if err != nil {
					t.Fatal(err)
				}
				want := readNPY(t, filepath.Join(conformance, c.Expected)).values(t)
				if !sameElements(got, want) {
					t.Errorf("values differ from %s", c.Expected)
				}
			})
		}
		t.Logf("%s: chunked datasets checked by index type: %v", name, checked)
		if len(checked) == 0 {
			t.Errorf("%s: no chunked dataset checked", name)
		}
	}
}
