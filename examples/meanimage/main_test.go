package main

import (
	"context"
	"image/color"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/examples/internal/smoke"
	"github.com/lindigo/lindi/h5"
)

func TestMeanImage(t *testing.T) {
	for _, file := range []string{"fixture.h5", "fixture.lindi.json", "fixture.zarr"} {
		out := filepath.Join(t.TempDir(), "mean.png")
		err := run(context.Background(), filepath.Join("..", "..", "testdata", "conformance", file), "acquisition/TwoPhotonSeries", "0:20", out)
		if file == "fixture.zarr" {
			if err == nil {
				t.Error("the Zarr store, which is not NWB, gave an image")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		smoke.PNG(t, out, 48, 64)
	}
}

// TestMean checks the average and the stretch on a 2-frame 1×3 stack.
func TestMean(t *testing.T) {
	img, err := mean(&h5.Typed[float64]{Shape: []int{2, 1, 3}, Data: []float64{0, 2, 4, 2, 2, 8}})
	if err != nil {
		t.Fatal(err)
	}
	// Means 1, 2, 6 stretch to 0, 65535/5, 65535.
	for x, want := range []uint16{0, 13107, 65535} {
		if got := img.At(x, 0).(color.Gray16).Y; got != want {
			t.Errorf("pixel %d = %d, want %d", x, got, want)
		}
	}
	if _, err := mean(&h5.Typed[float64]{Shape: []int{0, 4, 4}}); err == nil {
		t.Error("an empty stack gave an image")
	}
}
