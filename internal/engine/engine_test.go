package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/selection"
)

// testArray is a 2-D uint16 array whose element (i, j) is 1 + i*cols + j,
// stored in chunks: some in a byte source, some inline, some missing.
type testArray struct {
	rows, cols int
	chunks     []int
	forder     bool
	missing    func(c []int) bool
	inline     func(c []int) bool
}

func (ta testArray) value(i, j int) uint16 { return uint16(1 + i*ta.cols + j) }

// build stores the chunks and returns the engine's view of the array.
func (ta testArray) build() *Chunked {
	cr, cc := ta.chunks[0], ta.chunks[1]
	gr, gc := (ta.rows+cr-1)/cr, (ta.cols+cc-1)/cc
	var blob []byte
	where := map[[2]int]Chunk{}
	for a := range gr {
		for b := range gc {
			c := []int{a, b}
			if ta.missing != nil && ta.missing(c) {
				where[[2]int{a, b}] = Chunk{Missing: true}
				continue
			}
			chunk := make([]byte, 2*cr*cc)
			for x := range cr {
				for y := range cc {
					i, j := a*cr+x, b*cc+y
					var v uint16 = 0xdead // edge padding
					if i < ta.rows && j < ta.cols {
						v = ta.value(i, j)
					}
					k := x*cc + y
					if ta.forder {
						k = y*cr + x
					}
					binary.LittleEndian.PutUint16(chunk[2*k:], v)
				}
			}
			if ta.inline != nil && ta.inline(c) {
				where[[2]int{a, b}] = Chunk{Data: chunk}
				continue
			}
			where[[2]int{a, b}] = Chunk{Off: int64(len(blob)), Len: int64(len(chunk))}
			blob = append(blob, chunk...)
		}
	}
	src := source.NewBytes("blob", blob)
	return &Chunked{
		Shape: []int{ta.rows, ta.cols}, Chunks: ta.chunks, ItemSize: 2, FOrder: ta.forder,
		Fill: []byte{0x34, 0x12}, Name: "test",
		Locator: locateFunc(func(_ context.Context, c []int) (Chunk, error) {
			ch := where[[2]int{c[0], c[1]}]
			if !ch.Missing && ch.Data == nil {
				ch.Src = src
			}
			return ch, nil
		}),
	}
}

func TestReadOrthogonal(t *testing.T) {
	arrays := map[string]testArray{
		"remote":   {rows: 10, cols: 7, chunks: []int{3, 4}},
		"fortran":  {rows: 10, cols: 7, chunks: []int{3, 4}, forder: true},
		"missing":  {rows: 10, cols: 7, chunks: []int{3, 4}, missing: func(c []int) bool { return c[0] == 1 }},
		"inline":   {rows: 10, cols: 7, chunks: []int{3, 4}, inline: func(c []int) bool { return c[1] == 0 }},
		"onechunk": {rows: 10, cols: 7, chunks: []int{10, 7}},
		"rows":     {rows: 10, cols: 7, chunks: []int{2, 7}},
	}
	sels := [][2][]int{
		{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {0, 1, 2, 3, 4, 5, 6}},
		{{9, 0, 4, 4}, {6, 1}},
		{{2, 3, 4, 5}, {0, 1, 2, 3, 4, 5, 6}},
		{{7}, {3, 4, 5, 6}},
		{{}, {1}},
	}
	for name, ta := range arrays {
		a := ta.build()
		for _, sel := range sels {
			t.Run(fmt.Sprintf("%s/%v", name, sel), func(t *testing.T) {
				r, err := selection.Selection{selection.List(sel[0]...), selection.List(sel[1]...)}.Resolve(a.Shape)
				if err != nil {
					t.Fatal(err)
				}
				out := make([]byte, 2*r.Len())
				if err := Read(context.Background(), a, r, out, Options{}); err != nil {
					t.Fatal(err)
				}
				k := 0
				for _, i := range sel[0] {
					for _, j := range sel[1] {
						want := ta.value(i, j)
						if ta.missing != nil && ta.missing([]int{i / ta.chunks[0], j / ta.chunks[1]}) {
							want = 0x1234
						}
						if got := binary.LittleEndian.Uint16(out[2*k:]); got != want {
							t.Fatalf("element (%d, %d): got %#x, want %#x", i, j, got, want)
						}
						k++
					}
				}
			})
		}
	}
}

func TestReadSlices(t *testing.T) {
	ta := testArray{rows: 10, cols: 7, chunks: []int{3, 4}}
	a := ta.build()
	for _, s := range []string{"...", "::-1, 2", "1:9:3, ::2", "-1, -1", "3:3, :"} {
		t.Run(s, func(t *testing.T) {
			sel, err := selection.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sel.Resolve(a.Shape)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]byte, 2*r.Len())
			if err := Read(context.Background(), a, r, out, Options{Workers: 1}); err != nil {
				t.Fatal(err)
			}
			// Every value read must be one the array holds, in the order numpy gives.
			var got []uint16
			for k := 0; k < len(out); k += 2 {
				got = append(got, binary.LittleEndian.Uint16(out[k:]))
			}
			want := map[string][]uint16{
				"-1, -1":     {70},
				"3:3, :":     nil,
				"::-1, 2":    {66, 59, 52, 45, 38, 31, 24, 17, 10, 3},
				"1:9:3, ::2": {8, 10, 12, 14, 29, 31, 33, 35, 50, 52, 54, 56},
			}[s]
			if s == "..." {
				for i := range 70 {
					want = append(want, uint16(i+1))
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	ta := testArray{rows: 4, cols: 4, chunks: []int{2, 2}}
	r, _ := selection.Selection{}.Resolve([]int{4, 4})

	a := ta.build()
	if err := Read(context.Background(), a, r, make([]byte, 3), Options{}); err == nil {
		t.Error("wrong output size accepted")
	}

	short := ta.build()
	short.Locator = locateFunc(func(_ context.Context, c []int) (Chunk, error) { return Chunk{Data: []byte{1, 2, 3}}, nil })
	var ce *ChunkError
	if err := Read(context.Background(), short, r, make([]byte, 32), Options{}); !errors.As(err, &ce) || ce.Where != "inline" {
		t.Errorf("short raw chunk: got %v", err)
	}
	short.PadShort = true
	if err := Read(context.Background(), short, r, make([]byte, 32), Options{}); err != nil {
		t.Errorf("short raw chunk with PadShort: %v", err)
	}

	boom := errors.New("index is broken")
	bad := ta.build()
	bad.Locator = locateFunc(func(context.Context, []int) (Chunk, error) { return Chunk{}, boom })
	if err := Read(context.Background(), bad, r, make([]byte, 32), Options{}); !errors.Is(err, boom) {
		t.Errorf("locate error: got %v", err)
	}
}

// stall is a source whose reads block until their context ends.
type stall struct{}

func (stall) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}
func (stall) Size(context.Context) (int64, error) { return 1 << 20, nil }
func (stall) Name() string                        { return "stall" }

func TestReadCancel(t *testing.T) {
	a := &Chunked{Shape: []int{100}, Chunks: []int{10}, ItemSize: 1, Name: "stalled",
		Locator: locateFunc(func(_ context.Context, c []int) (Chunk, error) {
			return Chunk{Src: stall{}, Off: int64(c[0]) * 1000, Len: 10}, nil
		})}
	r, _ := selection.Selection{}.Resolve(a.Shape)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- Read(ctx, a, r, make([]byte, 100), Options{}) }()
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("cancelled read took %v to return", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled read did not return")
	}
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
}

func TestFortranToC(t *testing.T) {
	// A 2x3x2 chunk in Fortran order holds element (i, j, k) at i + 2j + 6k.
	shape := []int{2, 3, 2}
	src := make([]int, 12)
	for i := range 2 {
		for j := range 3 {
			for k := range 2 {
				src[i+2*j+6*k] = 100*i + 10*j + k
			}
		}
	}
	dst := make([]int, 12)
	FortranToC(dst, src, shape, 1)
	var want []int
	for i := range 2 {
		for j := range 3 {
			for k := range 2 {
				want = append(want, 100*i+10*j+k)
			}
		}
	}
	if !slices.Equal(dst, want) {
		t.Errorf("got %v, want %v", dst, want)
	}
}

// counting is a byte source that counts the bytes read from it.
type counting struct {
	*source.Bytes
	n atomic.Int64
}

func (c *counting) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	c.n.Add(int64(len(p)))
	return c.Bytes.ReadAt(ctx, p, off)
}

// TestReadPartOfRawChunk checks that a few rows of a large raw chunk cost
// only their bytes, and that a short chunk pads with zeros.
func TestReadPartOfRawChunk(t *testing.T) {
	const rows, cols = 1000, 100
	blob := make([]byte, rows*cols)
	for i := range blob {
		blob[i] = byte(i / cols)
	}
	src := &counting{Bytes: source.NewBytes("big", blob[:len(blob)-cols])} // the last row is not stored
	a := &Chunked{Shape: []int{rows, cols}, Chunks: []int{rows, cols}, ItemSize: 1, PadShort: true, Name: "raw",
		Locator: locateFunc(func(context.Context, []int) (Chunk, error) {
			return Chunk{Src: src, Len: int64(len(blob) - cols)}, nil
		})}
	for _, tc := range []struct {
		sel   string
		first byte
		bytes int64
	}{
		{"10:12, :", 10, 2 * cols},
		{"500, 3:5", 244, 2}, // 500 % 256
		{"998:, ::50", 230, cols + 1},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			src.n.Store(0)
			sel, _ := selection.Parse(tc.sel)
			r, err := sel.Resolve(a.Shape)
			if err != nil {
				t.Fatal(err)
			}
			out := make([]byte, r.Len())
			if err := Read(context.Background(), a, r, out, Options{}); err != nil {
				t.Fatal(err)
			}
			if out[0] != tc.first {
				t.Errorf("first element %d, want %d", out[0], tc.first)
			}
			if tc.sel == "998:, ::50" && (out[len(out)-1] != 0 || out[1] != 230) {
				t.Errorf("short chunk: got %v", out)
			}
			if got := src.n.Load(); got > tc.bytes {
				t.Errorf("read %d bytes, want at most %d", got, tc.bytes)
			}
		})
	}
}

func TestProgress(t *testing.T) {
	a := testArray{rows: 10, cols: 7, chunks: []int{3, 4}}.build()
	r, _ := selection.Selection{}.Resolve(a.Shape)
	var calls, last atomic.Int64
	opt := Options{Progress: func(done, total int) {
		calls.Add(1)
		if total != 8 {
			t.Errorf("total %d, want 8 chunks", total)
		}
		if int64(done) > last.Load() {
			last.Store(int64(done))
		}
	}}
	if err := Read(context.Background(), a, r, make([]byte, 2*70), opt); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 8 || last.Load() != 8 {
		t.Errorf("%d calls reaching %d, want 8 and 8", calls.Load(), last.Load())
	}
}

// locateFunc adapts a function to a Locator, for tests.
type locateFunc func(ctx context.Context, coords []int) (Chunk, error)

func (f locateFunc) Locate(ctx context.Context, coords []int) (Chunk, error) { return f(ctx, coords) }

// TestReadBatches is the regression test of issue 13 (3): a read located
// every chunk it touches before decoding any, holding a job per chunk.
// However many chunks, no more than a batch may be located and not decoded.
func TestReadBatches(t *testing.T) {
	const n, bound = 50_017, batchChunks
	var located, done, worst atomic.Int64
	a := &Chunked{
		Shape: []int{n}, Chunks: []int{1}, ItemSize: 1, Fill: []byte{7}, Name: "many",
		Locator: locateFunc(func(context.Context, []int) (Chunk, error) {
			ahead := located.Add(1) - done.Load()
			for w := worst.Load(); ahead > w && !worst.CompareAndSwap(w, ahead); w = worst.Load() {
			}
			return Chunk{Missing: true}, nil
		}),
	}
	r, err := selection.Selection{}.Resolve(a.Shape)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, n)
	opt := Options{Progress: func(int, int) { done.Add(1) }}
	if err := Read(context.Background(), a, r, out, opt); err != nil {
		t.Fatal(err)
	}
	if located.Load() != n || done.Load() != n {
		t.Fatalf("located %d and decoded %d chunks, want %d", located.Load(), done.Load(), n)
	}
	if w := worst.Load(); w > bound {
		t.Errorf("%d chunks were located and not yet decoded at once, want at most %d", w, bound)
	}
	if i := slices.IndexFunc(out, func(b byte) bool { return b != 7 }); i >= 0 {
		t.Errorf("element %d is %d, want the fill value 7", i, out[i])
	}
}
