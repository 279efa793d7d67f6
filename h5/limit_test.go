package h5_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// lindiArray is a LINDI document holding one array "x" with no stored chunks.
func lindiArray(shape, chunks, dtype string) string {
	return fmt.Sprintf(`{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
	"x/.zarray": {"zarr_format": 2, "shape": %s, "chunks": %s, "dtype": %q, "compressor": null,
	  "fill_value": 0, "filters": null, "order": "C"}}}`, shape, chunks, dtype)
}

// TestHugeResultRefused is the regression test of issue 13 (3): a
// 200-byte .zarray of shape [1e12] made a read die with "runtime: out of
// memory". It fails with ErrTooLarge, naming the sizes, before allocating.
func TestHugeResultRefused(t *testing.T) {
	for _, tc := range []struct{ shape, chunks, dtype string }{
		{"[1000000000000]", "[1000000]", "<f8"},
		{"[1000000000000]", "[1000000]", "|u1"},
		{"[1000000, 1000000]", "[1000, 1000]", "<i2"},
	} {
		t.Run(tc.shape+tc.dtype, func(t *testing.T) {
			f, d := openX(t, writeLINDI(t, lindiArray(tc.shape, tc.chunks, tc.dtype)))
			defer f.Close()
			_, err := d.Read(ctx, nil)
			if !errors.Is(err, h5.ErrTooLarge) || !strings.Contains(err.Error(), "read limit") {
				t.Fatalf("got %v, want ErrTooLarge", err)
			}
		})
	}
}

func TestWithMaxReadBytes(t *testing.T) {
	name := writeLINDI(t, lindiArray("[100]", "[10]", "<i4"))
	for _, tc := range []struct {
		limit int64
		ok    bool
	}{{399, false}, {400, true}, {1 << 20, true}} {
		f, d := openX(t, name, h5.WithMaxReadBytes(tc.limit))
		_, err := d.Read(ctx, nil)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, h5.ErrTooLarge) {
			t.Errorf("limit %d: got %v, want ok=%v", tc.limit, err, tc.ok)
		}
		f.Close()
	}
	f, d := openX(t, name, h5.WithMaxReadBytes(400))
	defer f.Close()
	if _, err := h5.Read[int32](ctx, d, nil); err != nil {
		t.Errorf("Read[int32] of 400 bytes under a 400-byte limit: %v", err)
	}
	if _, err := h5.Read[float64](ctx, d, nil); !errors.Is(err, h5.ErrTooLarge) {
		t.Errorf("Read[float64] converting to 800 bytes under a 400-byte limit: got %v, want ErrTooLarge", err)
	}
	if _, err := h5.Open(ctx, name, h5.WithMaxReadBytes(0)); err == nil {
		t.Error("WithMaxReadBytes(0) was accepted")
	}
	if n := h5.DefaultMaxReadBytes(); n < 1<<20 {
		t.Errorf("DefaultMaxReadBytes() = %d, implausibly small", n)
	}
}

// peakHeap samples the heap in use, from a progress callback.
type peakHeap struct {
	mu    sync.Mutex
	calls int
	peak  uint64
}

func (p *peakHeap) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.peak = max(p.peak, ms.HeapAlloc)
}

func (p *peakHeap) progress(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calls++; p.calls%20000 == 1 || done == total {
		p.sample()
	}
}

// readEmptyChunks reads a dataset of n empty 1-element chunks and returns
// the peak heap seen while it was read.
func readEmptyChunks(t testing.TB, n int) uint64 {
	t.Helper()
	var p peakHeap
	name := filepath.Join(t.TempDir(), "x.lindi.json")
	if err := os.WriteFile(name, []byte(lindiArray(fmt.Sprintf("[%d]", n), "[1]", "<f8")), 0o644); err != nil {
		t.Fatal(err)
	}
	f, d := openX(t, name, h5.WithProgress(p.progress))
	defer f.Close()
	runtime.GC()
	a, err := d.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Data) != 8*n {
		t.Fatalf("read %d bytes, want %d", len(a.Data), 8*n)
	}
	return p.peak
}

// TestManyEmptyChunksMemory is the regression test of issue 13 (3): a read
// held about 900 bytes per chunk touched (1e6 chunks: 871 MB for a 1 MB
// result). Two million empty chunks (a 16 MB result) must read in well
// under 512 MB.
func TestManyEmptyChunksMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("reads two million chunks: not in -short or -race runs")
	}
	peak := readEmptyChunks(t, 2_000_000)
	t.Logf("peak heap %.1f MB reading 2e6 empty chunks (16 MB result)", float64(peak)/1e6)
	if peak > 128<<20 {
		t.Errorf("peak heap %d MB, want output + a few MB", peak>>20)
	}
}

func BenchmarkManyEmptyChunks(b *testing.B) {
	var peak uint64
	for b.Loop() {
		peak = max(peak, readEmptyChunks(b, 2_000_000))
	}
	b.ReportMetric(float64(peak)/1e6, "peak-MB")
}

// TestMaxMetadataBytes: the cap on one metadata document was 1 GiB, fixed;
// a 200 MB document cost 815 MB to list. It is lower by default and set by
// WithMaxMetadataBytes.
func TestMaxMetadataBytes(t *testing.T) {
	if h5.DefaultMaxMetadataBytes >= 1<<30 {
		t.Errorf("DefaultMaxMetadataBytes = %d, want less than 1 GiB", h5.DefaultMaxMetadataBytes)
	}
	name := writeLINDI(t, lindiArray("[4]", "[2]", "<i4"))
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h5.Open(ctx, name, h5.WithMaxMetadataBytes(st.Size()-1)); !errors.Is(err, h5.ErrFormat) || !strings.Contains(err.Error(), "metadata limit") {
		t.Errorf("a document over the limit: got %v, want ErrFormat naming the limit", err)
	}
	f, err := h5.Open(ctx, name, h5.WithMaxMetadataBytes(st.Size()))
	if err != nil {
		t.Fatalf("a document at the limit: %v", err)
	}
	f.Close()
	if _, err := h5.Open(ctx, name, h5.WithMaxMetadataBytes(0)); err == nil {
		t.Error("WithMaxMetadataBytes(0) was accepted")
	}
}

// openX opens the file name and its dataset "x", failing the test if either
// does not open.
func openX(t testing.TB, name string, opts ...h5.Option) (*h5.File, *h5.Dataset) {
	t.Helper()
	f, err := h5.Open(ctx, name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Dataset(ctx, "x")
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	return f, d
}
