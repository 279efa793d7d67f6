package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestChannelMeans(t *testing.T) {
	var out bytes.Buffer
	file := filepath.Join("..", "..", "testdata", "nwb", "tables.nwb.lindi.json")
	// Samples at 0.5 + i/30000 s: [0.5, 0.5001) holds samples 0, 1 and 2,
	// whose channel 0 values are 91, 1 and 68 (mean 160/3, sample SD
	// sqrt(((91-m)²+(1-m)²+(68-m)²)/2) = 46.758, not numpy's default ddof 0
	// 38.178).
	if err := run(context.Background(), &out, file, "acquisition/ElectricalSeries", 0.5, 0.5001); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 || !strings.Contains(lines[0], "samples 0–3") || !strings.Contains(lines[1], "mean       53.333") ||
		!strings.Contains(lines[1], "sd (ddof 1)       46.758") {
		t.Errorf("output:\n%s", out.String())
	}
}
