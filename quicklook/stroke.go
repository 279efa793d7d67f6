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
			ux, uy := unit(a, b)
			// Ends extend by up to half a width to fill the outside of a
			// turn: a line's ends, and turns, by all of it; straight on, by
			// none, as overlapping segments would draw a denser line.
			ea, eb := hw, hw
			if i > 0 {
				px, py := unit(l[i-1], a)
				ea = hw * (1 - (px*ux + py*uy)) / 2
			}
			if i+2 < len(l) {
				nx, ny := unit(b, l[i+2])
				eb = hw * (1 - (nx*ux + ny*uy)) / 2
			}
			ax, ay := a.x-ux*ea-ox, a.y-uy*ea-oy
			bx, by := b.x+ux*eb-ox, b.y+uy*eb-oy
			nx, ny := -uy*hw, ux*hw
			z.MoveTo(float32(ax+nx), float32(ay+ny))
			z.LineTo(float32(bx+nx), float32(by+ny))
			z.LineTo(float32(bx-nx), float32(by-ny))
			z.LineTo(float32(ax-nx), float32(ay-ny))
			z.ClosePath()
		}
	}
	z.Draw(dst, r, image.NewUniform(c), image.Point{})
}

// unit is the unit vector from a to b (along x when they coincide).
func unit(a, b pt) (float64, float64) {
	dx, dy := b.x-a.x, b.y-a.y
	d := math.Hypot(dx, dy)
	if d < 1e-9 {
		return 1, 0
	}
	return dx / d, dy / d
}

// fillRect paints r in c.
func fillRect(dst *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}
