package quicklook

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/selection"
)

// MaxLines is the most columns of a 2-D selection Dataset draws as lines;
// a wider one is drawn as an image.
const MaxLines = 16

// Dataset reads the selection sel of the dataset at path in f (nil: all of
// it) and draws it: a 1-D result as a line, a 2-D one as a line per column
// (MaxLines at most) or as an image. Axes are labelled with the dataset's
// axes and the positions selected on them; the data of an NWB TimeSeries is
// drawn in its unit (conversion and offset applied) against its time axis
// (timestamps, or starting time and rate) when the selection keeps the
// first axis.
func Dataset(ctx context.Context, f *h5.File, dataset string, sel selection.Selection) (*Figure, error) {
	fig, err := read(ctx, f, dataset, sel)
	if err != nil {
		return nil, err
	}
	return fig.draw()
}

// MaxTraces is the most columns of a 2-D selection Traces draws.
const MaxTraces = 256

// Traces is Dataset's plot of a 2-D selection (time × channel) as stacked
// traces: each column (MaxTraces at most) offset from the next, the first
// at the top, labelled on the y axis by its electrode (an NWB
// ElectricalSeries' electrodes) or its index. A 1-D selection is one trace.
func Traces(ctx context.Context, f *h5.File, dataset string, sel selection.Selection) (*Figure, error) {
	fig, err := read(ctx, f, dataset, sel)
	if err != nil {
		return nil, err
	}
	if len(fig.shape) == 2 && fig.shape[1] > MaxTraces {
		return nil, fmt.Errorf("%w: %d traces, at most %d stack (select fewer columns)", ErrShape, fig.shape[1], MaxTraces)
	}
	p, err := fig.lines()
	if err != nil {
		return nil, err
	}
	p.SetStack()
	return p, nil
}

// selected is what Dataset read: the values, their output shape, and the
// labels of the axes.
type selected struct {
	title, yLabel string
	shape         []int
	data          []float64
	v             axisView
}

func read(ctx context.Context, f *h5.File, dataset string, sel selection.Selection) (*selected, error) {
	ds, err := f.Dataset(ctx, dataset)
	if err != nil {
		return nil, err
	}
	shape := ds.Shape()
	r, err := sel.Resolve(shape)
	if err != nil {
		return nil, fmt.Errorf("quicklook: %s: %w", ds.Path(), err)
	}
	out := r.Shape()
	if len(out) < 1 || len(out) > 2 || r.Len() == 0 {
		return nil, fmt.Errorf("%w: %s[%s] has shape %v; select 1 or 2 dimensions with some elements (e.g. \"0, :, :\" for the first image of a stack)", ErrShape, ds.Path(), selText(sel), out)
	}
	axes, err := keptAxes(sel, shape)
	if err != nil {
		return nil, fmt.Errorf("quicklook: %s[%s]: %w", ds.Path(), sel, err)
	}
	a, err := h5.Read[float64](ctx, ds, sel)
	if err != nil {
		return nil, err
	}
	fig := &selected{
		title:  fmt.Sprintf("%s[%s]  %v of %v %s", ds.Path(), selText(sel), out, shape, ds.DType()),
		yLabel: ds.Name(),
		shape:  out,
		data:   a.Data,
		v:      axisView{axes: axes},
	}
	if ts := timeSeriesOf(ctx, f, ds); ts != nil {
		if err := fig.v.timeAxis(ctx, ts); err != nil {
			return nil, err
		}
		for i := range fig.data {
			fig.data[i] = fig.data[i]*ts.Conversion() + ts.Offset()
		}
		fig.v.electrodes = electrodesOf(ctx, f, ds)
		if u := ts.Unit(); u != "" {
			fig.yLabel += " (" + u + ")"
		}
	}
	return fig, nil
}

// draw picks the figure of the selection's shape.
func (fig *selected) draw() (*Figure, error) {
	v := &fig.v
	if len(fig.shape) == 1 {
		return Lines(v.x(0), []Series{{Y: fig.data}}, Labels{Title: fig.title, X: v.label(0), Y: fig.yLabel})
	}
	rows, cols := fig.shape[0], fig.shape[1]
	if cols > MaxLines {
		return Image(fig.data, rows, cols, Labels{Title: fig.title, X: v.indexLabel(1), Y: v.indexLabel(0)})
	}
	return fig.lines()
}

// lines draws each column of the selection as a line.
func (fig *selected) lines() (*Figure, error) {
	v := &fig.v
	if len(fig.shape) == 1 {
		return Lines(v.x(0), []Series{{Y: fig.data}}, Labels{Title: fig.title, X: v.label(0), Y: fig.yLabel})
	}
	rows, cols := fig.shape[0], fig.shape[1]
	series := make([]Series, cols)
	for c := range series {
		y := make([]float64, rows)
		for i := range y {
			y[i] = fig.data[i*cols+c]
		}
		series[c] = Series{Name: v.columnName(c), Y: y}
	}
	return Lines(v.x(0), series, Labels{Title: fig.title, X: v.label(0), Y: fig.yLabel})
}

func selText(sel selection.Selection) string {
	if len(sel) == 0 {
		return "..."
	}
	return sel.String()
}

// axis is a dataset axis the selection keeps: its number and the positions
// selected on it, in output order.
type axis struct {
	dim int
	idx []int
}

// keptAxes lists the axes of an array of the given shape that sel keeps
// (those it does not pick one position of), with their positions.
func keptAxes(sel selection.Selection, shape []int) ([]axis, error) {
	var items []selection.Item
	for i, it := range sel {
		if (selection.Selection{it}).String() == "..." {
			rest := len(shape) - (len(sel) - 1)
			for range max(rest, 0) {
				items = append(items, selection.All())
			}
			continue
		}
		if len(items) >= len(shape) {
			return nil, fmt.Errorf("item %d: more items than the %d axes", i, len(shape))
		}
		items = append(items, it)
	}
	for len(items) < len(shape) {
		items = append(items, selection.All())
	}
	var kept []axis
	for k, it := range items {
		r, err := selection.Selection{it}.Resolve([]int{shape[k]})
		if err != nil {
			return nil, err
		}
		switch len(r.Shape()) {
		case 0:
			continue
		case 1:
		default:
			return nil, errors.New("a new axis cannot be drawn")
		}
		p, err := r.Plan([]int{max(shape[k], 1)})
		if err != nil {
			return nil, err
		}
		idx := make([]int, r.Shape()[0])
		for cp := range p.Chunks() {
			ap := &cp.Axes[0]
			for i := range ap.Len() {
				idx[ap.Dst(i)] = ap.Src(i)
			}
		}
		kept = append(kept, axis{dim: k, idx: idx})
	}
	return kept, nil
}

// axisView labels the axes of a plot of a selection.
type axisView struct {
	axes  []axis
	times []float64 // the times of axis 0's positions, for a TimeSeries that keeps it
	// electrodes are the electrode table rows of an ElectricalSeries'
	// channels (dimension 1), or nil.
	electrodes []int64
}

func (v *axisView) axisName(i int) string {
	if i == 1 && len(v.axes) == 2 && v.times != nil {
		return "channel"
	}
	return fmt.Sprintf("axis %d", v.axes[i].dim)
}

// columnName names column c of a 2-D selection: its electrode, or its
// position on the axis.
func (v *axisView) columnName(c int) string {
	p := v.axes[1].idx[c]
	if v.electrodes != nil && v.axes[1].dim == 1 && p < len(v.electrodes) {
		return fmt.Sprintf("electrode %d", v.electrodes[p])
	}
	return fmt.Sprintf("%s %d", v.axisName(1), p)
}

// x is the x values of output axis i: times, or the positions selected.
func (v *axisView) x(i int) []float64 {
	if i == 0 && v.times != nil {
		return v.times
	}
	x := make([]float64, len(v.axes[i].idx))
	for j, p := range v.axes[i].idx {
		x[j] = float64(p)
	}
	return x
}

func (v *axisView) label(i int) string {
	if i == 0 && v.times != nil {
		return "time (s)"
	}
	return v.indexLabel(i)
}

func (v *axisView) indexLabel(i int) string {
	idx := v.axes[i].idx
	return fmt.Sprintf("%s index (%d positions, %d…%d)", v.axisName(i), len(idx), idx[0], idx[len(idx)-1])
}

// timeAxis sets the times of the positions of output axis 0 when it is the
// series' first (time) axis.
func (v *axisView) timeAxis(ctx context.Context, ts *nwb.TimeSeries) error {
	if len(v.axes) == 0 || v.axes[0].dim != 0 {
		return nil
	}
	idx := v.axes[0].idx
	lo, hi := idx[0], idx[0]
	for _, p := range idx {
		lo, hi = min(lo, p), max(hi, p)
	}
	t, err := ts.Timestamps(ctx, lo, hi+1)
	if err != nil {
		return fmt.Errorf("quicklook: the times of %s: %w", ts.Path(), err)
	}
	v.times = make([]float64, len(idx))
	for j, p := range idx {
		v.times[j] = t[p-lo]
	}
	return nil
}

// timeSeriesOf is the NWB TimeSeries whose data ds is, or nil.
func timeSeriesOf(ctx context.Context, f *h5.File, ds *h5.Dataset) *nwb.TimeSeries {
	if ds.Name() != "data" {
		return nil
	}
	nf, err := nwb.New(f)
	if err != nil {
		return nil
	}
	ts, err := nf.TimeSeries(ctx, path.Dir(ds.Path()))
	if err != nil || ts.Data().Path() != ds.Path() {
		return nil
	}
	return ts
}

// electrodesOf reads the electrodes dataset beside an ElectricalSeries'
// data: one electrode table row per channel; nil when there is none that
// fits.
func electrodesOf(ctx context.Context, f *h5.File, ds *h5.Dataset) []int64 {
	shape := ds.Shape()
	e, err := f.Dataset(ctx, path.Dir(ds.Path())+"/electrodes")
	if err != nil || len(shape) != 2 || len(e.Shape()) != 1 || e.Shape()[0] != shape[1] {
		return nil
	}
	a, err := h5.Read[int64](ctx, e, nil)
	if err != nil {
		return nil
	}
	return a.Data
}
