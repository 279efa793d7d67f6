// Command meanimage averages a range of frames of an imaging series (a
// TwoPhotonSeries, OnePhotonSeries or ImageSeries, whose data is frames ×
// height × width) and writes the mean image as a 16-bit grayscale PNG,
// stretched from its darkest to its brightest pixel.
//
//	go run ./meanimage [-o mean.png] [-frames 0:37] ../testdata/conformance/fixture.h5 acquisition/TwoPhotonSeries
package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"

	_ "github.com/lindigo/lindi/dandi" // DANDI addresses (dandi://…) as FILE
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/selection"
)

func main() {
	out := flag.String("o", "mean.png", "the PNG to write")
	frames := flag.String("frames", ":", "the frames to average, as a slice (start:stop)")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: meanimage [-o OUT.png] [-frames START:STOP] FILE SERIES")
		os.Exit(2)
	}
	if err := run(context.Background(), flag.Arg(0), flag.Arg(1), *frames, *out); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, file, series, frames, out string) error {
	f, err := nwb.Open(ctx, file)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := f.H5().Dataset(ctx, series+"/data")
	if err != nil {
		return err
	}
	if data.NDim() != 3 {
		return fmt.Errorf("meanimage: %s has shape %v, not frames × height × width", data.Path(), data.Shape())
	}
	sel, err := selection.Parse(frames + ", :, :")
	if err != nil {
		return err
	}
	stack, err := h5.Read[float64](ctx, data, sel) // the frames' chunks, fetched and decoded in parallel
	if err != nil {
		return err
	}
	img, err := mean(stack)
	if err != nil {
		return fmt.Errorf("meanimage: %s[%s]: %w", data.Path(), frames, err)
	}
	w, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := png.Encode(w, img); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// mean averages the frames of a frames × height × width stack into an image
// that spans the full 16-bit range.
func mean(stack *h5.Typed[float64]) (*image.Gray16, error) {
	n, h, w := stack.Shape[0], stack.Shape[1], stack.Shape[2]
	if n == 0 || h == 0 || w == 0 {
		return nil, fmt.Errorf("no pixels in a stack of shape %v", stack.Shape)
	}
	sum := make([]float64, h*w)
	for i, v := range stack.Data {
		sum[i%(h*w)] += v / float64(n)
	}
	lo, hi := sum[0], sum[0]
	for _, v := range sum {
		lo, hi = min(lo, v), max(hi, v)
	}
	img := image.NewGray16(image.Rect(0, 0, w, h))
	for i, v := range sum {
		y := 0.0
		if hi > lo {
			y = (v - lo) / (hi - lo) * 65535
		}
		img.SetGray16(i%w, i/w, color.Gray16{Y: uint16(y + 0.5)})
	}
	return img, nil
}
