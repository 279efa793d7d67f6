package quicklook

import (
	"image"
	"image/color"
	"math"
	"strconv"
)

// draw draws the figure in img where l says.
func (f *Figure) draw(img *image.RGBA, fs *faces, l *layout) {
	if f.isImage() {
		f.drawImage(img, fs, l)
		return
	}
	ax := l.area
	l.x.p0, l.x.p1 = float64(ax.Min.X), float64(ax.Max.X)
	for i, s := range f.series {
		var p polylines
		for j, y := range s.Y {
			x := f.xAt(j)
			if !f.keep(x, y) {
				p.gap()
				continue
			}
			p.add(l.x.pix(x), l.y.pix(f.yAt(i, y)))
		}
		p.gap()
		stroke(img, ax, p.done, lineColor(i))
	}
	xTicks := axisTicks(l.x, 0, ax.Dx(), 70, func(s string) int { return textWidth(fs.tick, s) })
	f.drawAxes(img, fs, ax, xTicks, l.yTicks)
	f.drawLegend(img, fs, ax)
}

// drawImage draws the values as an image of square pixels, as large as
// fits in the plot area and centred in it, and its colour bar.
func (f *Figure) drawImage(img *image.RGBA, fs *faces, l *layout) {
	area := l.area
	s := math.Min(float64(area.Dx())/float64(f.cols), float64(area.Dy())/float64(f.rows))
	w, h := max(1, int(math.Round(float64(f.cols)*s))), max(1, int(math.Round(float64(f.rows)*s)))
	x0, y0 := area.Min.X+(area.Dx()-w)/2, area.Min.Y+(area.Dy()-h)/2
	ax := image.Rect(x0, y0, x0+w, y0+h)
	cm := newColorMap(f.lo, f.hi)
	for py := range h {
		row := f.values[py*f.rows/h*f.cols:]
		o := img.PixOffset(x0, y0+py)
		for px := range w {
			c := cm.at(row[px*f.cols/w])
			copy(img.Pix[o+4*px:], []uint8{c.R, c.G, c.B, c.A})
		}
	}
	xs := scale{lo: -0.5, hi: float64(f.cols) - 0.5, p0: float64(ax.Min.X), p1: float64(ax.Max.X)}
	ys := scale{lo: -0.5, hi: float64(f.rows) - 0.5, p0: float64(ax.Min.Y), p1: float64(ax.Max.Y)}
	xTicks := axisTicks(xs, 1, ax.Dx(), 70, func(s string) int { return textWidth(fs.tick, s) })
	yTicks := axisTicks(ys, 1, ax.Dy(), 40, func(string) int { return lineHeight(fs.tick) })
	f.drawAxes(img, fs, ax, xTicks, yTicks)

	bar := image.Rect(ax.Max.X+barGap, ax.Min.Y, ax.Max.X+barGap+barWidth, ax.Max.Y)
	for py := bar.Min.Y; py < bar.Max.Y; py++ {
		t := 1 - (float64(py-bar.Min.Y)+0.5)/float64(bar.Dy())
		fillRect(img, image.Rect(bar.Min.X, py, bar.Max.X, py+1), kindlmannAt(t))
	}
	box(img, bar)
	lh := lineHeight(fs.tick)
	for _, t := range f.barTicks(fs, bar.Dy()) {
		y := bar.Min.Y + int(math.Round(t.at))
		fillRect(img, image.Rect(bar.Max.X, y, bar.Max.X+tickLen, y+1), black)
		drawText(img, fs.tick, t.label, bar.Max.X+tickLen+tickGap, clamp(y-lh/2, ax.Min.Y-lh/2, ax.Max.Y-lh/2), black)
	}
}

// drawAxes draws the box around the axes ax, their ticks, the labels and
// the title.
func (f *Figure) drawAxes(img *image.RGBA, fs *faces, ax image.Rectangle, xTicks, yTicks []tick) {
	box(img, ax)
	lh := lineHeight(fs.tick)
	for _, t := range xTicks {
		x := clamp(int(math.Floor(t.at)), ax.Min.X, ax.Max.X-1)
		fillRect(img, image.Rect(x, ax.Max.Y, x+1, ax.Max.Y+tickLen+1), black)
		drawText(img, fs.tick, t.label, x-textWidth(fs.tick, t.label)/2, ax.Max.Y+1+tickLen+tickGap, black)
	}
	yLabelW := 0
	for _, t := range yTicks {
		y := clamp(int(math.Floor(t.at)), ax.Min.Y, ax.Max.Y-1)
		w := textWidth(fs.tick, t.label)
		yLabelW = max(yLabelW, w)
		fillRect(img, image.Rect(ax.Min.X-1-tickLen, y, ax.Min.X, y+1), black)
		drawText(img, fs.tick, t.label, ax.Min.X-1-tickLen-tickGap-w, y-lh/2, black)
	}
	if s := f.labels.X; s != "" {
		s = fitText(fs.label, s, img.Rect.Dx()-2*pad)
		x := clamp(ax.Min.X+(ax.Dx()-textWidth(fs.label, s))/2, pad, img.Rect.Dx()-pad-textWidth(fs.label, s))
		drawText(img, fs.label, s, x, ax.Max.Y+1+tickLen+tickGap+lh+tickGap, black)
	}
	if s := f.labels.Y; s != "" {
		s = fitText(fs.label, s, ax.Dy()+2*pad)
		w := textWidth(fs.label, s)
		drawTextUp(img, fs.label, s, ax.Min.X-1-tickLen-tickGap-yLabelW-tickGap-lineHeight(fs.label), ax.Min.Y+(ax.Dy()-w)/2, black)
	}
	if s := f.labels.Title; s != "" {
		s = fitText(fs.title, s, img.Rect.Dx()-2*pad)
		w := textWidth(fs.title, s)
		x := clamp(ax.Min.X+(ax.Dx()-w)/2, pad, img.Rect.Dx()-pad-w)
		drawText(img, fs.title, s, x, ax.Min.Y-1-tickGap-lineHeight(fs.title), black)
	}
}

// Legend sizes in pixels.
const (
	swatch   = 20 // the length of a line in the legend
	maxEntry = 24 // the most characters of a name shown
)

// legendWidth is the width of the legend, 0 for none.
func (f *Figure) legendWidth(fs *faces) int {
	w := 0
	for _, i := range f.legend() {
		w = max(w, textWidth(fs.tick, entryName(f.series[i].Name)))
	}
	if w == 0 {
		return 0
	}
	return tickGap + swatch + tickGap + w + tickGap
}

func entryName(s string) string {
	if r := []rune(s); len(r) > maxEntry {
		return string(r[:maxEntry-1]) + "…"
	}
	return s
}

// drawLegend lists the series with names right of the axes ax, where it
// covers no data; those that do not fit in the axes' height are counted.
func (f *Figure) drawLegend(img *image.RGBA, fs *faces, ax image.Rectangle) {
	named := f.legend()
	if len(named) == 0 {
		return
	}
	lh := lineHeight(fs.tick) + 2
	fit := min(len(named), (ax.Dy()-2*tickGap)/lh)
	if fit < len(named) {
		fit = max(fit-1, 0)
	}
	rows := fit
	if fit < len(named) {
		rows++
	}
	r := image.Rect(ax.Max.X+pad, ax.Min.Y, ax.Max.X+pad+f.legendWidth(fs), ax.Min.Y+rows*lh+2*tickGap)
	fillRect(img, r, white)
	frame(img, r, lightBox)
	for k, i := range named[:fit] {
		y := r.Min.Y + tickGap + k*lh
		mid := float64(y) + float64(lh)/2
		x := float64(r.Min.X + tickGap)
		stroke(img, r, [][]pt{{{x, mid}, {x + swatch, mid}}}, lineColor(i))
		drawText(img, fs.tick, entryName(f.series[i].Name), r.Min.X+tickGap+swatch+tickGap, y+1, black)
	}
	if fit < len(named) {
		drawText(img, fs.tick, "… "+strconv.Itoa(len(named)-fit)+" more", r.Min.X+tickGap, r.Min.Y+tickGap+fit*lh+1, black)
	}
}

// box draws a black frame just outside r.
func box(img *image.RGBA, r image.Rectangle) { frame(img, r.Inset(-1), black) }

// frame draws a one-pixel frame on the edge of r.
func frame(img *image.RGBA, r image.Rectangle, c color.Color) {
	fillRect(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+1), c)
	fillRect(img, image.Rect(r.Min.X, r.Max.Y-1, r.Max.X, r.Max.Y), c)
	fillRect(img, image.Rect(r.Min.X, r.Min.Y, r.Min.X+1, r.Max.Y), c)
	fillRect(img, image.Rect(r.Max.X-1, r.Min.Y, r.Max.X, r.Max.Y), c)
}

func clamp(v, lo, hi int) int { return max(lo, min(v, hi)) }

// lineColor is the colour of the i-th line: matplotlib's tab10, in turn.
func lineColor(i int) color.RGBA { return tab10[i%len(tab10)] }

var tab10 = [...]color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255}, {148, 103, 189, 255},
	{140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}, {188, 189, 34, 255}, {23, 190, 207, 255},
}
