package quicklook

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// decode draws the figures into a PNG of width×height and decodes it.
func decode(t *testing.T, width, height int, figs ...*Figure) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := WritePNG(&buf, width, height, figs...); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Fatalf("PNG of %v, want %d×%d", b, width, height)
	}
	return img
}

func rgba(img image.Image, x, y int) color.RGBA {
	return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
}

func near(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return max(int(x)-int(y), int(y)-int(x)) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}

// where is the bounding box of the pixels near c, and how many there are.
func where(img image.Image, c color.RGBA, tol int) (image.Rectangle, int) {
	return whereSolid(img, c, tol, false)
}

// whereSolid is where, counting with solid only pixels whose four
// neighbours are near c too (not the anti-aliased edges of text).
func whereSolid(img image.Image, c color.RGBA, tol int, solid bool) (image.Rectangle, int) {
	var r image.Rectangle
	n := 0
	b := img.Bounds()
	is := func(x, y int) bool { return near(rgba(img, x, y), c, tol) }
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if is(x, y) && (!solid || is(x-1, y) && is(x+1, y) && is(x, y-1) && is(x, y+1)) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
				n++
			}
		}
	}
	return r, n
}

func sine(n int) []float64 {
	y := make([]float64, n)
	for i := range y {
		y[i] = math.Sin(float64(i) / 20)
	}
	return y
}

// TestLinesPNG checks that a line is drawn in tab10's first colour inside
// the plot area, on a white background.
func TestLinesPNG(t *testing.T) {
	fig, err := Lines(nil, []Series{{Y: sine(300)}}, Labels{Title: "t", X: "x", Y: "y"})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{768, 432}, {300, 200}, {1000, 1000}} {
		img := decode(t, size[0], size[1], fig)
		if c := rgba(img, 1, 1); c != white {
			t.Errorf("%v: background %v", size, c)
		}
		r, n := where(img, tab10[0], 8)
		if n < size[0]/2 {
			t.Fatalf("%v: %d pixels of the line colour", size, n)
		}
		// the left margin holds the y ticks and label; the line spans the area
		if r.Min.X < 30 || r.Max.X > size[0]-8 || r.Min.Y < 20 || r.Max.Y > size[1]-30 || r.Dx() < size[0]/2 || r.Dy() < size[1]/3 {
			t.Errorf("%v: the line is drawn in %v", size, r)
		}
	}
}

// TestNaNBreaksLine checks that a constant line with NaNs in its middle
// third is not drawn there, and is without them.
func TestNaNBreaksLine(t *testing.T) {
	for _, gap := range []float64{math.NaN(), math.Inf(1), 0} {
		y := make([]float64, 300)
		for i := range y {
			y[i] = 1
			if i >= 100 && i < 200 {
				y[i] = gap
			}
		}
		fig, err := Lines(nil, []Series{{Y: y}}, Labels{})
		if err != nil {
			t.Fatal(err)
		}
		if gap == 0 {
			fig.x = make([]float64, len(y))
			for i := range y {
				fig.x[i], y[i] = float64(i), 1
			}
		}
		img := decode(t, 600, 300, fig)
		blue := func(x, y int) bool { c := rgba(img, x, y); return int(c.B)-int(c.R) > 30 } // anti-aliased or not
		var r image.Rectangle
		for y := range 300 {
			for x := range 600 {
				if blue(x, y) {
					r = r.Union(image.Rect(x, y, x+1, y+1))
				}
			}
		}
		mid := 0
		for x := r.Min.X + r.Dx()*2/5; x < r.Min.X+r.Dx()*3/5; x++ {
			for yy := r.Min.Y; yy < r.Max.Y; yy++ {
				if blue(x, yy) {
					mid++
				}
			}
		}
		if broken := mid == 0; broken != (gap != 0) || r.Dx() < 400 {
			t.Errorf("gap %v: %d line pixels in the middle fifth of %v", gap, mid, r)
		}
	}
}

// TestImagePNG checks the colours at the corners of a 2×3 image, that NaN
// is grey, that elements are square and row 0 is at the top.
func TestImagePNG(t *testing.T) {
	nan := math.NaN()
	fig, err := Image([]float64{
		0, 5, nan,
		10, 7.5, 2.5,
	}, 2, 3, Labels{Title: "img", X: "x", Y: "y"})
	if err != nil {
		t.Fatal(err)
	}
	img := decode(t, 640, 480, fig)
	g, n := whereSolid(img, nanGrey, 0, true)
	g = g.Inset(-1) // the solid pixels of an element are all but its edges
	if n == 0 || g.Dx() < 50 || abs(g.Dx()-g.Dy()) > 1 {
		t.Fatalf("NaN grey in %v: %d pixels, want a square element", g, n)
	}
	s := g.Dx()
	x0, y0 := g.Min.X-2*s, g.Min.Y // the top left corner of the data
	at := func(r, c int) color.RGBA { return rgba(img, x0+c*s+s/2, y0+r*s+s/2) }
	for _, c := range []struct {
		r, c int
		want color.RGBA
	}{
		{0, 0, color.RGBA{0, 0, 0, 255}},       // the minimum: black
		{1, 0, color.RGBA{255, 255, 255, 255}}, // the maximum: white
		{1, 2, color.RGBA{52, 38, 153, 255}},   // gonum's Kindlmann at 0.25
		{0, 1, color.RGBA{8, 130, 155, 255}},   // … at 0.5
		{1, 1, color.RGBA{150, 201, 8, 255}},   // … at 0.75
	} {
		if got := at(c.r, c.c); !near(got, c.want, 17) {
			t.Errorf("element %d,%d: %v, want %v", c.r, c.c, got, c.want)
		}
	}
	if c := rgba(img, x0-1, y0+s/2); c != black {
		t.Errorf("left of the data: %v, want the black axes box", c)
	}
}

// TestKindlmann compares the colour map with gonum's, from which it was
// taken.
func TestKindlmann(t *testing.T) {
	for _, c := range []struct {
		at   float64
		want color.RGBA
	}{
		{0, color.RGBA{0, 0, 0, 255}}, {0.1, color.RGBA{44, 4, 72, 255}}, {0.25, color.RGBA{52, 38, 153, 255}},
		{0.5, color.RGBA{8, 130, 155, 255}}, {0.75, color.RGBA{150, 201, 8, 255}},
		{0.9, color.RGBA{253, 221, 198, 255}}, {1, color.RGBA{255, 255, 255, 255}},
		{-1, color.RGBA{0, 0, 0, 255}}, {2, color.RGBA{255, 255, 255, 255}},
	} {
		if got := kindlmannAt(c.at); !near(got, c.want, 17) {
			t.Errorf("%v: %v, want %v", c.at, got, c.want)
		}
	}
	if c := newColorMap(0, 1).at(math.NaN()); c != nanGrey {
		t.Errorf("NaN: %v", c)
	}
}

// TestStacked checks that two figures share the width: their plot areas
// start at the same column.
func TestStacked(t *testing.T) {
	a, _ := Lines(nil, []Series{{Y: sine(100)}}, Labels{Y: "short"})
	y := sine(100)
	for i := range y {
		y[i] *= 1e5
	}
	b, _ := Lines(nil, []Series{{Name: "wide", Y: y}}, Labels{Y: "long tick labels"})
	img := decode(t, 500, 600, a, b)
	ra, _ := where(img.(*image.RGBA).SubImage(image.Rect(0, 0, 500, 300)), tab10[0], 8)
	rb, _ := where(img.(*image.RGBA).SubImage(image.Rect(0, 300, 500, 600)), tab10[0], 8)
	if abs(ra.Min.X-rb.Min.X) > 2 || abs(ra.Max.X-rb.Max.X) > 2 || rb.Min.Y < 300 || ra.Max.Y > 300 {
		t.Errorf("lines in %v and %v, want the same columns", ra, rb)
	}
}

func abs(v int) int { return max(v, -v) }

// TestBadInput checks that what cannot be drawn is an error, never a panic.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		rows, cols, n int
	}{{1, 3, 2}, {0, 3, 0}, {3, -1, 3}, {1 << 62, 4, 0}, {2, 2, 5}} {
		if _, err := Image(make([]float64, c.n), c.rows, c.cols, Labels{}); !errors.Is(err, ErrShape) {
			t.Errorf("Image of %d values as %d×%d: %v", c.n, c.rows, c.cols, err)
		}
	}
	if _, err := Lines([]float64{1}, []Series{{Y: []float64{1, 2}}}, Labels{}); !errors.Is(err, ErrShape) {
		t.Errorf("Lines with x shorter than y: %v", err)
	}
	if _, err := Lines(nil, nil, Labels{}); !errors.Is(err, ErrShape) {
		t.Errorf("Lines of no series: %v", err)
	}
	ok, _ := Lines(nil, []Series{{Y: []float64{1, 2}}}, Labels{})
	var buf bytes.Buffer
	for _, c := range []struct {
		w, h int
		figs []*Figure
	}{
		{100, 100, nil}, {100, 100, []*Figure{nil}}, {100, 100, []*Figure{{}}}, {0, 100, []*Figure{ok}},
		{100, -1, []*Figure{ok}}, {MaxPixels + 1, 100, []*Figure{ok}}, {30, 30, []*Figure{ok}},
		{400, 100, []*Figure{ok, ok, ok, ok}},
	} {
		if err := WritePNG(&buf, c.w, c.h, c.figs...); err == nil {
			t.Errorf("%d×%d, %d figures: no error", c.w, c.h, len(c.figs))
		}
	}
	if err := SavePNG(t.TempDir()+"/no/such/dir.png", 100, 100, ok); err == nil {
		t.Error("SavePNG into a missing directory: no error")
	}
}

// TestOddData draws data with no finite point, one point, a constant,
// infinities, huge values and a 1×1 image, which must not panic.
func TestOddData(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, y := range [][]float64{{}, {nan, nan}, {3}, {2, 2, 2}, {inf, -inf, 1}, {-1e308, 1e308}, {1e-300, 2e-300}, {0, 5e-324}} {
		for _, logY := range []bool{false, true} {
			fig, err := Lines(nil, []Series{{Name: "s", Y: y}}, Labels{Title: "odd"})
			if err != nil {
				t.Fatal(err)
			}
			if logY {
				fig.SetLogY()
			}
			var buf bytes.Buffer
			if err := WritePNG(&buf, 200, 150, fig); err != nil {
				t.Errorf("%v, log %v: %v", y, logY, err)
			}
		}
	}
	for _, v := range [][]float64{{nan}, {inf}, {7}} {
		fig, err := Image(v, 1, 1, Labels{Title: "1×1"})
		if err != nil {
			t.Fatal(err)
		}
		decode(t, 200, 150, fig)
	}
}

// TestTicks checks nice steps and compact labels.
func TestTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   string
	}{
		{0, 1, 5, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{-0.05, 0.35, 4, "0.0 0.1 0.2 0.3"},
		{-1.3, 1.3, 6, "−1.0 −0.5 0.0 0.5 1.0"},
		{0, 1e6, 5, "0 200000 400000 600000 800000 1000000"},
		{1e-8, 5e-8, 4, "1e−8 2e−8 3e−8 4e−8 5e−8"},
		{1.5e9, 1.5e9 + 1, 2, "1500000000.0 1500000000.5 1500000001.0"},
	} {
		ticks, step := linearTicks(c.lo, c.hi, c.n, 0)
		got := ""
		for i, l := range tickLabels(ticks, step) {
			if i > 0 {
				got += " "
			}
			got += l
		}
		if got != c.want {
			t.Errorf("%v…%v: %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

// TestSavePNGReplaces: SavePNG replaces a file whole, readable as the
// other outputs are, leaving no temporary beside it; a save that fails
// leaves the old file as it was.
func TestSavePNGReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plot.png")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok, err := Lines(nil, []Series{{Y: []float64{1, 3, 2}}}, Labels{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if err := SavePNG(path, MaxPixels+1, 100, ok); err == nil {
		t.Fatal("SavePNG of an oversized figure: no error")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("a failed save changed the file: %q", b)
	}
	if err := SavePNG(path, 200, 100, ok); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("the saved file: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory, want 1 (no temporary left)", len(ents))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want the old file's 0644", st.Mode().Perm())
	}
}
