package quicklook

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"

	"github.com/lindigo/lindi/internal/atomicfile"
)

// MaxPixels is the largest width or height WritePNG draws.
const MaxPixels = 1 << 14

// WritePNG draws the figures one above the other, their plot areas of one
// height and aligned, into a PNG of width×height pixels.
// It fails, drawing nothing, when there is no figure, a figure is nil, or
// the size is not positive, over MaxPixels or too small for the figures'
// text.
func WritePNG(w io.Writer, width, height int, figs ...*Figure) error {
	img, err := render(width, height, figs)
	if err != nil {
		return err
	}
	return png.Encode(w, img)
}

// SavePNG writes the figures (see WritePNG) to the file path, replacing it
// whole or not at all (a temporary file beside it, renamed over it).
func SavePNG(path string, width, height int, figs ...*Figure) error {
	img, err := render(width, height, figs)
	if err != nil {
		return err
	}
	return atomicfile.Replace(path, func(w io.Writer) error { return png.Encode(w, img) }, nil)
}

// Sizes in pixels.
const (
	pad     = 8 // around a figure and between its parts
	tickLen = 4
	tickGap = 4 // between a tick and its label, a label and the next
	minArea = 16
)

var (
	black    = color.RGBA{0, 0, 0, 255}
	white    = color.RGBA{255, 255, 255, 255}
	lightBox = color.RGBA{204, 204, 204, 255}
)

// render draws the figures.
func render(width, height int, figs []*Figure) (*image.RGBA, error) {
	if len(figs) == 0 {
		return nil, errors.New("quicklook: no figure to draw")
	}
	for i, f := range figs {
		if f == nil || (f.series == nil && f.values == nil) {
			return nil, fmt.Errorf("quicklook: figure %d is not a figure made by Lines, Image or Dataset", i)
		}
	}
	if width <= 0 || height <= 0 || width > MaxPixels || height > MaxPixels {
		return nil, fmt.Errorf("quicklook: %d×%d pixels: want 1 to %d each way", width, height, MaxPixels)
	}
	fs, err := newFaces()
	if err != nil {
		return nil, err
	}
	layouts, err := stackLayouts(fs, figs, height)
	if err != nil {
		return nil, err
	}
	left, right := 0, 0
	for _, l := range layouts {
		left, right = max(left, l.left), max(right, l.right)
	}
	if width-left-right < minArea {
		return nil, fmt.Errorf("quicklook: %d pixels wide is too little for these figures", width)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	fillRect(img, img.Rect, white)
	for i, f := range figs {
		l := layouts[i]
		l.area.Min.X, l.area.Max.X = left, width-right
		f.draw(img, fs, l)
	}
	return img, nil
}

// stackLayouts places the figures one above the other in height pixels,
// their plot areas of one height: each figure takes the room its title,
// ticks and labels need, and the rest is shared equally.
func stackLayouts(fs *faces, figs []*Figure, height int) ([]*layout, error) {
	n := len(figs)
	around := make([]int, n)
	plot := height
	for i, f := range figs {
		around[i] = height - f.layout(fs, 0, height).area.Dy()
		plot -= around[i]
	}
	plot /= n
	if plot < minArea {
		return nil, fmt.Errorf("quicklook: %d pixels high is too little for %d figures", height, n)
	}
	layouts := make([]*layout, n)
	top := 0
	for i, f := range figs {
		bottom := top + around[i] + plot
		if i == n-1 {
			bottom = height
		}
		layouts[i], top = f.layout(fs, top, bottom), bottom
	}
	return layouts, nil
}
