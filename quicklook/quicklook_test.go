package quicklook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

func open(t *testing.T, name string) *h5.File {
	t.Helper()
	f, err := h5.Open(context.Background(), filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func parse(t *testing.T, s string) selection.Selection {
	t.Helper()
	if s == "" {
		return nil
	}
	sel, err := selection.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// TestDataset draws selections of each shape from the HDF5, LINDI and Zarr
// forms of the conformance fixture and checks what was read and how it is
// labelled, and that the PNG is drawn.
func TestDataset(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		file, path, sel string
		shape           []int
		x0, x1, y       string // the first x label, the last x value, the y label
		image           bool
	}{
		{"conformance/fixture.h5", "misc/u4", "10:20:3", []int{4}, "axis 0 index (4 positions, 10…19)", "19", "u4", false},
		{"conformance/fixture.lindi.json", "misc/u4", "::-30", []int{3}, "axis 0 index (3 positions, 89…29)", "29", "u4", false},
		{"conformance/fixture.zarr", "u2_3d", "2, :, 5", []int{17}, "axis 1 index (17 positions, 0…16)", "16", "u2_3d", false},
		{"conformance/fixture.h5", "misc/f4_2d_edge", "0:30, [3, 1]", []int{30, 2}, "axis 0 index (30 positions, 0…29)", "29", "f4_2d_edge", false},
		{"conformance/fixture.lindi.tar", "acquisition/TwoPhotonSeries/data", "3, :, :", []int{64, 48}, "axis 2 index (48 positions, 0…47)", "", "", true},
		{"conformance/fixture.h5", "acquisition/ElectricalSeries/data", "30:90:30, 0:2", []int{2, 2}, "time (s)", "", "data (volts)", false},
	}
	for _, c := range cases {
		t.Run(c.file+" "+c.path, func(t *testing.T) {
			f := open(t, c.file)
			fig, err := read(ctx, f, c.path, parse(t, c.sel))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(fig.shape) != fmt.Sprint(c.shape) {
				t.Errorf("shape %v, want %v", fig.shape, c.shape)
			}
			p, err := fig.draw()
			if err != nil {
				t.Fatal(err)
			}
			if c.image != p.isImage() || c.image != strings.Contains(p.labels.Title, " … ") {
				t.Errorf("title %q: an image: %v", p.labels.Title, p.isImage())
			}
			if p.labels.X != c.x0 || (!c.image && p.labels.Y != c.y) {
				t.Errorf("labels %q, %q; want %q, %q", p.labels.X, p.labels.Y, c.x0, c.y)
			}
			if x := fig.v.x(0); !c.image && c.x1 != "" && fmt.Sprint(x[len(x)-1]) != c.x1 {
				t.Errorf("last x %v, want %s", x[len(x)-1], c.x1)
			}
			var buf bytes.Buffer
			if err := WritePNG(&buf, 384, 288, p); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil || img.Bounds().Dx() != 384 || img.Bounds().Dy() != 288 {
				t.Fatalf("PNG: %v %v", err, img)
			}
		})
	}
}

// TestTimeAxis checks the times of a series timed by starting_time and
// rate (starting_time + i / rate at the positions selected) and of one with
// timestamps (those of the positions), and the data in volts (conversion
// applied).
func TestTimeAxis(t *testing.T) {
	ctx := context.Background()
	read1 := func(f *h5.File, path, sel string) []float64 {
		t.Helper()
		ds, err := f.Dataset(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		a, err := h5.Read[float64](ctx, ds, parse(t, sel))
		if err != nil {
			t.Fatal(err)
		}
		return a.Data
	}
	f := open(t, "nwb/tables.nwb")
	st, _ := f.Dataset(ctx, "acquisition/ElectricalSeries/starting_time")
	rate, _ := st.Attrs().Float("rate")
	t0 := read1(f, "acquisition/ElectricalSeries/starting_time", "")[0]
	fig, err := read(ctx, f, "acquisition/ElectricalSeries/data", parse(t, "100:400:100, 2"))
	if err != nil {
		t.Fatal(err)
	}
	for j, i := range []int{100, 200, 300} {
		if want := t0 + float64(i)/rate; math.Abs(fig.v.times[j]-want) > 1e-12 {
			t.Errorf("rate: time %d: %v, want %v", i, fig.v.times[j], want)
		}
	}

	f = open(t, "conformance/fixture.h5")
	fig, err = read(ctx, f, "acquisition/ElectricalSeries/data", parse(t, "300:0:-100, 2"))
	if err != nil {
		t.Fatal(err)
	}
	if want := read1(f, "acquisition/ElectricalSeries/timestamps", "300:0:-100"); fmt.Sprint(fig.v.times) != fmt.Sprint(want) {
		t.Errorf("timestamps: times %v, want %v", fig.v.times, want)
	}
	raw := read1(f, "acquisition/ElectricalSeries/data", "300:0:-100, 2")
	ds, _ := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	conv, _ := ds.Attrs().Float("conversion")
	if math.Abs(fig.data[1]-raw[1]*conv) > 1e-15 {
		t.Errorf("data %v, want %v × %v", fig.data[1], raw[1], conv)
	}
}

// TestRefused checks the shapes with no plot: a scalar, three dimensions,
// an empty selection; and a dataset of strings.
func TestRefused(t *testing.T) {
	ctx := context.Background()
	f := open(t, "conformance/fixture.h5")
	for _, c := range []struct{ path, sel string }{
		{"misc/scalar_int", ""}, {"acquisition/TwoPhotonSeries/data", ""}, {"misc/u4", "5:5"}, {"misc/u4", "3"},
	} {
		if _, err := Dataset(ctx, f, c.path, parse(t, c.sel)); !errors.Is(err, ErrShape) {
			t.Errorf("%s[%s]: %v, want ErrShape", c.path, c.sel, err)
		}
	}
	if _, err := Dataset(ctx, f, "misc/vlen_strings", nil); err == nil {
		t.Error("strings drawn")
	}
	if _, err := Image([]float64{1, 2}, 1, 3, Labels{}); !errors.Is(err, ErrShape) {
		t.Errorf("Image of 2 values as 1×3: %v", err)
	}
	if _, err := Lines([]float64{1}, []Series{{Y: []float64{1, 2}}}, Labels{}); err == nil {
		t.Error("Lines with x shorter than y")
	}
}

// TestKeptAxes checks which axes a selection keeps and their positions.
func TestKeptAxes(t *testing.T) {
	for _, c := range []struct {
		sel  string
		want string
	}{
		{"", "[{0 [0 1 2 3]} {1 [0 1 2]}]"},
		{"1", "[{1 [0 1 2]}]"},
		{"..., 1", "[{0 [0 1 2 3]}]"},
		{"::-2, [2, 0]", "[{0 [3 1]} {1 [2 0]}]"},
		{"-1, ...", "[{1 [0 1 2]}]"},
	} {
		axes, err := keptAxes(parse(t, c.sel), []int{4, 3})
		if err != nil || fmt.Sprint(axes) != c.want {
			t.Errorf("%q: %v %v, want %s", c.sel, axes, err, c.want)
		}
	}
}
