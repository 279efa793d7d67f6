package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/h5"
)

func TestAmend(t *testing.T) {
	ctx := context.Background()
	src := filepath.Join("..", "..", "testdata", "nwb", "tables.nwb")
	out := filepath.Join(t.TempDir(), "amended.lindi.tar")
	if err := run(ctx, src, "acquisition/ElectricalSeries", out); err != nil {
		t.Fatal(err)
	}
	orig, err := h5.Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	defer orig.Close()
	want, _, err := channelMeans(ctx, orig, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	f, err := h5.Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Format() != "LINDI tar" {
		t.Errorf("format %q", f.Format())
	}
	d, err := f.Dataset(ctx, "processing/ecephys_means/channel_means")
	if err != nil {
		t.Fatal(err)
	}
	got, err := h5.ReadExact[float64](ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Data) != len(want) {
		t.Fatalf("%d means, want %d", len(got.Data), len(want))
	}
	for i := range want {
		if got.Data[i] != want[i] {
			t.Errorf("mean %d = %v, want %v", i, got.Data[i], want[i])
		}
	}
	if r, err := d.Attrs().Ref("source"); err != nil || r.Path != "/acquisition/ElectricalSeries" {
		t.Errorf("source = %v, %v", r, err)
	}
	// The original objects read as before, through the amended file.
	a, err := h5.Read[float64](ctx, mustDataset(t, f, "acquisition/ElectricalSeries/data"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := h5.Read[float64](ctx, mustDataset(t, orig, "acquisition/ElectricalSeries/data"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Data {
		if a.Data[i] != b.Data[i] {
			t.Fatalf("element %d: %v through the amended file, %v in the source", i, a.Data[i], b.Data[i])
		}
	}
}

func mustDataset(t *testing.T, f *h5.File, path string) *h5.Dataset {
	t.Helper()
	d, err := f.Dataset(ctx(), path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func ctx() context.Context { return context.Background() }
