package quicklook

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
)

// TestStackedPanelsEqualHeight: figures stacked by WritePNG get plot areas
// of one height, whatever room their titles and labels take (the bottom
// panel, with the x label, was shorter).
func TestStackedPanelsEqualHeight(t *testing.T) {
	fs, err := newFaces()
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0, 1, 0.5, 2}
	var figs []*Figure
	for _, l := range []Labels{{Title: "top", Y: "v"}, {Y: "v"}, {X: "time (s)", Y: "v"}} {
		f, err := Lines(nil, []Series{{Y: y}}, l)
		if err != nil {
			t.Fatal(err)
		}
		figs = append(figs, f)
	}
	layouts, err := stackLayouts(fs, figs, 600)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range layouts {
		if d := l.area.Dy() - layouts[0].area.Dy(); d < 0 || d > len(figs) {
			t.Errorf("panel %d: plot area %d pixels high, panel 0's %d", i, l.area.Dy(), layouts[0].area.Dy())
		}
		if i > 0 && l.area.Min.Y <= layouts[i-1].area.Max.Y {
			t.Errorf("panel %d overlaps the one above", i)
		}
	}
	if layouts[2].area.Max.Y > 600 {
		t.Errorf("bottom panel ends at %d, past the image", layouts[2].area.Max.Y)
	}
}

// TestTraces: --stack's figure of an ElectricalSeries names each trace by
// its electrode on the y axis, first at the top, with no legend, and the
// traces do not overlap.
func TestTraces(t *testing.T) {
	f := open(t, "conformance/fixture.h5")
	fig, err := Traces(context.Background(), f, "acquisition/ElectricalSeries/data", parse(t, "0:300, 2:6"))
	if err != nil {
		t.Fatal(err)
	}
	if !fig.stacked() || fig.legend() != nil {
		t.Fatalf("stacked %v, legend %v: want stacked traces without a legend", fig.stacked(), fig.legend())
	}
	fs, err := newFaces()
	if err != nil {
		t.Fatal(err)
	}
	l := fig.layout(fs, 0, 600)
	var names []string
	for i, tk := range l.yTicks {
		names = append(names, tk.label)
		if i > 0 && tk.at <= l.yTicks[i-1].at {
			t.Errorf("tick %q at %v is not below %q", tk.label, tk.at, l.yTicks[i-1].label)
		}
	}
	if got := strings.Join(names, ","); got != "electrode 2,electrode 3,electrode 4,electrode 5" {
		t.Errorf("y ticks %s", got)
	}
	// Each trace stays within half a spacing of its baseline's neighbours.
	for i, s := range fig.series {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range s.Y {
			lo, hi = min(lo, fig.yAt(i, v)), max(hi, fig.yAt(i, v))
		}
		base := float64(len(fig.series)-1-i) * fig.spacing
		if lo < base-fig.spacing || hi > base+fig.spacing {
			t.Errorf("trace %d spans %v…%v around baseline %v (spacing %v)", i, lo, hi, base, fig.spacing)
		}
	}
	var buf bytes.Buffer
	if err := WritePNG(&buf, 768, 432, fig); err != nil {
		t.Fatal(err)
	}
	// A 1-D selection is one trace; too many columns are refused.
	if _, err := Traces(context.Background(), f, "acquisition/ElectricalSeries/data", parse(t, "0:300, 3")); err != nil {
		t.Errorf("one trace: %v", err)
	}
}
