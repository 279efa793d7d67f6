package quicklook

import (
	"image"
	"image/color"
	"image/draw"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// goRegular is the parsed Go Regular font, parsed when first drawn so that
// importing the package costs nothing.
var goRegular = sync.OnceValues(func() (*opentype.Font, error) {
	return opentype.Parse(goregular.TTF)
})

// Text sizes in pixels: 13 px is matplotlib's 10 pt at 96 pixels per inch.
const (
	tickSize  = 13
	labelSize = 14
	titleSize = 16
)

// faces are the font faces of one drawing (a face is not safe for
// concurrent use, the font is).
type faces struct {
	tick, label, title font.Face
}

func newFaces() (*faces, error) {
	f, err := goRegular()
	if err != nil {
		return nil, err
	}
	face := func(size float64) (font.Face, error) {
		return opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	}
	var fs faces
	for _, p := range []struct {
		f    *font.Face
		size float64
	}{{&fs.tick, tickSize}, {&fs.label, labelSize}, {&fs.title, titleSize}} {
		if *p.f, err = face(p.size); err != nil {
			return nil, err
		}
	}
	return &fs, nil
}

// textWidth is the advance of s in pixels.
func textWidth(face font.Face, s string) int {
	return font.MeasureString(face, s).Ceil()
}

// lineHeight is the height of a line of text in pixels.
func lineHeight(face font.Face) int {
	m := face.Metrics()
	return (m.Ascent + m.Descent).Ceil()
}

// fitText shortens s with "…" until it is at most width pixels wide.
func fitText(face font.Face, s string, width int) string {
	r := []rune(s)
	for len(r) > 0 && textWidth(face, string(r)) > width {
		r = r[:len(r)-1]
		s = string(r) + "…"
		if textWidth(face, s) <= width {
			return s
		}
	}
	return string(r)
}

// drawText writes s with its top left corner at (x, y).
func drawText(dst draw.Image, face font.Face, s string, x, y int, c color.Color) {
	d := font.Drawer{Dst: dst, Src: image.NewUniform(c), Face: face,
		Dot: fixed.Point26_6{X: fixed.I(x), Y: fixed.I(y) + face.Metrics().Ascent}}
	d.DrawString(s)
}

// drawTextUp writes s reading upwards, the top left corner of its box
// (after the turn) at (x, y).
func drawTextUp(dst draw.Image, face font.Face, s string, x, y int, c color.Color) {
	w, h := textWidth(face, s), lineHeight(face)
	flat := image.NewAlpha(image.Rect(0, 0, w, h))
	drawText(flat, face, s, 0, 0, color.Opaque)
	up := image.NewAlpha(image.Rect(0, 0, h, w))
	for ty := range h {
		for tx := range w {
			up.SetAlpha(ty, w-1-tx, flat.AlphaAt(tx, ty))
		}
	}
	draw.DrawMask(dst, image.Rect(x, y, x+h, y+w), image.NewUniform(c), image.Point{}, up, image.Point{}, draw.Over)
}
