package nwb

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// blockSeries writes an amendment with an int16 ElectricalSeries (chunked,
// gzip, conversion, offset and channel_conversion) and a 3-D uint8 series,
// and opens it.
func blockSeries(t *testing.T, ctx context.Context) *File {
	t.Helper()
	out := filepath.Join(t.TempDir(), "blocks.nwb.lindi.tar")
	a, err := Amend(ctx, amendSource, out)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := a.Processing(ctx, "ecephys", "recordings")
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]int16, 1000*4)
	for i := range raw {
		raw[i] = int16(i*37%2001 - 1000)
	}
	gzip := &h5.DatasetSpec{Chunks: []int{64, 3}, Codec: json.RawMessage(`{"id":"gzip","level":1}`)}
	if _, err := ec.AddElectricalSeries(ctx, "raw", ElectricalSeriesSpec{
		SeriesSpec: SeriesSpec{Data: NewData(raw, 1000, 4), Storage: gzip, Rate: 30000, Conversion: 0.5, Offset: 0.25},
		Electrodes: []int{0, 1, 2, 3}, ChannelConversion: []float64{1, 2, 0.5, -1},
	}); err != nil {
		t.Fatal(err)
	}
	cube := make([]uint8, 50*2*3)
	for i := range cube {
		cube[i] = uint8(i)
	}
	if _, err := ec.AddTimeSeries(ctx, "cube", SeriesSpec{Data: NewData(cube, 50, 2, 3), Rate: 10, Conversion: 2, Offset: -1}); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestPhysicalBlocks(t *testing.T) {
	ctx := context.Background()
	f := blockSeries(t, ctx)
	testBlocksEqualRead(t, ctx, f)
	testBlocksStopAndErrors(t, ctx, f)
}

// testBlocksEqualRead checks that the blocks put together are ReadPhysical's
// values, for block sizes that do and do not divide the series or its chunks.
func testBlocksEqualRead(t *testing.T, ctx context.Context, f *File) {
	for _, path := range []string{"processing/ecephys/raw", "processing/ecephys/cube", "acquisition/ElectricalSeries"} {
		ts, err := f.TimeSeries(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ts.ReadPhysical(ctx, 0, ts.Len())
		if err != nil {
			t.Fatal(err)
		}
		for _, rows := range []int{7, 64, ts.Len() + 5} {
			for _, ahead := range []int{0, 2} {
				var got []float64
				next := 0
				for b, err := range ts.PhysicalBlocks(ctx, rows, ahead) {
					if err != nil {
						t.Fatalf("%s rows %d ahead %d: %v", path, rows, ahead, err)
					}
					n := min(rows, ts.Len()-next)
					if b.Start != next || b.Data.Shape[0] != n || !slices.Equal(b.Data.Shape[1:], want.Shape[1:]) {
						t.Fatalf("%s rows %d ahead %d: block at %d of shape %v, want %d of %d rows", path, rows, ahead, b.Start, b.Data.Shape, next, n)
					}
					got = append(got, b.Data.Data...)
					next += n
				}
				if !slices.Equal(got, want.Data) {
					t.Errorf("%s rows %d ahead %d: blocks differ from ReadPhysical", path, rows, ahead)
				}
			}
		}
	}
}

// testBlocksStopAndErrors checks ChannelConversion, a loop stopped early,
// bad arguments and a cancelled context.
func testBlocksStopAndErrors(t *testing.T, ctx context.Context, f *File) {
	t.Helper()
	ts, err := f.TimeSeries(ctx, "processing/ecephys/raw")
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.ChannelConversion(); !slices.Equal(got, []float64{1, 2, 0.5, -1}) {
		t.Errorf("ChannelConversion = %v", got)
	}
	ts.ChannelConversion()[0] = 9 // a copy
	if got := ts.ChannelConversion(); got[0] != 1 {
		t.Errorf("ChannelConversion aliases the series' factors: %v", got)
	}
	seen := 0
	for _, err := range ts.PhysicalBlocks(ctx, 10, 4) {
		if err != nil {
			t.Fatal(err)
		}
		if seen++; seen == 3 {
			break
		}
	}
	for _, bad := range [][2]int{{0, 1}, {-1, 0}, {10, -1}} {
		for _, err := range ts.PhysicalBlocks(ctx, bad[0], bad[1]) {
			if !errors.Is(err, ErrRange) {
				t.Errorf("rows %d ahead %d: %v, want ErrRange", bad[0], bad[1], err)
			}
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, err := range ts.PhysicalBlocks(cancelled, 10, 1) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: %v", err)
		}
	}
	cube, err := f.TimeSeries(ctx, "processing/ecephys/cube")
	if err != nil {
		t.Fatal(err)
	}
	if cube.ChannelConversion() != nil {
		t.Errorf("cube has channel conversion %v", cube.ChannelConversion())
	}
}
