package main

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/examples/internal/smoke"
)

func TestSpectrum(t *testing.T) {
	for _, tc := range []struct{ file, series string }{
		{"nwb/tables.nwb", "acquisition/ElectricalSeries"},
		{"conformance/fixture.lindi.json", "acquisition/ElectricalSeries"},
	} {
		out := filepath.Join(t.TempDir(), "spectrum.png")
		if err := run(context.Background(), filepath.Join("..", "..", "testdata", tc.file), tc.series, out, 1, 0, 512); err != nil {
			t.Fatal(err)
		}
		smoke.PNG(t, out, 768, 384)
	}
}

// TestSpectrumPeak checks that a pure tone peaks at its frequency.
func TestSpectrumPeak(t *testing.T) {
	const rate, n, freq = 1000.0, 1000, 125.0
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Sin(2 * math.Pi * freq * float64(i) / rate)
	}
	f, p := spectrum(x, rate)
	best := 0
	for i := range p {
		if p[i] > p[best] {
			best = i
		}
	}
	if f[best] != freq {
		t.Errorf("peak at %v Hz, want %v", f[best], freq)
	}
}
