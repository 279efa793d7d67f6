// Command spectrum draws the power spectrum of one channel of an
// ElectricalSeries (or any TimeSeries) over a block of samples, computed
// with gonum's FFT on the data in physical units, and writes it as a PNG.
//
//	go run ./spectrum [-o spectrum.png] [-channel 0] [-start 0] [-n 1000] ../testdata/nwb/tables.nwb acquisition/ElectricalSeries
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/cmplx"
	"os"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/dsp/window"

	_ "github.com/lindigo/lindi/dandi" // DANDI addresses (dandi://…) as FILE
	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/quicklook"
)

func main() {
	out := flag.String("o", "spectrum.png", "the PNG to write")
	channel := flag.Int("channel", 0, "the channel (column of data)")
	start := flag.Int("start", 0, "the first sample")
	n := flag.Int("n", 1000, "the number of samples")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: spectrum [-o OUT.png] [-channel C] [-start S] [-n N] FILE SERIES")
		os.Exit(2)
	}
	if err := run(context.Background(), flag.Arg(0), flag.Arg(1), *out, *channel, *start, *n); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, file, series, out string, channel, start, n int) error {
	f, err := nwb.Open(ctx, file)
	if err != nil {
		return err
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, series)
	if err != nil {
		return err
	}
	n = min(n, ts.Len()-start)
	if n < 4 {
		return fmt.Errorf("spectrum: %s has %d samples from %d; need at least 4", series, ts.Len(), start)
	}
	block, err := ts.ReadPhysical(ctx, start, start+n) // samples × channels, in ts.Unit()
	if err != nil {
		return err
	}
	if len(block.Shape) != 2 || channel < 0 || channel >= block.Shape[1] {
		return fmt.Errorf("spectrum: %s has shape %v; no channel %d", series, ts.Data().Shape(), channel)
	}
	rate, err := sampleRate(ctx, ts, start, n)
	if err != nil {
		return err
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = block.Data[i*block.Shape[1]+channel]
	}
	unit := ts.Unit()
	if unit == "" {
		unit = "unit" // the file does not say
	}
	freq, power := spectrum(x, rate)
	fig, err := quicklook.Lines(freq, []quicklook.Series{{Y: power}}, quicklook.Labels{
		Title: fmt.Sprintf("%s channel %d, samples %d–%d", series, channel, start, start+n),
		X:     "frequency (Hz)",
		Y:     fmt.Sprintf("power (%s²/Hz)", unit),
	})
	if err != nil {
		return err
	}
	fig.SetLogY()
	return quicklook.SavePNG(out, 768, 384, fig) // 8×4 inches at 96 pixels per inch
}

// sampleRate is the series' rate, or the mean rate of the block's timestamps.
func sampleRate(ctx context.Context, ts *nwb.TimeSeries, start, n int) (float64, error) {
	if r, ok := ts.Rate(); ok {
		return r, nil
	}
	t, err := ts.Timestamps(ctx, start, start+n)
	if err != nil {
		return 0, err
	}
	if n < 2 || !(t[n-1] > t[0]) {
		return 0, fmt.Errorf("%s: timestamps of samples %d–%d do not increase: no sampling rate", ts.Path(), start, start+n-1)
	}
	return float64(n-1) / (t[n-1] - t[0]), nil
}

// spectrum is the one-sided power spectral density of x (mean removed, Hann
// window), without the zero-frequency bin so that a log axis can show it.
func spectrum(x []float64, rate float64) (freq, power []float64) {
	mean := 0.0
	for _, v := range x {
		mean += v / float64(len(x))
	}
	w := make([]float64, len(x))
	for i := range w {
		w[i] = 1
	}
	window.Hann(w)
	norm := 0.0
	for i, v := range x {
		norm += w[i] * w[i]
		x[i] = (v - mean) * w[i]
	}
	coef := fourier.NewFFT(len(x)).Coefficients(nil, x)
	for k := 1; k < len(coef); k++ {
		psd := 2 * math.Pow(cmplx.Abs(coef[k]), 2) / (rate * norm)
		freq = append(freq, float64(k)*rate/float64(len(x)))
		power = append(power, max(psd, math.SmallestNonzeroFloat64))
	}
	return freq, power
}
