package source

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
)

// countingSrc counts the reads of a source.
type countingSrc struct {
	Source
	mu    sync.Mutex
	reads int
}

func (c *countingSrc) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return c.Source.ReadAt(ctx, p, off)
}

func TestBlocks(t *testing.T) {
	data := readFixture(t)
	lru, _ := NewLRU(DefaultCacheBytes)
	b, err := NewBlocks(NewBytes("f", data), lru, 4096)
	if err != nil {
		t.Fatal(err)
	}
	checkReads(t, b, data)
}

func TestBlocksRequests(t *testing.T) {
	data := readFixture(t)
	size := int64(len(data))
	tests := []struct {
		name  string
		reads [][2]int64 // offset, length
		want  int        // reads of the source
	}{
		{"same block", [][2]int64{{0, 8}, {100, 50}, {4000, 96}}, 1},
		{"spanning", [][2]int64{{4000, 200}}, 1},
		{"spanning then inside", [][2]int64{{4000, 5000}, {8192, 100}, {5000, 10}}, 1},
		{"two blocks", [][2]int64{{0, 10}, {8192, 10}}, 2},
		{"large bypasses", [][2]int64{{0, 9 * 4096}, {0, 9 * 4096}}, 2},
		{"tail", [][2]int64{{size - 10, 10}, {size - 100, 20}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lru, _ := NewLRU(DefaultCacheBytes)
			c := &countingSrc{Source: NewBytes("f", data)}
			b, _ := NewBlocks(c, lru, 4096)
			for _, r := range tt.reads {
				p := make([]byte, r[1])
				if _, err := b.ReadAt(context.Background(), p, r[0]); err != nil || !bytes.Equal(p, data[r[0]:r[0]+r[1]]) {
					t.Fatalf("read %v: %v", r, err)
				}
			}
			if c.reads != tt.want {
				t.Fatalf("%d reads of the source, want %d", c.reads, tt.want)
			}
		})
	}
}

func TestBlocksRandom(t *testing.T) {
	data := readFixture(t)
	lru, _ := NewLRU(1 << 20) // smaller than the file: evictions happen
	b, _ := NewBlocks(NewBytes("f", data), lru, 1000)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 5))
			for range 500 {
				n := 1 + r.Int64N(3000)
				off := r.Int64N(int64(len(data)) + 100)
				p := make([]byte, n)
				got, err := b.ReadAt(context.Background(), p, off)
				end := min(off+n, int64(len(data)))
				want := max(end-off, 0)
				if int64(got) != want || (want < n) != errors.Is(err, io.EOF) || (want == n && err != nil) {
					t.Errorf("read %d+%d: n %d err %v, want %d", off, n, got, err, want)
					return
				}
				if want > 0 && !bytes.Equal(p[:got], data[off:end]) {
					t.Errorf("read %d+%d: wrong bytes", off, n)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestNewBlocksErrors(t *testing.T) {
	lru, _ := NewLRU(1 << 20)
	for _, bs := range []int64{0, -1, 1 << 40} {
		if _, err := NewBlocks(NewBytes("f", nil), lru, bs); err == nil {
			t.Fatalf("block size %d accepted", bs)
		}
	}
	if _, err := NewBlocks(NewBytes("f", nil), nil, 10); err == nil {
		t.Fatal("nil LRU accepted")
	}
}

func TestReaderAt(t *testing.T) {
	data := readFixture(t)
	r := io.NewSectionReader(NewReaderAt(context.Background(), NewBytes("f", data)), 100, 50)
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data[100:150]) {
		t.Fatalf("ReadAll: %v", err)
	}
}
