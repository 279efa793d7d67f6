package quicklook

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// ErrShape is wrapped by errors for data that has no plot: a scalar, an
// empty selection, more than two dimensions, or values that do not fit the
// shape given.
var ErrShape = errors.New("quicklook: no plot of this shape")

// Labels are a figure's title and axis labels ("" for none).
type Labels struct {
	Title, X, Y string
}

// Series is one line of a figure: its values, and its name in the legend
// ("" for none).
type Series struct {
	Name string
	Y    []float64
}

// Figure is one plot, lines or an image, ready to be drawn by WritePNG. Its
// zero value is not a figure: make one with Lines, Image or Dataset.
type Figure struct {
	labels  Labels
	logY    bool
	shift   []float64 // stacked lines: what is added to each series' values
	spacing float64   // stacked lines: between baselines

	// lines
	x      []float64 // nil: 0, 1, …
	series []Series

	// image
	values     []float64
	rows, cols int
	lo, hi     float64 // the range of the finite values
}

// Lines is a figure with each series drawn as a line against x (nil: 0,
// 1, …; otherwise as long as every series). A point whose x or y is NaN or
// infinite is left out and breaks its line. Series with names are listed in
// a legend. Lines keeps x and the series' values, it does not copy them:
// they must not change until the figure is written.
func Lines(x []float64, series []Series, l Labels) (*Figure, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: no series to draw", ErrShape)
	}
	for _, s := range series {
		if x != nil && len(x) != len(s.Y) {
			return nil, fmt.Errorf("%w: series %q has %d values for %d x values", ErrShape, s.Name, len(s.Y), len(x))
		}
	}
	return &Figure{labels: l, x: x, series: series}, nil
}

// Image is a figure of rows×cols values (row-major) drawn as an image, row
// 0 at the top, each value a square of the Kindlmann colour map stretched
// over the finite values' range (NaN in grey), with a colour bar. The title
// gets the range. Image keeps values, it does not copy them: they must not
// change until the figure is written.
func Image(values []float64, rows, cols int, l Labels) (*Figure, error) {
	if rows <= 0 || cols <= 0 || len(values)%rows != 0 || len(values)/rows != cols {
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
	return &Figure{labels: l, values: values, rows: rows, cols: cols, lo: lo, hi: hi}, nil
}

// SetLogY draws the y axis of a figure of lines on a logarithmic scale;
// values that are not positive are left out. It does nothing to an image.
func (f *Figure) SetLogY() {
	f.logY = f.series != nil
}

// SetStack draws the lines of a figure as stacked traces, as an
// electrophysiology viewer does: each series moved to a baseline of its
// own, the first at the top, one largest peak-to-peak range apart (each
// series centred on its mean), and labelled by its name (or its number) on
// the y axis, which then shows no values; there is no legend. It does
// nothing to an image, and turns off a logarithmic y axis.
func (f *Figure) SetStack() {
	if f.isImage() {
		return
	}
	f.logY = false
	n := len(f.series)
	means := make([]float64, n)
	spacing := 0.0
	for i, s := range f.series {
		lo, hi, sum, k := math.Inf(1), math.Inf(-1), 0.0, 0
		for j, v := range s.Y {
			if f.keep(f.xAt(j), v) {
				lo, hi, sum, k = min(lo, v), max(hi, v), sum+v, k+1
			}
		}
		if k > 0 {
			means[i] = sum / float64(k)
			spacing = max(spacing, hi-lo)
		}
	}
	if spacing == 0 {
		spacing = 1
	}
	f.spacing = spacing
	f.shift = make([]float64, n)
	for i := range f.shift {
		f.shift[i] = float64(n-1-i)*spacing - means[i]
	}
}

// stacked reports whether the lines are stacked traces.
func (f *Figure) stacked() bool { return f.shift != nil }

// yAt is the value of series i drawn for v: v, moved to its baseline when
// stacked.
func (f *Figure) yAt(i int, v float64) float64 {
	if f.shift == nil {
		return v
	}
	return v + f.shift[i]
}

// traceName labels stacked series i on the y axis.
func (f *Figure) traceName(i int) string {
	if s := f.series[i].Name; s != "" {
		return entryName(s)
	}
	return strconv.Itoa(i)
}

func (f *Figure) isImage() bool { return f.series == nil }

// legend lists the series with names (none for stacked traces, which are
// named on the y axis).
func (f *Figure) legend() []int {
	if f.stacked() {
		return nil
	}
	var named []int
	for i, s := range f.series {
		if s.Name != "" {
			named = append(named, i)
		}
	}
	return named
}

// dataRange is the range of the finite points of the lines, on each axis.
func (f *Figure) dataRange() (x, y [2]float64) {
	x, y = [2]float64{math.Inf(1), math.Inf(-1)}, [2]float64{math.Inf(1), math.Inf(-1)}
	for i, s := range f.series {
		for j, v := range s.Y {
			xv := f.xAt(j)
			if !f.keep(xv, v) {
				continue
			}
			x[0], x[1] = min(x[0], xv), max(x[1], xv)
			v = f.yAt(i, v)
			y[0], y[1] = min(y[0], v), max(y[1], v)
		}
	}
	return x, y
}

func (f *Figure) xAt(j int) float64 {
	if f.x == nil {
		return float64(j)
	}
	return f.x[j]
}

// keep says whether the point (x, y) is drawn.
func (f *Figure) keep(x, y float64) bool {
	return finite(x) && finite(y) && (!f.logY || y > 0)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
