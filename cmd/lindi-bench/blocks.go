package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/lindigo/lindi/nwb"
)

// cmdBlocks measures the bounded-memory pattern of analysis: the mean
// and standard deviation (ddof 0) of every channel of a TimeSeries in
// physical units, read block by block with read-ahead. Its anchor is
// bench/blockstats.py, the same loop with h5py and numpy.
func cmdBlocks(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("blocks", flag.ContinueOnError)
	rows := fs.Int("rows", 65536, "samples per block")
	ahead := fs.Int("ahead", 1, "blocks read ahead of the one being summed")
	runs := fs.Int("runs", 5, "runs; the median is printed")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || *rows < 1 || *ahead < 0 || *runs < 1 {
		return usagef("blocks takes FILE SERIES and the flags -rows N -ahead N -runs N")
	}
	f, err := nwb.Open(ctx, pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, pos[1])
	if err != nil {
		return err
	}
	var (
		walls     []time.Duration
		cpu       time.Duration
		mean, std []float64
	)
	for range *runs {
		c0, t0 := cpuTime(), time.Now()
		if mean, std, err = channelStats(ctx, ts, *rows, *ahead); err != nil {
			return err
		}
		walls = append(walls, time.Since(t0))
		cpu += cpuTime() - c0
	}
	var total time.Duration
	for _, w := range walls {
		total += w
	}
	slices.Sort(walls)
	med := walls[len(walls)/2]
	mb := float64(ts.Len()*len(mean)*ts.Data().DType().Size) / 1e6
	fmt.Fprintf(stdout, "%s: %d samples × %d channels (%.0f MB stored values), blocks of %d, %d ahead, %d cores\n",
		pos[1], ts.Len(), len(mean), mb, *rows, *ahead, runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "median of %d: %.3fs, %.0f MB/s, CPU÷wall %.2f\n", *runs, med.Seconds(), mb/med.Seconds(), cpu.Seconds()/total.Seconds())
	fmt.Fprintf(stdout, "lindi %.3fs mean[0] %.6e std[0] %.6e sum(mean) %.6e\n", med.Seconds(), mean[0], std[0], floatSum(mean))
	return nil
}

// channelStats computes the mean and standard deviation (ddof 0) of every
// channel (the elements of a sample) from per-channel sums of the values and
// of their squares, accumulated block by block.
func channelStats(ctx context.Context, ts *nwb.TimeSeries, rows, ahead int) (mean, std []float64, err error) {
	width := 1
	for _, s := range ts.Data().Shape()[1:] {
		width *= s
	}
	if ts.Len() == 0 || width == 0 {
		return nil, nil, fmt.Errorf("%s has no values", ts.Path())
	}
	sum, sq := make([]float64, width), make([]float64, width)
	for b, err := range ts.PhysicalBlocks(ctx, rows, ahead) {
		if err != nil {
			return nil, nil, err
		}
		d := b.Data.Data
		for r := 0; r < len(d); r += width {
			row := d[r : r+width]
			for c, x := range row {
				sum[c] += x
				sq[c] += x * x
			}
		}
	}
	n := float64(ts.Len())
	mean, std = sum, sq
	for c := range sum {
		mean[c] = sum[c] / n
		std[c] = math.Sqrt(max(sq[c]/n-mean[c]*mean[c], 0))
	}
	return mean, std, nil
}

func floatSum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}
