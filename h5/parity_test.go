package h5_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// TestLayout: an HDF5 dataset that is not chunked reports its layout and no
// chunks, as h5py's chunks=None; LINDI and Zarr arrays are chunked. Size
// counts elements, as h5py's size.
func TestLayout(t *testing.T) {
	for _, tc := range []struct {
		file, path string
		layout     h5.Layout
		chunks     []int
		size       int
	}{
		{"fixture.h5", "misc/contiguous_f8", h5.Contiguous, nil, 9220},
		{"fixture.h5", "misc/scalar_int", h5.Contiguous, nil, 1},
		{"fixture.h5", "acquisition/ElectricalSeries/data", h5.Chunked, []int{689, 24}, 5946 * 24},
		{"fixture-latest.h5", "misc/contiguous_f8", h5.Contiguous, nil, 9220},
		{"fixture.lindi.json", "misc/contiguous_f8", h5.Chunked, []int{922, 10}, 9220},
		{"fixture.lindi.json", "acquisition/ElectricalSeries/data", h5.Chunked, []int{689, 24}, 5946 * 24},
	} {
		t.Run(tc.file+"/"+tc.path, func(t *testing.T) {
			d, err := open(t, tc.file).Dataset(ctx, tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if d.Layout() != tc.layout {
				t.Errorf("Layout() = %v, want %v", d.Layout(), tc.layout)
			}
			if got := d.Chunks(); (got == nil) != (tc.chunks == nil) || !equalInts(got, tc.chunks) {
				t.Errorf("Chunks() = %#v, want %#v", got, tc.chunks)
			}
			if d.Size() != tc.size {
				t.Errorf("Size() = %d, want %d", d.Size(), tc.size)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// form describes a dataset the way code that switches on Go types sees it:
// dtype, shape, fill, and where and as what the elements of a read arrive.
func form(t *testing.T, d *h5.Dataset) string {
	t.Helper()
	s := fmt.Sprintf("%s %v scalar=%v fill=%+v", d.DType(), d.Shape(), d.Scalar(), d.Fill())
	if d.Err() != nil {
		return s + " unreadable"
	}
	a, err := d.Read(ctx, nil)
	if err != nil {
		t.Errorf("%s: %v", d.Path(), err)
		return s
	}
	s += fmt.Sprintf(" data=%d objects=%d", len(a.Data), len(a.Objects))
	for _, o := range a.Objects {
		s += fmt.Sprintf(" %T", o)
		if row, ok := o.([]any); ok {
			for _, f := range row {
				s += fmt.Sprintf(",%T", f)
			}
		}
	}
	return s
}

// describeFile maps every path of a file to its link kind, attributes (with
// their Go types) and, for datasets, their form.
func describeFile(t *testing.T, f *h5.File) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := f.Root().Walk(ctx, func(path string, l h5.Link, o h5.Object, err error) error {
		s := l.Kind.String() + " " + l.Target
		if l.Kind == h5.HardLink {
			for _, n := range o.Attrs().Names() {
				v, err := o.Attrs().Get(n)
				s += fmt.Sprintf(" @%s=%#v(%v)", n, v, err)
			}
			if d, ok := o.(*h5.Dataset); ok {
				s += " " + form(t, d)
			}
		}
		out[path] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSameFromBothForms: an HDF5 file and its LINDI JSON give every object
// the same attributes of the same Go types, and every dataset the same
// dtype, shape, fill value and read result types (see the rules on Attrs
// and Dataset.Fill).
func TestSameFromBothForms(t *testing.T) {
	for _, pair := range [][2]string{
		{"fixture.h5", "fixture.lindi.json"},
		{"fixture-latest.h5", "fixture.lindi.json"},
	} {
		t.Run(pair[0], func(t *testing.T) {
			h, l := describeFile(t, open(t, pair[0])), describeFile(t, open(t, pair[1]))
			for _, p := range slices.Sorted(maps.Keys(h)) {
				if h[p] != l[p] {
					t.Errorf("%s\n  %s: %s\n  %s: %s", p, pair[0], h[p], pair[1], l[p])
				}
			}
			for p := range l {
				if _, ok := h[p]; !ok {
					t.Errorf("%s is only in %s", p, pair[1])
				}
			}
		})
	}
}

// attrDriver opens "attrs:" as a root group holding the attribute values a
// driver may give, to check what Attrs makes of them.
type attrDriver struct{}

func (attrDriver) Name() string { return "attrs" }

func (attrDriver) Sniff(_ context.Context, in *driver.Input) (driver.Match, error) {
	if in.Name == "attrs:" {
		return driver.Yes, nil
	}
	return driver.No, nil
}

func (attrDriver) Open(context.Context, *driver.Env, *driver.Input) (*driver.Group, error) {
	return &driver.Group{Attrs: map[string]any{
		"bad":     errors.New("time datatype"),
		"sweep":   uint64(7),
		"big":     uint64(math.MaxUint64),
		"counts":  []uint64{1, 2},
		"rows":    []any{[]uint64{1, 2}, []uint64{3, 4}},
		"ref_row": []any{map[string]any{"dataset": driver.Ref{Path: "/x"}, "dimension": uint64(0)}},
	}}, nil
}

func init() { h5.AddDriver(attrDriver{}) }

// TestAttrsTypes: integers read as int64 when they fit, compound elements as
// maps holding References, and an attribute that could not be decoded as an
// error from Get, never as a value.
func TestAttrsTypes(t *testing.T) {
	f, err := h5.Open(ctx, "attrs:")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := f.Root().Attrs()
	if !slices.Contains(a.Names(), "bad") || a.Len() != 6 {
		t.Errorf("Names() = %v, want all six", a.Names())
	}
	if v, err := a.Get("bad"); !errors.Is(err, h5.ErrAttribute) || v != nil || !strings.Contains(err.Error(), "time datatype") {
		t.Errorf("Get(bad) = %v, %v; want ErrAttribute saying why", v, err)
	}
	if _, err := a.String("bad"); !errors.Is(err, h5.ErrAttribute) {
		t.Errorf("String(bad): %v, want ErrAttribute", err)
	}
	if _, err := a.Get("nope"); !errors.Is(err, h5.ErrNotFound) {
		t.Errorf("Get(nope): %v, want ErrNotFound", err)
	}
	for name, want := range map[string]any{
		"sweep":   int64(7),
		"big":     uint64(math.MaxUint64),
		"counts":  []int64{1, 2},
		"rows":    []any{[]int64{1, 2}, []int64{3, 4}},
		"ref_row": []any{map[string]any{"dataset": h5.Reference{Path: "/x"}, "dimension": int64(0)}},
	} {
		if v, err := a.Get(name); err != nil || !reflect.DeepEqual(v, want) {
			t.Errorf("Get(%s) = %#v, %v; want %#v", name, v, err, want)
		}
	}
}

const parityDir = "../testdata/parity"

func openParity(t *testing.T, name string) *h5.File {
	t.Helper()
	f, err := h5.Open(ctx, parityDir+"/"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestCompoundReferences: an NWB-style compound of integers and an object
// reference (intervals/epochs/timeseries) reads with the same typed fields
// from HDF5 and from LINDI, its references resolvable with Deref.
func TestCompoundReferences(t *testing.T) {
	for _, name := range []string{"parity.h5", "parity.lindi.json"} {
		t.Run(name, func(t *testing.T) {
			f := openParity(t, name)
			d, err := f.Dataset(ctx, "intervals/epochs/timeseries")
			if err != nil {
				t.Fatal(err)
			}
			if got := d.DType().String(); got != "[('idx_start', '<i4'), ('count', '<i4'), ('timeseries', '|O')]" {
				t.Errorf("dtype %s", got)
			}
			if k := d.DType().Fields[2].DType.Kind; k != zarrmeta.KindReference {
				t.Errorf("timeseries field is %v, want reference", k)
			}
			a, err := d.Read(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for field, want := range map[string][]int32{"idx_start": {0, 5, 8, 10}, "count": {5, 3, 2, 1}} {
				col, err := a.Field(field)
				if err != nil {
					t.Fatal(err)
				}
				v, err := h5.As[int32](col)
				if err != nil || !slices.Equal(v.Data, want) || !slices.Equal(v.Shape, []int{4}) {
					t.Errorf("%s = %v, %v; want %v", field, v, err, want)
				}
			}
			col, err := a.Field("timeseries")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h5.As[string](col); !errors.Is(err, h5.ErrType) {
				t.Errorf("references read as strings: %v", err)
			}
			refs, err := h5.As[h5.Reference](col)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, r := range refs.Data {
				o, err := f.Deref(ctx, r)
				if err != nil {
					t.Fatal(err)
				}
				paths = append(paths, o.Path())
			}
			want := []string{"/acquisition/ts1", "/acquisition/ts2", "/acquisition/ts1", "/acquisition/ts2"}
			if !slices.Equal(paths, want) {
				t.Errorf("timeseries → %v, want %v", paths, want)
			}
		})
	}
}

// TestParitySameFromBothForms runs the comparison of TestSameFromBothForms on
// the parity fixture, whose attributes are 2-D and 3-D, unsigned, float32 and
// whose datasets include a compound with references and a string scalar.
func TestParitySameFromBothForms(t *testing.T) {
	h, l := describeFile(t, openParity(t, "parity.h5")), describeFile(t, openParity(t, "parity.lindi.json"))
	if len(h) != len(l) {
		t.Errorf("%d paths from HDF5, %d from LINDI", len(h), len(l))
	}
	for _, p := range slices.Sorted(maps.Keys(h)) {
		if h[p] != l[p] {
			t.Errorf("%s\n  HDF5:  %s\n  LINDI: %s", p, h[p], l[p])
		}
	}
	root := openParity(t, "parity.h5").Root().Attrs()
	if v, err := root.Get("matrix"); err != nil || !reflect.DeepEqual(v, []any{[]int64{0, 1, 2}, []int64{3, 4, 5}}) {
		t.Errorf("matrix = %#v, %v", v, err)
	}
	if v, err := root.Get("sweep_number"); err != nil || v != int64(5) {
		t.Errorf("sweep_number = %#v, %v", v, err)
	}
}

// TestUnreadableDatasetAlone: a dataset stored in an external file makes
// only itself unreadable; the file opens and its other datasets read, the
// virtual one too (its source, ext-target.h5, beside it).
func TestUnreadableDatasetAlone(t *testing.T) {
	f := openParity(t, "broken.h5")
	d, err := f.Dataset(ctx, "external")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Err(); err == nil || !strings.Contains(err.Error(), "external files") {
		t.Errorf("external: Err() = %v, want one saying %q", err, "external files")
	}
	if _, err := d.Read(ctx, nil); err == nil {
		t.Error("external: read without an error")
	}
	if d.IsVirtual() || !slices.Equal(d.Shape(), []int{4}) || d.DType().String() != "<i4" {
		t.Errorf("external: virtual %v, shape %v, dtype %s", d.IsVirtual(), d.Shape(), d.DType())
	}
	for _, tc := range []struct {
		path    string
		virtual bool
	}{{"good", false}, {"virtual", true}} {
		d, err := f.Dataset(ctx, tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if a, err := h5.Read[int32](ctx, d, nil); err != nil || !slices.Equal(a.Data, []int32{0, 1, 2, 3}) || d.IsVirtual() != tc.virtual {
			t.Errorf("%s = %v, %v (virtual %v)", tc.path, a, err, d.IsVirtual())
		}
	}
}

// TestOpenUnknownScheme: a URL scheme no source reads is named in the error.
func TestOpenUnknownScheme(t *testing.T) {
	for _, name := range []string{"gs://bucket/key.nwb", "gs://bucket/x.lindi.json"} {
		_, err := h5.Open(ctx, name)
		scheme, _, _ := strings.Cut(name, ":")
		if !errors.Is(err, source.ErrScheme) || !strings.Contains(err.Error(), `"`+scheme+`"`) {
			t.Errorf("Open(%s): %v, want ErrScheme naming %q", name, err, scheme)
		}
	}
}

// TestUnreadableArrayAlone: a Zarr array whose dtype this package does not
// read is unreadable on its own; the store opens.
func TestUnreadableArrayAlone(t *testing.T) {
	p := writeLINDI(t, `{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
		"odd/.zarray": {"chunks": [2], "compressor": null, "dtype": "<q9", "fill_value": 0, "filters": null, "order": "C", "shape": [2], "zarr_format": 2},
		"odd/.zattrs": {"unit": "s"},
		"good/.zarray": {"chunks": [2], "compressor": null, "dtype": "|u1", "fill_value": 0, "filters": null, "order": "C", "shape": [2], "zarr_format": 2},
		"good/0": "base64:AQI="}}`)
	f, err := h5.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	odd, err := f.Dataset(ctx, "odd")
	if err != nil {
		t.Fatal(err)
	}
	if err := odd.Err(); err == nil || !strings.Contains(err.Error(), "<q9") {
		t.Errorf("Err() = %v, want one naming the dtype", err)
	}
	if u, err := odd.Attrs().String("unit"); err != nil || u != "s" || !slices.Equal(odd.Shape(), []int{2}) {
		t.Errorf("unit %q, %v; shape %v", u, err, odd.Shape())
	}
	good, err := f.Dataset(ctx, "good")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := h5.Read[uint8](ctx, good, nil); err != nil || !slices.Equal(a.Data, []uint8{1, 2}) {
		t.Errorf("good = %v, %v", a, err)
	}
}

// TestH5pyProperties checks the dataset properties h5py users rely on
// against what h5py wrote in testdata/parity/features.h5.
func TestH5pyProperties(t *testing.T) {
	f := openParity(t, "features.h5")
	get := func(path string) *h5.Dataset {
		t.Helper()
		d, err := f.Dataset(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	filtered := get("filtered")
	if got := filtered.MaxShape(); !slices.Equal(got, []int{h5.Unlimited}) {
		t.Errorf("filtered maxshape %v", got)
	}
	if got := get("fixed_max").MaxShape(); !slices.Equal(got, []int{4, 3}) {
		t.Errorf("fixed_max maxshape %v", got)
	}
	if n := filtered.NBytes(); n != 400 {
		t.Errorf("nbytes %d", n)
	}
	fs := filtered.Filters()
	if fs.Compression != "gzip" || !slices.Equal(fs.CompressionOpts, []uint32{4}) || !fs.Shuffle || !fs.Fletcher32 || fs.ScaleOffset != nil {
		t.Errorf("filtered: %+v", fs)
	}
	if so := get("scaleoffset").Filters().ScaleOffset; so == nil || *so != 0 {
		t.Errorf("scaleoffset: %v", so)
	}
	if fs := get("grid").Filters(); fs.Compression != "" || fs.Shuffle {
		t.Errorf("grid: %+v", fs)
	}
	c := get("compact")
	if c.Layout() != h5.Compact || c.Chunks() != nil || c.IsVirtual() {
		t.Errorf("compact: layout %v chunks %v", c.Layout(), c.Chunks())
	}
	if a, err := h5.Read[int32](ctx, c, nil); err != nil || !slices.Equal(a.Data, []int32{7, 8, 9, 10}) {
		t.Errorf("compact = %v, %v", a, err)
	}
}

// TestEnum: an enum dataset reads its values; Enum and EnumNames give names.
func TestEnum(t *testing.T) {
	d, err := openParity(t, "features.h5").Dataset(ctx, "enum")
	if err != nil {
		t.Fatal(err)
	}
	enum := d.Enum()
	if !reflect.DeepEqual(enum, map[string]int64{"RED": 0, "GREEN": 1, "BLUE": 2}) {
		t.Fatalf("Enum() = %v", enum)
	}
	v, err := h5.Read[int64](ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	names, err := h5.EnumNames(v.Data, enum)
	if err != nil || !slices.Equal(names, []string{"RED", "BLUE", "GREEN", "GREEN"}) {
		t.Errorf("names %v, %v", names, err)
	}
	if _, err := h5.EnumNames([]int64{7}, enum); !errors.Is(err, h5.ErrType) {
		t.Errorf("unnamed value: %v", err)
	}
	plain, _ := openParity(t, "features.h5").Dataset(ctx, "grid")
	if plain.Enum() != nil {
		t.Errorf("grid has an enum")
	}
}

// TestDimensionScales: dims as h5py gives them, and REFERENCE_LIST as maps
// holding References that Deref takes.
func TestDimensionScales(t *testing.T) {
	f := openParity(t, "features.h5")
	d, err := f.Dataset(ctx, "scales/data")
	if err != nil {
		t.Fatal(err)
	}
	dims, err := d.Dims(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(dims) != 2 || dims[0].Label != "time" || dims[1].Label != "chan" || len(dims[0].Scales) != 1 ||
		dims[0].Scales[0].Path() != "/scales/x" || len(dims[1].Scales) != 0 {
		t.Fatalf("dims = %+v", dims)
	}
	x := dims[0].Scales[0]
	v, err := x.Attrs().Get("REFERENCE_LIST")
	if err != nil {
		t.Fatal(err)
	}
	want := []any{map[string]any{"dataset": h5.Reference{Path: "/scales/data"}, "dimension": int64(0)}}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("REFERENCE_LIST = %#v", v)
	}
	o, err := f.Deref(ctx, v.([]any)[0].(map[string]any)["dataset"].(h5.Reference))
	if err != nil || o.Path() != "/scales/data" {
		t.Errorf("Deref: %v, %v", o, err)
	}
	if name, err := x.Attrs().String("NAME"); err != nil || name != "x axis" {
		t.Errorf("NAME %q, %v", name, err)
	}
}

// TestComplex: h5py's complex64 and complex128 ({r, i} compounds) read as
// complex dtypes and Go complex numbers; real dtypes convert with 0i.
func TestComplex(t *testing.T) {
	f := openParity(t, "features.h5")
	c64, err := f.Dataset(ctx, "complex64")
	if err != nil {
		t.Fatal(err)
	}
	if c64.DType().String() != "<c8" {
		t.Errorf("dtype %s, want <c8", c64.DType())
	}
	a, err := h5.Read[complex64](ctx, c64, nil)
	if err != nil || !slices.Equal(a.Data, []complex64{1 + 2i, -3.5i, 4}) {
		t.Errorf("complex64 = %v, %v", a, err)
	}
	c128, err := f.Dataset(ctx, "complex128")
	if err != nil {
		t.Fatal(err)
	}
	b, err := h5.Read[complex128](ctx, c128, nil)
	if err != nil || !slices.Equal(b.Data, []complex128{1 + 2i, 3 - 4i}) || !slices.Equal(b.Shape, []int{1, 2}) || c128.DType().String() != "<c16" {
		t.Errorf("complex128 = %v, %v (%s)", b, err, c128.DType())
	}
	type myComplex complex128
	if c, err := h5.Read[myComplex](ctx, c64, parse(t, "1")); err != nil || c.Data[0] != -3.5i {
		t.Errorf("named complex type: %v, %v", c, err)
	}
	grid, _ := f.Dataset(ctx, "grid")
	if g, err := h5.Read[complex64](ctx, grid, parse(t, "0, 1:3")); err != nil || !slices.Equal(g.Data, []complex64{1, 2}) {
		t.Errorf("real as complex: %v, %v", g, err)
	}
	if _, err := h5.Read[float64](ctx, c64, nil); !errors.Is(err, h5.ErrType) {
		t.Errorf("complex as float64: %v, want ErrType", err)
	}
}

// TestExternalLinks: an external link is followed into the other file,
// named relative to the linking file; a missing file or a loop is an error
// on that link alone.
func TestExternalLinks(t *testing.T) {
	f := openParity(t, "features.h5")
	d, err := f.Dataset(ctx, "ext")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := h5.Read[int32](ctx, d, nil); err != nil || !slices.Equal(a.Data, []int32{0, 1, 2, 3}) {
		t.Errorf("ext = %v, %v", a, err)
	}
	if d.File() == f || !strings.HasSuffix(d.File().Name(), "ext-target.h5") || d.Path() != "/data" {
		t.Errorf("ext is %s in %s", d.Path(), d.File().Name())
	}
	if _, err := f.Get(ctx, "ext_missing"); !errors.Is(err, h5.ErrExternalLink) || !strings.Contains(err.Error(), "no-such-file.h5") {
		t.Errorf("ext_missing: %v, want ErrExternalLink naming the file", err)
	}
	if _, err := f.Get(ctx, "ext_loop"); !errors.Is(err, h5.ErrLinkCycle) {
		t.Errorf("ext_loop: %v, want ErrLinkCycle", err)
	}
	if _, err := f.Dataset(ctx, "grid"); err != nil {
		t.Errorf("the rest of the file: %v", err)
	}
}

// TestExternalLinkFromURL: a file read over HTTP resolves its links against
// its URL and may not link to local files.
func TestExternalLinkFromURL(t *testing.T) {
	base := startServer(t, http.FileServer(http.Dir(parityDir)))
	f, err := h5.Open(ctx, base+"/features.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "ext")
	if err != nil {
		t.Fatal(err)
	}
	if d.File().Name() != base+"/ext-target.h5" {
		t.Errorf("ext opened %s", d.File().Name())
	}
	if a, err := h5.Read[int32](ctx, d, nil); err != nil || !slices.Equal(a.Data, []int32{0, 1, 2, 3}) {
		t.Errorf("ext = %v, %v", a, err)
	}
}

// TestDatetimes: numpy datetime64 and timedelta64 arrays written by
// zarr-python read as their counts and convert to times and durations.
func TestDatetimes(t *testing.T) {
	f := openParity(t, "dt.zarr")
	read := func(path string) *h5.Array {
		t.Helper()
		d, err := f.Dataset(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if d.Err() != nil {
			t.Fatal(d.Err())
		}
		a, err := d.Read(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	times := read("times")
	if times.DType.String() != "<M8[s]" {
		t.Errorf("dtype %s", times.DType)
	}
	got, err := h5.Times(times)
	want := []time.Time{time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2021, 6, 1, 12, 30, 0, 0, time.UTC), {}}
	if err != nil || !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("times = %v, %v", got, err)
	}
	if c, err := h5.As[int64](times); err != nil || c.Data[0] != 1577836800 || c.Data[2] != h5.NaT {
		t.Errorf("counts = %v, %v", c, err)
	}
	days, err := h5.Times(read("days"))
	if err != nil || !days[1].Equal(time.Date(2020, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("days = %v, %v", days, err)
	}
	deltas, err := h5.Durations(read("deltas"))
	if err != nil || !slices.Equal(deltas, []time.Duration{1500 * time.Millisecond, -20 * time.Millisecond}) {
		t.Errorf("deltas = %v, %v", deltas, err)
	}
	if _, err := h5.Durations(times); !errors.Is(err, h5.ErrType) {
		t.Errorf("Durations of datetimes: %v", err)
	}
}

// TestRegionReferences: region references written by h5py, in a dataset and
// in an attribute, dereference to the dataset and a selection that reads
// what h5py's ds[ref] gives.
func TestRegionReferences(t *testing.T) {
	f := openParity(t, "features.h5")
	d, err := f.Dataset(ctx, "regions")
	if err != nil {
		t.Fatal(err)
	}
	a, err := d.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	grid, err := f.Dataset(ctx, "grid")
	if err != nil {
		t.Fatal(err)
	}
	corner, err := grid.Attrs().Get("corner")
	if err != nil {
		t.Fatal(err)
	}
	refs := append(slices.Clone(a.Objects), corner)
	// What h5py 3.7 reads for f[ref][ref], shape and values.
	want := []struct {
		shape []int
		data  []int32
	}{
		{[]int{2, 3}, []int32{12, 13, 14, 22, 23, 24}},
		{[]int{1, 10}, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{[]int{2, 1}, []int32{49, 69}},
		{[]int{2, 2}, []int32{0, 1, 10, 11}},
	}
	if len(refs) != len(want) {
		t.Fatalf("%d references", len(refs))
	}
	for i, o := range refs {
		r, ok := o.(h5.RegionReference)
		if !ok {
			t.Fatalf("item %d is %T", i, o)
		}
		ds, sel, err := f.DerefRegion(ctx, r)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		v, err := h5.Read[int32](ctx, ds, sel)
		if err != nil || ds.Path() != "/grid" || !slices.Equal(v.Shape, want[i].shape) || !slices.Equal(v.Data, want[i].data) {
			t.Errorf("%d: %s[%s] = %v, %v; want %v", i, ds.Path(), sel, v, err, want[i])
		}
	}
	points := h5.RegionReference{Path: "/grid", Points: [][]int{{1, 1}, {2, 3}}}
	if _, err := points.Selection(); !errors.Is(err, h5.ErrType) {
		t.Errorf("points: %v, want ErrType", err)
	}
	diagonal := h5.RegionReference{Path: "/grid", Blocks: [][2][]int{{{0, 0}, {0, 0}}, {{1, 1}, {1, 1}}}}
	if _, err := diagonal.Selection(); !errors.Is(err, h5.ErrType) {
		t.Errorf("diagonal blocks: %v, want ErrType", err)
	}
}

// TestRegionPoints: a point selection (written with h5py's low-level API)
// decodes to its points.
func TestRegionPoints(t *testing.T) {
	grid, err := openParity(t, "features.h5").Dataset(ctx, "grid")
	if err != nil {
		t.Fatal(err)
	}
	v, err := grid.Attrs().Get("points")
	if err != nil {
		t.Fatal(err)
	}
	want := h5.RegionReference{Path: "/grid", Points: [][]int{{1, 1}, {2, 3}}}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("points = %#v, want %#v", v, want)
	}
}

// TestReadInto: ReadInto fills the caller's buffer with what Read gives,
// overwriting what was there (missing chunks too), and refuses a buffer too
// small or of another type.
func TestReadInto(t *testing.T) {
	for _, name := range []string{"fixture.h5", "fixture.lindi.json"} {
		t.Run(name, func(t *testing.T) {
			f := open(t, name)
			for _, tc := range []struct{ path, sel string }{
				{"misc/partially_written", "::3, 5:"},
				{"misc/big_endian_f8", "::-5"},
			} {
				d, err := f.Dataset(ctx, tc.path)
				if err != nil {
					t.Fatal(err)
				}
				want, err := h5.Read[float64](ctx, d, parse(t, tc.sel))
				if err != nil {
					t.Fatal(err)
				}
				var shape []int
				got := make([]float64, len(want.Data)+3)
				for i := range got {
					got[i] = -99
				}
				if d.DType().Size == 4 {
					dst := make([]float32, len(want.Data)+3)
					for i := range dst {
						dst[i] = -99
					}
					shape, err = h5.ReadInto(ctx, d, parse(t, tc.sel), dst)
					for i, x := range dst {
						got[i] = float64(x)
					}
				} else {
					shape, err = h5.ReadInto(ctx, d, parse(t, tc.sel), got)
				}
				if err != nil || !slices.Equal(shape, want.Shape) || !slices.Equal(got[:len(want.Data)], want.Data) || got[len(got)-1] != -99 {
					t.Errorf("%s: shape %v, %v; got %v, want %v", tc.path, shape, err, got[:min(8, len(got))], want.Data[:min(8, len(want.Data))])
				}
			}
			d, _ := f.Dataset(ctx, "misc/big_endian_f8")
			if _, err := h5.ReadInto(ctx, d, parse(t, "0:10"), make([]float64, 9)); !errors.Is(err, h5.ErrShort) {
				t.Errorf("short dst: %v, want ErrShort", err)
			}
			if _, err := h5.ReadInto(ctx, d, nil, make([]float32, 300)); !errors.Is(err, h5.ErrType) {
				t.Errorf("float32 dst for >f8: %v, want ErrType", err)
			}
			s, _ := f.Dataset(ctx, "misc/vlen_strings")
			if _, err := h5.ReadInto(ctx, s, nil, make([]uint64, 4)); !errors.Is(err, h5.ErrType) {
				t.Errorf("strings into numbers: %v, want ErrType", err)
			}
		})
	}
}

// TestReadPoints: a point selection gives, for each point, the element a
// single-element read gives, in the order of the points, from every form.
func TestReadPoints(t *testing.T) {
	for _, name := range []string{"fixture.h5", "fixture-latest.h5", "fixture.lindi.json"} {
		t.Run(name, func(t *testing.T) {
			f := open(t, name)
			for _, tc := range []struct {
				path   string
				points [][]int
			}{
				{"misc/f4_2d_edge", [][]int{{102, 56}, {0, 0}, {-1, 3}, {50, 30}, {0, 0}, {21, 26}}},
				{"misc/vlen_strings", [][]int{{3}, {0}, {-2}}},
				{"misc/partially_written", [][]int{{99, 39}, {1, 1}, {55, 2}}},
			} {
				d, err := f.Dataset(ctx, tc.path)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.ReadPoints(ctx, tc.points)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Shape, []int{len(tc.points)}) {
					t.Errorf("%s: shape %v", tc.path, got.Shape)
				}
				for k, p := range tc.points {
					sel := make(selection.Selection, len(p))
					for j, c := range p {
						sel[j] = selection.Index(c)
					}
					one, err := d.Read(ctx, sel)
					if err != nil {
						t.Fatal(err)
					}
					if one.Objects != nil {
						if got.Objects[k] != one.Objects[0] {
							t.Errorf("%s point %v = %v, want %v", tc.path, p, got.Objects[k], one.Objects[0])
						}
						continue
					}
					size := one.DType.Size
					if !slices.Equal(got.Data[k*size:(k+1)*size], one.Data) {
						t.Errorf("%s point %v = %v, want %v", tc.path, p, got.Data[k*size:(k+1)*size], one.Data)
					}
				}
			}
			d, _ := f.Dataset(ctx, "misc/f4_2d_edge")
			// A point outside the shape is out of range, as in any read; a
			// point of the wrong rank is not a selection at all.
			for _, bad := range [][][]int{{{103, 0}}, {{0, -58}}} {
				if _, err := d.ReadPoints(ctx, bad); !errors.Is(err, selection.ErrOutOfRange) {
					t.Errorf("points %v: %v, want ErrOutOfRange", bad, err)
				}
			}
			if _, err := d.ReadPoints(ctx, [][]int{{0}}); !errors.Is(err, selection.ErrInvalid) {
				t.Errorf("a point of rank 1 in a 2-D dataset: %v, want ErrInvalid", err)
			}
		})
	}
}

// TestIterChunks: the chunk selections cover the selection once, each inside
// one chunk, in the chunk grid's order (h5py's iter_chunks).
func TestIterChunks(t *testing.T) {
	d, err := open(t, "fixture.h5").Dataset(ctx, "misc/f4_2d_edge") // (103, 57) in chunks (20, 25)
	if err != nil {
		t.Fatal(err)
	}
	var sels []string
	total := 0
	for s, err := range d.IterChunks(ctx, parse(t, "15:45, 20:30")) {
		if err != nil {
			t.Fatal(err)
		}
		sels = append(sels, s.String())
		a, err := d.Read(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		total += a.Len()
	}
	want := []string{"15:20, 20:25", "15:20, 25:30", "20:40, 20:25", "20:40, 25:30", "40:45, 20:25", "40:45, 25:30"}
	if !slices.Equal(sels, want) || total != 30*10 {
		t.Errorf("chunks %v (%d elements), want %v", sels, total, want)
	}
	for _, err := range d.IterChunks(ctx, parse(t, "200")) {
		if err == nil {
			t.Error("out-of-range selection iterated")
		}
	}
}

// TestBlocks: blocks of rows arrive in order and equal a full read; stopping
// early leaves no read running.
func TestBlocks(t *testing.T) {
	d, err := open(t, "fixture.h5").Dataset(ctx, "acquisition/ElectricalSeries/data") // (5946, 24)
	if err != nil {
		t.Fatal(err)
	}
	full, err := h5.Read[int16](ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	next, n := 0, 0
	for b, err := range d.Blocks(ctx, 1000, 2) {
		if err != nil {
			t.Fatal(err)
		}
		v, err := h5.As[int16](b.Array)
		if err != nil {
			t.Fatal(err)
		}
		if b.Start != next || !slices.Equal(v.Data, full.Data[next*24:(next+v.Shape[0])*24]) {
			t.Fatalf("block at %d (want %d) differs", b.Start, next)
		}
		next += v.Shape[0]
		n++
	}
	if next != 5946 || n != 6 {
		t.Errorf("%d rows in %d blocks", next, n)
	}
	for b, err := range d.Blocks(ctx, 100, 4) {
		if err != nil || b.Start != 0 {
			t.Fatalf("first block %d, %v", b.Start, err)
		}
		break
	}
	for _, err := range d.Blocks(ctx, 0, 1) {
		if !errors.Is(err, h5.ErrType) {
			t.Errorf("rows 0: %v", err)
		}
	}
}

// TestRemoteMissingFile: opening a URL that answers 404 says 404, not that
// the metadata is malformed.
func TestRemoteMissingFile(t *testing.T) {
	base := startServer(t, http.FileServer(http.Dir(parityDir)))
	for _, name := range []string{"/missing.nwb", "/missing.lindi.json"} {
		_, err := h5.Open(ctx, base+name)
		var he *source.HTTPError
		if !errors.As(err, &he) || he.Status != 404 || errors.Is(err, h5.ErrFormat) {
			t.Errorf("%s: %v, want the HTTP 404", name, err)
		}
	}
}
