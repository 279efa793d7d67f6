package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lindigo/lindi/selection"
)

// memArray is a uint16 array whose chunks live in a map, put by Write and
// located by reads (and by Write's read-modify-write).
type memArray struct {
	mu     sync.Mutex
	chunks map[string][]byte
	puts   atomic.Int64
}

func key(c []int) string { return fmt.Sprint(c) }

func (m *memArray) Locate(_ context.Context, c []int) (Chunk, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.chunks[key(c)]
	if !ok {
		return Chunk{Missing: true}, nil
	}
	return Chunk{Data: b}, nil
}

func (m *memArray) put(_ context.Context, c []int, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.chunks[key(c)] = append([]byte(nil), data...) // Put must not retain data
	m.puts.Add(1)
	return nil
}

func u16(b []byte) []uint16 {
	out := make([]uint16, len(b)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

func b16(v []uint16) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(out[2*i:], x)
	}
	return out
}

// TestWriteModel writes random orthogonal selections into an array and
// checks every state against a dense model, reading through the engine.
func TestWriteModel(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		shape := []int{1 + rng.IntN(13), 1 + rng.IntN(11)}
		chunks := []int{1 + rng.IntN(5), 1 + rng.IntN(4)}
		m := &memArray{chunks: map[string][]byte{}}
		a := &Chunked{Shape: shape, Chunks: chunks, ItemSize: 2, Fill: []byte{7, 0}, Locator: m, Name: "model"}
		model := make([]uint16, shape[0]*shape[1])
		for i := range model {
			model[i] = 7
		}
		for step := range 6 {
			sel := randomSel(rng, shape)
			r, err := sel.Resolve(shape)
			if err != nil {
				t.Fatal(err)
			}
			vals := make([]uint16, r.Len())
			for i := range vals {
				vals[i] = uint16(rng.IntN(60000))
			}
			if err := Write(ctx, a, r, b16(vals), WriteOptions{Workers: 1 + rng.IntN(4), Put: m.put}); err != nil {
				t.Fatalf("trial %d step %d: %v", trial, step, err)
			}
			// The model: the dense selection of each axis, in order.
			idx := axisIndexes(sel, shape)
			k := 0
			for _, i := range idx[0] {
				for _, j := range idx[1] {
					model[i*shape[1]+j] = vals[k]
					k++
				}
			}
			all, _ := selection.Selection{}.Resolve(shape)
			out := make([]byte, 2*len(model))
			if err := Read(ctx, a, all, out, Options{}); err != nil {
				t.Fatal(err)
			}
			if got := u16(out); !slices.Equal(got, model) {
				t.Fatalf("trial %d step %d (shape %v chunks %v, sel %s):\n got %v\nwant %v", trial, step, shape, chunks, sel, got, model)
			}
		}
	}
}

// randomSel is a selection without repeated positions: slices with steps
// (negative too), indexes and sorted or shuffled index lists.
func randomSel(rng *rand.Rand, shape []int) selection.Selection {
	sel := make(selection.Selection, len(shape))
	for d, n := range shape {
		switch rng.IntN(4) {
		case 0:
			sel[d] = selection.All()
		case 1:
			start, stop := rng.IntN(n), rng.IntN(n+1)
			step := 1 + rng.IntN(3)
			if start > stop {
				start, stop = stop, start
			}
			if stop == start {
				stop = start + 1
			}
			if rng.IntN(3) == 0 {
				sel[d] = selection.Slice(stop-1, start-1, -step)
				if start == 0 {
					sel[d] = selection.Slice(stop-1, -n-1, -step)
				}
			} else {
				sel[d] = selection.Slice(start, stop, step)
			}
		case 2:
			sel[d] = selection.List(rng.Perm(n)[:1+rng.IntN(n)]...)
		default:
			sel[d] = selection.List(rng.IntN(n)) // a list keeps the axis
		}
	}
	return sel
}

// axisIndexes expands each item of sel into the positions it takes, in order.
func axisIndexes(sel selection.Selection, shape []int) [][]int {
	out := make([][]int, len(shape))
	for d := range shape {
		// Resolve a 1-D probe: positions are where a write of 0..n-1 lands.
		probe := selection.Selection{sel[d]}
		r, err := probe.Resolve([]int{shape[d]})
		if err != nil {
			panic(err)
		}
		p, _ := r.Plan([]int{shape[d]})
		pos := make([]int, r.Len())
		for cp := range p.Chunks() {
			for i := range cp.Axes[0].Len() {
				pos[cp.Axes[0].Dst(i)] = cp.Axes[0].Src(i)
			}
		}
		out[d] = pos
	}
	return out
}

func TestWriteWholeChunksFromCaller(t *testing.T) {
	// A write covering whole chunks never reads old chunks.
	ctx := context.Background()
	m := &memArray{chunks: map[string][]byte{}}
	var locates atomic.Int64
	loc := locateFunc(func(ctx context.Context, c []int) (Chunk, error) {
		locates.Add(1)
		return m.Locate(ctx, c)
	})
	a := &Chunked{Shape: []int{10, 6}, Chunks: []int{4, 3}, ItemSize: 2, Locator: loc, Name: "x"}
	r, _ := selection.Selection{}.Resolve(a.Shape)
	if err := Write(ctx, a, r, make([]byte, 120), WriteOptions{Put: m.put}); err != nil {
		t.Fatal(err)
	}
	if locates.Load() != 0 || m.puts.Load() != 6 {
		t.Errorf("whole write: %d locates, %d puts; want 0, 6", locates.Load(), m.puts.Load())
	}
	// A column selection covering whole chunk columns (with duplicates) reads nothing either…
	r, _ = selection.Selection{selection.All(), selection.List(0, 1, 2, 2)}.Resolve(a.Shape)
	if err := Write(ctx, a, r, make([]byte, 2*r.Len()), WriteOptions{Put: m.put}); err != nil {
		t.Fatal(err)
	}
	if locates.Load() != 0 {
		t.Errorf("covering write located %d chunks", locates.Load())
	}
	// …but a list missing a position reads the chunk.
	r, _ = selection.Selection{selection.All(), selection.List(0, 2, 2)}.Resolve(a.Shape)
	if err := Write(ctx, a, r, make([]byte, 2*r.Len()), WriteOptions{Put: m.put}); err != nil {
		t.Fatal(err)
	}
	if locates.Load() != 3 {
		t.Errorf("partial write located %d chunks, want 3", locates.Load())
	}
}

func TestWriteErrors(t *testing.T) {
	ctx := context.Background()
	m := &memArray{chunks: map[string][]byte{}}
	a := &Chunked{Shape: []int{4}, Chunks: []int{2}, ItemSize: 2, Locator: m, Name: "x"}
	r, _ := selection.Selection{}.Resolve(a.Shape)
	if err := Write(ctx, a, r, make([]byte, 7), WriteOptions{Put: m.put}); err == nil {
		t.Error("wrong length accepted")
	}
	if err := Write(ctx, a, r, make([]byte, 8), WriteOptions{}); err == nil {
		t.Error("no Put accepted")
	}
	boom := errors.New("disk full")
	err := Write(ctx, a, r, make([]byte, 8), WriteOptions{Put: func(context.Context, []int, []byte) error { return boom }})
	var ce *ChunkError
	if !errors.Is(err, boom) || !errors.As(err, &ce) {
		t.Errorf("put failure: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := Write(cctx, a, r, make([]byte, 8), WriteOptions{Put: m.put}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled write: %v", err)
	}
	// A corrupt stored chunk fails a read-modify-write, naming the chunk.
	m.chunks[key([]int{0})] = []byte{1}
	r, _ = selection.Selection{selection.Index(0)}.Resolve(a.Shape)
	if err := Write(ctx, a, r, make([]byte, 2), WriteOptions{Put: m.put}); !errors.As(err, &ce) || ce.Coords[0] != 0 {
		t.Errorf("corrupt chunk: %v", err)
	}
}
