package h5_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// writeZarr writes a float32 Zarr array of the given shape and chunks,
// zlib-compressed, holding a smooth signal with noise (realistic ratios).
func writeZarr(b *testing.B, rows, cols, chunkRows int) string {
	b.Helper()
	dir := b.TempDir()
	meta := fmt.Sprintf(`{"zarr_format": 2, "shape": [%d, %d], "chunks": [%d, %d], "dtype": "<f4",
		"compressor": {"id": "zlib", "level": 1}, "filters": null, "fill_value": 0, "order": "C"}`, rows, cols, chunkRows, cols)
	arr := filepath.Join(dir, "a")
	if err := os.MkdirAll(arr, 0o755); err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".zgroup"), []byte(`{"zarr_format": 2}`), 0o644)
	os.WriteFile(filepath.Join(arr, ".zarray"), []byte(meta), 0o644)
	raw := make([]byte, 4*chunkRows*cols)
	seed := uint32(1)
	for c := 0; c*chunkRows < rows; c++ {
		for i := range chunkRows * cols {
			seed = seed*1664525 + 1013904223
			v := float32(math.Sin(float64(c*chunkRows*cols+i)/500)) + float32(seed>>24)/2048
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
		}
		var buf bytes.Buffer
		w, _ := zlib.NewWriterLevel(&buf, 1)
		w.Write(raw)
		w.Close()
		if err := os.WriteFile(filepath.Join(arr, fmt.Sprintf("%d.0", c)), buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkReadLocalCompressed reads a 16 MiB zlib-compressed dataset of 16
// chunks from local disk with one decode worker and with GOMAXPROCS workers.
func BenchmarkReadLocalCompressed(b *testing.B) {
	dir := writeZarr(b, 4096, 1024, 256)
	for _, tc := range []struct {
		name string
		opts []h5.Option
	}{
		{"workers=1", []h5.Option{h5.WithWorkers(1)}},
		{"workers=GOMAXPROCS", nil},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f, err := h5.Open(ctx, dir, tc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			d, err := f.Dataset(ctx, "a")
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(d.Size() * 4))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Read(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
