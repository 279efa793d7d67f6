package quicklook

import (
	"image"
	"math"
	"strconv"
)

// layout is where a figure goes: its plot area, the room it needs left
// and right of it, and the scales and ticks its size decides.
type layout struct {
	area        image.Rectangle // Min.X and Max.X are set when every figure's room is known
	left, right int

	x, y   scale // lines
	yTicks []tick
}

// tick is a tick mark at pixel at, and its label.
type tick struct {
	at    float64
	label string
}

// layout places the figure between the rows top and bottom.
func (f *Figure) layout(fs *faces, top, bottom int) *layout {
	l := &layout{}
	l.area.Min.Y = top + pad
	if f.labels.Title != "" {
		l.area.Min.Y += lineHeight(fs.title) + tickGap
	}
	l.area.Max.Y = bottom - pad - tickLen - tickGap - lineHeight(fs.tick)
	if f.labels.X != "" {
		l.area.Max.Y -= tickGap + lineHeight(fs.label)
	}
	labelW := 0
	if f.isImage() {
		labelW = textWidth(fs.tick, strconv.Itoa(f.rows-1))
		bar := f.barTicks(fs, l.area.Dy())
		barW := 0
		for _, t := range bar {
			barW = max(barW, textWidth(fs.tick, t.label))
		}
		l.right = pad + barGap + barWidth + tickLen + tickGap + barW + pad
	} else {
		xr, yr := f.dataRange()
		l.x.lo, l.x.hi = padRange(xr[0], xr[1], false)
		l.y.lo, l.y.hi = padRange(yr[0], yr[1], f.logY)
		l.y.log = f.logY
		l.y.p0, l.y.p1 = float64(l.area.Max.Y), float64(l.area.Min.Y)
		if f.stacked() {
			l.yTicks = f.traceTicks(fs, l.y)
		} else {
			l.yTicks = axisTicks(l.y, 0, l.area.Dy(), 40, func(string) int { return lineHeight(fs.tick) })
		}
		for _, t := range l.yTicks {
			labelW = max(labelW, textWidth(fs.tick, t.label))
		}
		l.right = 3 * pad
		if w := f.legendWidth(fs); w > 0 {
			l.right = pad + w + pad
		}
	}
	l.left = pad + tickLen + tickGap + labelW
	if f.labels.Y != "" {
		l.left += lineHeight(fs.label) + tickGap
	}
	return l
}

// Colour bar sizes in pixels.
const (
	barGap   = 12
	barWidth = 14
)

// axisTicks are the ticks of an axis of s, length pixels long: as many
// as about one per every pixels fit with room(label) pixels between
// labels, at least minStep apart.
func axisTicks(s scale, minStep float64, length, every int, room func(string) int) []tick {
	lo, hi := s.lo, s.hi
	if minStep > 0 { // an image: element indices, not the edges of the elements
		lo, hi = math.Ceil(lo), math.Floor(hi)
	}
	if lo == hi {
		return []tick{{s.pix(lo), strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	var ts []tick
	for n := max(length/every, 2); n >= 1; n-- {
		var vals []float64
		var labels []string
		if s.log {
			vals, labels = logTicks(lo, hi, n)
		} else {
			var step float64
			vals, step = linearTicks(lo, hi, n, minStep)
			labels = tickLabels(vals, step)
		}
		ts = ts[:0]
		fits := true
		for i, v := range vals {
			ts = append(ts, tick{s.pix(v), labels[i]})
			if i > 0 && math.Abs(ts[i].at-ts[i-1].at) < float64(room(labels[i])+room(labels[i-1]))/2+8 {
				fits = false
			}
		}
		if fits {
			break
		}
	}
	return ts
}

// barTicks are the ticks of the colour bar of an image, height pixels
// high, at pixels from its top: nice values, or the ends of the range.
func (f *Figure) barTicks(fs *faces, height int) []tick {
	var ts []tick
	if f.hi > f.lo {
		bar := scale{lo: f.lo, hi: f.hi, p0: float64(height - 1), p1: 0}
		ts = axisTicks(bar, 0, height, 40, func(string) int { return lineHeight(fs.tick) })
	}
	if len(ts) < 2 {
		ts = []tick{{float64(height - 1), strconv.FormatFloat(f.lo, 'g', 4, 64)}, {0, strconv.FormatFloat(f.hi, 'g', 4, 64)}}
	}
	return ts
}

// traceTicks are the ticks of stacked traces: one at each trace's baseline,
// labelled with its name; every k-th only, from the first, when there is no
// room for all.
func (f *Figure) traceTicks(fs *faces, y scale) []tick {
	n := len(f.series)
	room := float64(lineHeight(fs.tick))
	gap := math.Abs(y.pix(0) - y.pix(f.spacing)) // pixels between baselines
	step := 1
	for gap*float64(step) < room && step < n {
		step++
	}
	var ts []tick
	for i := 0; i < n; i += step {
		ts = append(ts, tick{y.pix(float64(n-1-i) * f.spacing), f.traceName(i)})
	}
	return ts
}
