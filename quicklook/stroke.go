package quicklook

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/vector"
)

// lineWidth is the width of a line in pixels (matplotlib's 1.5 pt at 72
// dpi, its default).
const lineWidth = 1.5

type pt struct{ x, y float64 }

// polylines collects a line in pixels as polylines, broken where a point
// is left out, and keeps at most four points per pixel column (the first,
// the lowest, the highest and the last), so that a million points draw as
// fast as a thousand and look the same.
type polylines struct {
	done [][]pt
	cur  []pt

	col          int // the pixel column of the points being merged
	n            int // how many points fell in it
	lo, hi, last pt
}

// add appends the point (x, y).
func (p *polylines) add(x, y float64) {
	c := int(math.Floor(x))
	if p.n > 0 && c == p.col {
		q := pt{x, y}
		if y < p.lo.y {
			p.lo = q
		}
		if y > p.hi.y {
			p.hi = q
		}
		p.last, p.n = q, p.n+1
		return
	}
	p.flushColumn()
	p.cur = append(p.cur, pt{x, y})
	p.col, p.n = c, 1
	p.lo, p.hi, p.last = pt{x, y}, pt{x, y}, pt{x, y}
}

// flushColumn ends the column being merged.
func (p *polylines) flushColumn() {
	if p.n > 1 {
		a, b := p.lo, p.hi
		if a.x > b.x {
			a, b = b, a
		}
		p.cur = append(p.cur, a, b, p.last)
	}
	p.n = 0
}

// gap breaks the line.
func (p *polylines) gap() {
	p.flushColumn()
	if len(p.cur) > 0 {
		p.done = append(p.done, p.cur)
		p.cur = nil
	}
}

// stroke draws the polylines lineWidth wide, anti-aliased, in c, clipped to
// r (their coordinates are those of dst).
func stroke(dst *image.RGBA, r image.Rectangle, lines [][]pt, c color.Color) {
	z := vector.NewRasterizer(r.Dx(), r.Dy())
	ox, oy := float64(r.Min.X), float64(r.Min.Y)
	const hw = lineWidth / 2
	for _, l := range lines {
		for i := range max(len(l)-1, 1) {
			a, b := l[i], l[min(i+1, len(l)-1)]
			dx, dy := b.x-a.x, b.y-a.y
			d := math.Hypot(dx, dy)
			if d < 1e-9 {
				dx, dy, d = 1, 0, 1
			}
			ux, uy := dx/d*hw, dy/d*hw // along the segment, half a width: square ends join the segments
			ax, ay, bx, by := a.x-ux-ox, a.y-uy-oy, b.x+ux-ox, b.y+uy-oy
			z.MoveTo(float32(ax-uy), float32(ay+ux))
			z.LineTo(float32(bx-uy), float32(by+ux))
			z.LineTo(float32(bx+uy), float32(by-ux))
			z.LineTo(float32(ax+uy), float32(ay-ux))
			z.ClosePath()
		}
	}
	z.Draw(dst, r, image.NewUniform(c), image.Point{})
}

// fillRect paints r in c.
func fillRect(dst *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}
