package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/examples/internal/smoke"
)

func TestRaster(t *testing.T) {
	for _, file := range []string{"tables.nwb", "tables.nwb.lindi.json"} {
		out := filepath.Join(t.TempDir(), "raster.png")
		if err := run(context.Background(), filepath.Join("..", "..", "testdata", "nwb", file), out, 1); err != nil {
			t.Fatal(err)
		}
		smoke.PNG(t, out, 768, 576) // 8×6 inches at vgimg's 96 dpi
	}
}

func TestRasterErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "raster.png")
	if err := run(context.Background(), filepath.Join("..", "..", "testdata", "nwb", "tables.nwb"), out, 0); err == nil {
		t.Error("a zero bin width draws a figure")
	}
	if err := run(context.Background(), filepath.Join("..", "..", "testdata", "conformance", "fixture.zarr"), out, 1); err == nil {
		t.Error("a file that is not NWB draws a figure")
	}
}
