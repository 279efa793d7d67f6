package main

import (
	"context"
	"flag"
	"math"

	"github.com/lindigo/lindi/quicklook"
	"github.com/lindigo/lindi/selection"
)

// cmdPlot draws a selection of a dataset into a PNG.
func cmdPlot(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	out := fs.String("o", "plot.png", "the PNG to write")
	width := fs.Float64("width", 8, "width in inches (96 pixels each)")
	height := fs.Float64("height", 4.5, "height in inches")
	stack := fs.Bool("stack", false, "draw the columns of a 2-D selection as stacked traces, each offset from the next and labelled by its electrode or index")
	ctx, pos, err := parseReadArgs(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 || len(pos) > 3 {
		return usagef("plot takes FILE DATASET [SELECTION]")
	}
	if !(*width > 0 && *width <= 100 && *height > 0 && *height <= 100) {
		return usagef("--width and --height must be between 0 and 100 inches")
	}
	var sel selection.Selection
	if len(pos) == 3 {
		if sel, err = selection.Parse(pos[2]); err != nil {
			return err
		}
	}
	f, err := openFile(ctx, pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	draw := quicklook.Dataset
	if *stack {
		draw = quicklook.Traces
	}
	p, err := draw(ctx, f, pos[1], sel)
	if err != nil {
		return err
	}
	const dpi = 96
	return quicklook.SavePNG(*out, int(math.Round(*width*dpi)), int(math.Round(*height*dpi)), p)
}
