package h5_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

var ctx = context.Background()

func open(t *testing.T, name string) *h5.File {
	t.Helper()
	f, err := h5.Open(ctx, filepath.Join(conformanceDir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func parse(t *testing.T, s string) selection.Selection {
	t.Helper()
	sel, err := selection.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func TestAttrs(t *testing.T) {
	for _, name := range []string{"fixture.lindi.json", "fixture.h5", "fixture-latest.h5"} {
		t.Run(name, func(t *testing.T) {
			g, err := open(t, name).Group(ctx, "misc")
			if err != nil {
				t.Fatal(err)
			}
			a := g.Attrs()
			if i, err := a.Int("int_attr"); err != nil || i != 7 {
				t.Errorf("int_attr = %v, %v", i, err)
			}
			if f, err := a.Float("float_attr"); err != nil || f != 2.5 {
				t.Errorf("float_attr = %v, %v", f, err)
			}
			if s, err := a.String("str_attr"); err != nil || s != "hello" {
				t.Errorf("str_attr = %q, %v", s, err)
			}
			if b, err := a.Bool("bool_attr"); err != nil || !b {
				t.Errorf("bool_attr = %v, %v", b, err)
			}
			if fs, err := a.Floats("array_attr"); err != nil || !slices.Equal(fs, []float64{1.5, 2.5, 3.5}) {
				t.Errorf("array_attr = %v, %v", fs, err)
			}
			r, err := a.Ref("ref_attr")
			if err != nil || r.Path != "/acquisition/ElectricalSeries" {
				t.Fatalf("ref_attr = %v, %v", r, err)
			}
			if o, err := g.File().Deref(ctx, r); err != nil || o.Path() != "/acquisition/ElectricalSeries" {
				t.Errorf("Deref = %v, %v", o, err)
			}
			if _, err := a.Int("str_attr"); !errors.Is(err, h5.ErrType) {
				t.Errorf("Int of a string: %v", err)
			}
			if _, err := a.Int("nope"); !errors.Is(err, h5.ErrNotFound) {
				t.Errorf("missing attribute: %v", err)
			}
		})
	}
}

// writeLINDI writes a LINDI JSON document to a temporary file.
func writeLINDI(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.lindi.json")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNonFiniteAttrs(t *testing.T) {
	p := writeLINDI(t, `{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
		".zattrs": {"a": "NaN", "b": [1.5, "Infinity", "-Infinity"], "c": NaN, "d": ["NaN", "x"]}}}`)
	f, err := h5.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	a := f.Root().Attrs()
	if v, err := a.Float("a"); err != nil || !math.IsNaN(v) {
		t.Errorf("a = %v, %v", v, err)
	}
	if v, err := a.Float("c"); err != nil || !math.IsNaN(v) {
		t.Errorf("c = %v, %v", v, err)
	}
	if v, err := a.Floats("b"); err != nil || len(v) != 3 || v[0] != 1.5 || !math.IsInf(v[1], 1) || !math.IsInf(v[2], -1) {
		t.Errorf("b = %v, %v", v, err)
	}
	if v, err := a.Strings("d"); err != nil || !slices.Equal(v, []string{"NaN", "x"}) {
		t.Errorf("d = %v, %v", v, err)
	}
}

func TestLinks(t *testing.T) {
	p := writeLINDI(t, `{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
		"a/.zgroup": {"zarr_format": 2}, "a/.zattrs": {"_SOFT_LINK": {"path": "/b"}},
		"b/.zgroup": {"zarr_format": 2}, "b/.zattrs": {"_SOFT_LINK": {"path": "/a"}},
		"g/.zgroup": {"zarr_format": 2}, "g/up/.zgroup": {"zarr_format": 2}, "g/up/.zattrs": {"_SOFT_LINK": {"path": "/g"}}}}`)
	f, err := h5.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Get(ctx, "a"); !errors.Is(err, h5.ErrLinkCycle) {
		t.Errorf("a → b → a: got %v, want ErrLinkCycle", err)
	}
	g, err := f.Group(ctx, "g/up/up/up")
	if err != nil || g.Path() != "/g" {
		t.Errorf("g/up/up/up = %v, %v", g, err)
	}
	var walked []string
	err = f.Root().Walk(ctx, func(path string, l h5.Link, o h5.Object, err error) error {
		walked = append(walked, path+":"+l.Kind.String())
		return nil
	})
	want := []string{"/a:soft", "/b:soft", "/g:hard", "/g/up:soft"}
	if err != nil || !slices.Equal(walked, want) {
		t.Errorf("Walk = %v, %v; want %v", walked, err, want)
	}
	if _, err := f.Dataset(ctx, "g"); !errors.Is(err, h5.ErrNotDataset) {
		t.Errorf("Dataset(group): %v", err)
	}
	if _, err := f.Get(ctx, "g/nope"); !errors.Is(err, h5.ErrNotFound) {
		t.Errorf("missing member: %v", err)
	}
}

func TestSoftLinkToDataset(t *testing.T) {
	d, err := open(t, "fixture.lindi.json").Dataset(ctx, "misc/soft_link_to_data")
	if err != nil {
		t.Fatal(err)
	}
	if d.Path() != "/acquisition/ElectricalSeries/data" {
		t.Errorf("path %s", d.Path())
	}
}

func TestTypedReads(t *testing.T) {
	f := open(t, "fixture.lindi.json")
	d, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.Read[int16](ctx, d, parse(t, "0:3, 0:2"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Shape, []int{3, 2}) || !slices.Equal(a.Data, []int16{1020, 1801, -190, 1153, -1632, 899}) {
		t.Errorf("got %v %v", a.Shape, a.Data)
	}
	if _, err := h5.ReadExact[float32](ctx, d, nil); !errors.Is(err, h5.ErrType) {
		t.Errorf("ReadExact[float32] of <i2: %v", err)
	}
	// Read converts; the names say which one does.
	if c, err := h5.Read[float32](ctx, d, parse(t, "0:3, 0:2")); err != nil || !slices.Equal(c.Data, []float32{1020, 1801, -190, 1153, -1632, 899}) {
		t.Errorf("Read[float32] of <i2: %v %v", c, err)
	}
	if c, err := h5.Read[int8](ctx, d, parse(t, "0, 0")); err != nil || c.Data[0] != -4 {
		t.Errorf("Read[int8] of 1020: %v %v", c, err)
	}
	if _, err := h5.Read[string](ctx, d, nil); !errors.Is(err, h5.ErrType) {
		t.Errorf("Read[string] of <i2: %v", err)
	}
	if _, err := h5.Read[h5.Reference](ctx, d, nil); !errors.Is(err, h5.ErrType) {
		t.Errorf("Read[Reference] of <i2: %v", err)
	}
	fa, err := h5.Read[float64](ctx, d, parse(t, "0:3, 0:2"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := h5.Dense(fa)
	if err != nil || m.At(2, 1) != 899 {
		t.Errorf("Dense: %v", err)
	}
	empty, err := h5.Read[float64](ctx, d, parse(t, "3:3, :"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h5.Dense(empty); !errors.Is(err, h5.ErrType) {
		t.Errorf("Dense of an empty array: %v", err)
	}
	ts, err := f.Dataset(ctx, "acquisition/ElectricalSeries/timestamps")
	if err != nil {
		t.Fatal(err)
	}
	col, err := h5.Read[float64](ctx, ts, parse(t, "::-1000"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := h5.Vec(col)
	if err != nil || v.Len() != 6 {
		t.Errorf("Vec: %v", err)
	}
	be, err := f.Dataset(ctx, "misc/big_endian_i4")
	if err != nil {
		t.Fatal(err)
	}
	bi, err := h5.Read[int32](ctx, be, parse(t, ":3"))
	if err != nil {
		t.Fatal(err)
	}
	if bi.Data[1]-bi.Data[0] == 0 || be.DType().String() != ">i4" {
		t.Errorf("big-endian read %v as %s", bi.Data, be.DType())
	}
}

func TestStringsAndRefs(t *testing.T) {
	for _, name := range []string{"fixture.lindi.json", "fixture.h5"} {
		t.Run(name, func(t *testing.T) {
			f := open(t, name)
			for path, want := range map[string][]string{
				"misc/vlen_strings":   {"one", "two", "three", "unicode éè"},
				"misc/fixed_strings":  {"alpha", "beta", "gamma"},
				"session_description": {"a fixture session"},
			} {
				d, err := f.Dataset(ctx, path)
				if err != nil {
					t.Fatal(err)
				}
				s, err := h5.Read[string](ctx, d, nil)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if !slices.Equal(s.Data, want) {
					t.Errorf("%s = %q, want %q", path, s.Data, want)
				}
			}
			d, err := f.Dataset(ctx, "general/extracellular_ephys/electrodes/group")
			if err != nil {
				t.Fatal(err)
			}
			refs, err := h5.Read[h5.Reference](ctx, d, parse(t, ":3"))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range refs.Data {
				o, err := f.Deref(ctx, r)
				if err != nil || o.Path() != "/general/extracellular_ephys/shank0" {
					t.Errorf("ref %v → %v, %v", r, o, err)
				}
			}
		})
	}
}

func TestCompound(t *testing.T) {
	for _, name := range []string{"fixture.lindi.json", "fixture.h5", "fixture-latest.h5"} {
		t.Run(name, func(t *testing.T) {
			d, err := open(t, name).Dataset(ctx, "misc/compound")
			if err != nil {
				t.Fatal(err)
			}
			a, err := d.Read(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			y, err := a.Field("y")
			if err != nil {
				t.Fatal(err)
			}
			yv, err := h5.As[float64](y)
			if err != nil || yv.Data[1] != 0.2 || yv.Data[5] != 1 {
				t.Errorf("y = %v, %v", yv, err)
			}
			x, err := a.Field("x")
			if err != nil {
				t.Fatal(err)
			}
			xv, err := h5.AsExact[int32](x)
			if err != nil || !slices.Equal(xv.Data, []int32{0, 1, 2, 3, 4, 5}) {
				t.Errorf("x = %v, %v", xv, err)
			}
		})
	}
}

func TestExternalArrayLinkMissingFile(t *testing.T) {
	p := writeLINDI(t, `{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
		"d/.zarray": {"chunks": [10], "compressor": null, "dtype": "<f8", "fill_value": 0, "filters": null, "order": "C", "shape": [10], "zarr_format": 2},
		"d/.zattrs": {"_EXTERNAL_ARRAY_LINK": {"link_type": "hdf5_dataset", "url": "./gone.h5", "name": "d"}}}}`)
	f, err := h5.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Dataset(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, nil); !errors.Is(err, h5.ErrNeedsHDF5) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want ErrNeedsHDF5 naming the missing file", err)
	}
}

func TestReadCancelled(t *testing.T) {
	d, err := open(t, "fixture.h5").Dataset(ctx, "misc/over_1000_chunks")
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithCancel(ctx)
	cancel()
	start := time.Now()
	if _, err := d.Read(c, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if time.Since(start) > time.Second {
		t.Error("a cancelled read took more than a second")
	}
}

func TestOpenErrors(t *testing.T) {
	for name, path := range map[string]string{
		"missing":   "no/such/file.lindi.json",
		"not ours":  filepath.Join(conformanceDir, "expected", "fixture-0000.npy"),
		"bad json":  writeLINDI(t, `{"refs": {`),
		"bad zattr": writeLINDI(t, `{"refs": {".zgroup": {"zarr_format": 2}, ".zattrs": {"_SOFT_LINK": 3}}}`),
		"plain dir": t.TempDir(),
	} {
		t.Run(name, func(t *testing.T) {
			if f, err := h5.Open(ctx, path); err == nil {
				f.Close()
				t.Fatal("Open succeeded")
			}
		})
	}
}

// TestHDF5MatchesLINDI checks that an HDF5 file and its LINDI JSON show the
// same tree: paths, kinds, shapes and attributes.
func TestHDF5MatchesLINDI(t *testing.T) {
	describe := func(f *h5.File) map[string]any {
		out := map[string]any{}
		f.Root().Walk(ctx, func(path string, l h5.Link, o h5.Object, err error) error {
			entry := []any{l.Kind.String(), l.Target}
			if l.Kind == h5.HardLink {
				attrs := map[string]any{}
				for _, n := range o.Attrs().Names() {
					attrs[n], _ = o.Attrs().Get(n)
				}
				entry = append(entry, attrs)
				if d, ok := o.(*h5.Dataset); ok {
					entry = append(entry, d.Shape())
				}
			}
			out[path] = entry
			return nil
		})
		return out
	}
	want := describe(open(t, "fixture.lindi.json"))
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		got := describe(open(t, name))
		for p, w := range want {
			if !reflect.DeepEqual(got[p], w) {
				t.Errorf("%s: %s is %v, LINDI says %v", name, p, got[p], w)
			}
		}
		for p := range got {
			if _, ok := want[p]; !ok {
				t.Errorf("%s: %s is not in the LINDI file", name, p)
			}
		}
	}
}

// TestUnknownCodec checks that a dataset with a codec lindi-go lacks fails on
// its own: the file opens, the error names the codec.
func TestUnknownCodec(t *testing.T) {
	p := writeLINDI(t, `{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
		"bad/.zarray": {"chunks": [4], "compressor": {"id": "zfpy", "mode": 4}, "dtype": "<f8", "fill_value": 0, "filters": null, "order": "C", "shape": [4], "zarr_format": 2},
		"good/.zarray": {"chunks": [2], "compressor": null, "dtype": "|u1", "fill_value": 7, "filters": null, "order": "C", "shape": [3], "zarr_format": 2},
		"good/0": "base64:AQI="}}`)
	f, err := h5.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := f.Dataset(ctx, "bad")
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Err(); !errors.Is(err, codecs.ErrUnknownCodec) {
		t.Errorf("Err() = %v, want ErrUnknownCodec", err)
	}
	if _, err := bad.Read(ctx, nil); !errors.Is(err, codecs.ErrUnknownCodec) || !strings.Contains(err.Error(), "zfpy") {
		t.Errorf("Read: %v, want an error naming zfpy", err)
	}
	good, err := f.Dataset(ctx, "good")
	if err != nil || good.Err() != nil {
		t.Fatal(err, good.Err())
	}
	a, err := h5.Read[uint8](ctx, good, nil)
	if err != nil || !slices.Equal(a.Data, []uint8{1, 2, 7}) {
		t.Errorf("good = %v, %v; want [1 2 7] (the missing chunk is fill)", a, err)
	}
}

// TestZarrDirSymlinks: a Zarr directory whose chunk links out of it is
// refused unless WithOutsideSymlinks is given.
func TestZarrDirSymlinks(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "s.zarr")
	if err := os.MkdirAll(filepath.Join(root, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"s.zarr/.zgroup": `{"zarr_format": 2}`, "secret": "\x01\x02\x03\x04",
		"s.zarr/x/.zarray": `{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "|u1", "compressor": null, "fill_value": 0, "filters": null, "order": "C"}`,
	} {
		if err := os.WriteFile(filepath.Join(base, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../../secret", filepath.Join(root, "x", "0")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, tc := range []struct {
		opts []h5.Option
		ok   bool
	}{{nil, false}, {[]h5.Option{h5.WithOutsideSymlinks()}, true}} {
		f, err := h5.Open(ctx, root, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.Dataset(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		a, err := d.Read(ctx, nil)
		if tc.ok && (err != nil || string(a.Data) != "\x01\x02\x03\x04") {
			t.Errorf("WithOutsideSymlinks: %v", err)
		}
		if !tc.ok && (err == nil || !strings.Contains(err.Error(), "out of the store")) {
			t.Errorf("a chunk linked out of the store: got %v, want a refusal", err)
		}
		f.Close()
	}
}
