package quicklook

import (
	"image/color"
	"math"
)

// kindlmann is the Kindlmann colour map (Kindlmann, Reinhard and Creem,
// 2002, as in gonum.org/v1/plot/palette/moreland): its control points and
// the points half-way between them, sampled from gonum's map, which
// interpolates in CIELAB. Interpolating linearly in sRGB between these
// stays within 17/255 of gonum's colours.
var kindlmann = [...]struct {
	at float64
	c  color.RGBA
}{
	{0.0000, color.RGBA{0, 0, 0, 255}},
	{0.0524, color.RGBA{28, 7, 40, 255}},
	{0.1048, color.RGBA{46, 4, 76, 255}},
	{0.1575, color.RGBA{55, 5, 109, 255}},
	{0.2103, color.RGBA{63, 7, 145, 255}},
	{0.2603, color.RGBA{48, 43, 155, 255}},
	{0.3103, color.RGBA{8, 66, 165, 255}},
	{0.3562, color.RGBA{29, 87, 136, 255}},
	{0.4021, color.RGBA{5, 106, 106, 255}},
	{0.4647, color.RGBA{9, 121, 137, 255}},
	{0.5273, color.RGBA{7, 137, 169, 255}},
	{0.5637, color.RGBA{49, 152, 107, 255}},
	{0.6001, color.RGBA{7, 168, 26, 255}},
	{0.6491, color.RGBA{56, 181, 19, 255}},
	{0.6982, color.RGBA{84, 194, 9, 255}},
	{0.7469, color.RGBA{146, 201, 8, 255}},
	{0.7956, color.RGBA{196, 206, 10, 255}},
	{0.8469, color.RGBA{228, 213, 121, 255}},
	{0.8982, color.RGBA{252, 220, 197, 255}},
	{0.9491, color.RGBA{255, 238, 226, 255}},
	{1.0000, color.RGBA{255, 255, 255, 255}},
}

// nanGrey is the colour of a NaN in an image.
var nanGrey = color.RGBA{160, 160, 160, 255}

// kindlmannAt is the colour of t in 0…1 (clamped).
func kindlmannAt(t float64) color.RGBA {
	t = math.Max(0, math.Min(1, t))
	i := 1
	for i < len(kindlmann)-1 && kindlmann[i].at < t {
		i++
	}
	a, b := kindlmann[i-1], kindlmann[i]
	f := (t - a.at) / (b.at - a.at)
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
	return color.RGBA{mix(a.c.R, b.c.R), mix(a.c.G, b.c.G), mix(a.c.B, b.c.B), 255}
}

// colorMap maps the values lo…hi to 256 colours of the Kindlmann map.
type colorMap struct {
	lo, hi float64
	lut    [256]color.RGBA
}

func newColorMap(lo, hi float64) *colorMap {
	m := &colorMap{lo: lo, hi: hi}
	for i := range m.lut {
		m.lut[i] = kindlmannAt(float64(i) / 255)
	}
	return m
}

// at is the colour of v: NaN grey, infinities at the ends.
func (m *colorMap) at(v float64) color.RGBA {
	if math.IsNaN(v) {
		return nanGrey
	}
	t := 0.5
	if m.hi > m.lo {
		t = (v - m.lo) / (m.hi - m.lo)
	}
	return m.lut[int(math.Round(math.Max(0, math.Min(1, t))*255))]
}
