// Command raster draws the spike raster of an NWB file's units table above
// the population firing rate, and writes the figure as a PNG.
//
//	go run ./raster [-o raster.png] [-bin 1] ../testdata/nwb/tables.nwb
package main

import (
	"context"
	"flag"
	"fmt"
	"image/color"
	"log"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	_ "github.com/lindigo/lindi/dandi" // DANDI addresses (dandi://…) as FILE
	"github.com/lindigo/lindi/nwb"
)

func main() {
	out := flag.String("o", "raster.png", "the PNG to write")
	bin := flag.Float64("bin", 1, "histogram bin width in seconds")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: raster [-o OUT.png] [-bin SECONDS] FILE")
		os.Exit(2)
	}
	if err := run(context.Background(), flag.Arg(0), *out, *bin); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, file, out string, bin float64) error {
	f, err := nwb.Open(ctx, file)
	if err != nil {
		return err
	}
	defer f.Close()
	units, err := f.Units(ctx)
	if err != nil {
		return err
	}
	trains, err := units.SpikeTrains(ctx, 0, units.Len()) // one read of the index, one of the times
	if err != nil {
		return err
	}
	raster, rate, err := figures(trains, bin)
	if err != nil {
		return err
	}
	return savePNG(out, 8*vg.Inch, 6*vg.Inch, raster, rate)
}

// savePNG draws the plots one above the other, their axes aligned, into a
// PNG of width×height (at vgimg's 96 dpi) in the file path.
func savePNG(path string, width, height vg.Length, plots ...*plot.Plot) error {
	img := vgimg.New(width, height)
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(rows, draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(8)}, draw.New(img))
	for i, p := range plots {
		p.Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// figures builds the raster (a tick per spike, a row per unit) and the
// histogram of the population rate in spikes per second per unit.
func figures(trains [][]float64, bin float64) (*plot.Plot, *plot.Plot, error) {
	var ticks plotter.XYs
	var all plotter.Values
	for u, times := range trains {
		for _, t := range times {
			ticks = append(ticks, plotter.XY{X: t, Y: float64(u)})
			all = append(all, t)
		}
	}
	if len(all) == 0 || !(bin > 0) {
		return nil, nil, fmt.Errorf("raster: no spikes, or bin %v not positive", bin)
	}
	raster := plot.New()
	raster.Title.Text = fmt.Sprintf("%d units, %d spikes", len(trains), len(all))
	raster.Y.Label.Text = "unit"
	sc, err := plotter.NewScatter(ticks)
	if err != nil {
		return nil, nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Shape: tick{}, Radius: vg.Points(3), Color: color.Black}
	raster.Add(sc)

	lo, hi := plotter.Range(plotter.XValues{XYer: ticks})
	h, err := plotter.NewHist(all, max(1, int((hi-lo)/bin+0.5)))
	if err != nil {
		return nil, nil, err
	}
	for i := range h.Bins {
		h.Bins[i].Weight /= (h.Bins[i].Max - h.Bins[i].Min) * float64(len(trains))
	}
	h.FillColor = color.Gray{Y: 120}
	rate := plot.New()
	rate.Add(h)
	rate.X.Label.Text = "time (s)"
	rate.Y.Label.Text = "rate (spikes/s per unit)"
	rate.X.Min, rate.X.Max = raster.X.Min, raster.X.Max
	return raster, rate, nil
}

// tick is a glyph drawn as a short vertical line, as rasters are.
type tick struct{}

func (tick) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.StrokeLine2(draw.LineStyle{Color: sty.Color, Width: vg.Points(1)}, pt.X, pt.Y-sty.Radius, pt.X, pt.Y+sty.Radius)
}
