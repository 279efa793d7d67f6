package quicklook

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// ErrShape is wrapped by errors for data that has no plot: a scalar, an
// empty selection, or more than two dimensions.
var ErrShape = errors.New("quicklook: no plot of this shape")

// Labels are a plot's title and axis labels.
type Labels struct {
	Title, X, Y string
}

// Series is one line of a plot: its values, and its name in the legend (""
// for none).
type Series struct {
	Name string
	Y    []float64
}

// Lines draws each series as a line against x (nil: 0, 1, …; otherwise as
// long as every series). Points whose x or y is NaN or infinite are left
// out.
func Lines(x []float64, series []Series, l Labels) (*plot.Plot, error) {
	p := newPlot(l)
	legend := false
	for i, s := range series {
		if x != nil && len(x) != len(s.Y) {
			return nil, fmt.Errorf("quicklook: series %q has %d values for %d x values", s.Name, len(s.Y), len(x))
		}
		xys := make(plotter.XYs, 0, len(s.Y))
		for j, y := range s.Y {
			xv := float64(j)
			if x != nil {
				xv = x[j]
			}
			if finite(xv) && finite(y) {
				xys = append(xys, plotter.XY{X: xv, Y: y})
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		line.Color = lineColor(i, len(series))
		p.Add(line)
		if s.Name != "" {
			p.Legend.Add(s.Name, line)
			legend = true
		}
	}
	if legend {
		p.Legend.Top, p.Legend.Left = true, false
	}
	return p, nil
}

// Image draws rows×cols values (row-major) as a heat map, row 0 at the top
// as images are shown, in the Kindlmann palette stretched over the finite
// values' range (NaN in grey). The title gets the range.
func Image(values []float64, rows, cols int, l Labels) (*plot.Plot, error) {
	if rows <= 0 || cols <= 0 || len(values) != rows*cols {
		return nil, fmt.Errorf("%w: %d values for a %d×%d image", ErrShape, len(values), rows, cols)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if finite(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	l.Title += fmt.Sprintf("  [%.4g … %.4g]", lo, hi)
	p := newPlot(l)
	pal := moreland.Kindlmann()
	pal.SetMin(lo)
	pal.SetMax(math.Max(hi, lo+math.Abs(lo)*1e-9+1e-300))
	hm := plotter.NewHeatMap(grid{values, rows, cols}, pal.Palette(256))
	hm.Min, hm.Max = pal.Min(), pal.Max()
	hm.NaN = color.Gray{Y: 160}
	p.Add(hm)
	p.Y.Scale = plot.InvertedScale{Normalizer: p.Y.Scale}
	return p, nil
}

// grid is a row-major image as the GridXYZ a heat map draws: column c at
// x = c, row r at y = r.
type grid struct {
	v          []float64
	rows, cols int
}

func (g grid) Dims() (c, r int)   { return g.cols, g.rows }
func (g grid) Z(c, r int) float64 { return g.v[r*g.cols+c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }
func finite(v float64) bool       { return !math.IsNaN(v) && !math.IsInf(v, 0) }
func newPlot(l Labels) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = l.Title, l.X, l.Y
	return p
}
func lineColor(i, n int) color.Color { return palette10[i%len(palette10)] }

// palette10 are the line colours, matplotlib's tab10.
var palette10 = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255},
	color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255}, color.RGBA{188, 189, 34, 255},
	color.RGBA{23, 190, 207, 255},
}

// WritePNG draws the plots one above the other, their axes aligned, into a
// PNG of width×height.
func WritePNG(w io.Writer, width, height vg.Length, plots ...*plot.Plot) error {
	if len(plots) == 0 {
		return errors.New("quicklook: no plot to write")
	}
	img := vgimg.New(width, height)
	dc := draw.New(img)
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(rows, draw.Tiles{Rows: len(plots), Cols: 1, PadY: vg.Points(8)}, dc)
	for i, p := range plots {
		p.Draw(canvases[i][0])
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// SavePNG writes the plots (see WritePNG) to the file path.
func SavePNG(path string, width, height vg.Length, plots ...*plot.Plot) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WritePNG(f, width, height, plots...); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
