package hdf5

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lindigo/lindi/zarrmeta"
)

// extraImage decodes one of the embedded images.
func extraImage(t testing.TB, name string) []byte {
	t.Helper()
	gz, err := base64.StdEncoding.DecodeString(extraImages[name])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var extraNames = []string{"extra-latest.h5", "extra-earliest.h5"}

func TestExtraSuperblock(t *testing.T) {
	tests := []struct {
		name    string
		version int
		base    uint64
	}{
		{"extra-latest.h5", 3, 0},
		{"extra-earliest.h5", 0, 512}, // behind a 512-byte user block
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := openBytes(t, tc.name, extraImage(t, tc.name))
			if f.SuperblockVersion() != tc.version || f.Base() != tc.base {
				t.Errorf("superblock version %d base %d, want %d %d", f.SuperblockVersion(), f.Base(), tc.version, tc.base)
			}
		})
	}
}

func TestExtraManyLinks(t *testing.T) {
	ctx := context.Background()
	for _, name := range extraNames {
		t.Run(name, func(t *testing.T) {
			f := openBytes(t, name, extraImage(t, name))
			g, err := f.Group(ctx, "many_links")
			if err != nil {
				t.Fatal(err)
			}
			links, err := g.Members(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(links) != 300 {
				t.Fatalf("%d links, want 300", len(links))
			}
			for i, l := range links {
				if want := fmt.Sprintf("l%03d", i); l.Name != want || l.Type != LinkSoft || l.Target != "/target" {
					t.Fatalf("link %d = %+v, want soft %s -> /target", i, l, want)
				}
			}
			ds, err := g.Dataset(ctx, "l123")
			if err != nil {
				t.Fatal(err)
			}
			raw, err := ds.ReadRaw(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw, []byte{0, 0, 1, 0, 2, 0, 3, 0}) || ds.Path() != "/many_links/l123" {
				t.Errorf("%s = % x", ds.Path(), raw)
			}
		})
	}
}

func TestExtraAttributes(t *testing.T) {
	ctx := context.Background()
	want := map[string]struct {
		value any
		shape []uint64
		descr string
	}{
		"i8":        {int64(-5), nil, "|i1"},
		"u16be":     {uint64(513), nil, ">u2"},
		"f16":       {1.5, nil, "<f2"},
		"f32be":     {[]float64{0.25, -2}, []uint64{2}, ">f4"},
		"f64_2d":    {[]float64{0, 1, 2, 3, 4, 5}, []uint64{2, 3}, "<f8"},
		"vlen":      {"héllo", nil, "|O"},
		"vlen_list": {[]string{"a", "bb", ""}, []uint64{3}, "|O"},
		"fixed":     {"abc", nil, "|S3"},
		"bools":     {[]bool{true, false, true}, []uint64{3}, "|b1"},
		"ref":       {ObjectRef{Path: "/target"}, nil, "|O"},
		"compound":  {[]map[string]any{{"x": int64(1), "y": 2.5}}, []uint64{1}, `[["x","<i4"],["y","<f8"]]`},
		"enum":      {[]int64{1, 2}, []uint64{2}, "|i1"},
		"i64":       {int64(-(1 << 62)), nil, "<i8"},
		"u64":       {uint64(1<<63 + 5), nil, "<u8"},
		"spacepad":  {"ab", nil, "|S6"},
		"nullterm":  {"xyz", nil, "|S6"},
		"empty":     {nil, nil, "<f8"},
		"array":     {[]int64{0, 1, 2, 3, 4, 5}, []uint64{2, 3}, ""}, // no numpy descr
		"seq":       {[]any{[]int64{1, 2, 3}, []int64{4}}, []uint64{2}, "|O"},
	}
	for _, name := range extraNames {
		t.Run(name, func(t *testing.T) {
			f := openBytes(t, name, extraImage(t, name))
			g, err := f.Group(ctx, "attrs")
			if err != nil {
				t.Fatal(err)
			}
			attrs, err := g.Attrs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(attrs) != len(want) {
				t.Errorf("%d attributes, want %d", len(attrs), len(want))
			}
			for _, a := range attrs {
				w, ok := want[a.Name]
				if !ok {
					t.Errorf("unexpected attribute %q", a.Name)
					continue
				}
				if a.Err != nil {
					t.Errorf("%s: %v", a.Name, a.Err)
					continue
				}
				v := a.Value
				if r, ok := v.(ObjectRef); ok {
					v = ObjectRef{Path: r.Path}
				}
				if !reflect.DeepEqual(v, w.value) || !reflect.DeepEqual(a.Shape, w.shape) {
					t.Errorf("%s = %#v shape %v, want %#v shape %v", a.Name, a.Value, a.Shape, w.value, w.shape)
				}
				d, err := a.Type.NumpyDescr()
				if w.descr == "" && !errors.Is(err, ErrUnsupported) || w.descr != "" && (err != nil || d != w.descr) {
					t.Errorf("%s: dtype %q (%v), want %q", a.Name, d, err, w.descr)
				}
			}
		})
	}
}

// TestHugeAttribute reads an attribute too large for a heap block: a huge
// fractal heap object found through the heap's B-tree.
func TestHugeAttribute(t *testing.T) {
	ctx := context.Background()
	f := openBytes(t, "extra-latest.h5", extraImage(t, "extra-latest.h5"))
	g, err := f.Group(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := g.Attrs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(attrs) != 1 || attrs[0].Err != nil {
		t.Fatalf("attributes %v", attrs)
	}
	v, ok := attrs[0].Value.([]float64)
	if !ok || len(v) != 20000 {
		t.Fatalf("value %T of %d elements", attrs[0].Value, len(v))
	}
	for i, x := range v {
		if x != float64(i%7) {
			t.Fatalf("element %d = %v, want %d", i, x, i%7)
		}
	}
}

func TestExtraDatatypes(t *testing.T) {
	ctx := context.Background()
	for _, name := range extraNames {
		f := openBytes(t, name, extraImage(t, name))
		tests := []struct {
			path  string
			descr string
			raw   []byte
		}{
			{"typed", "<i4", []byte{0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0}},
			{"arr", `[["a","<i4",[3]],["b","<f8"]]`, make([]byte, 40)},
			{"f16", "<f2", []byte{0x00, 0x3c, 0x00, 0x40}},
		}
		for _, tc := range tests {
			t.Run(name+"/"+tc.path, func(t *testing.T) {
				ds, err := f.Dataset(ctx, tc.path)
				if err != nil {
					t.Fatal(err)
				}
				if d, err := ds.Datatype().NumpyDescr(); err != nil || d != tc.descr {
					t.Errorf("dtype %q (%v), want %q", d, err, tc.descr)
				}
				raw, err := ds.ReadRaw(ctx)
				if err != nil || !bytes.Equal(raw, tc.raw) {
					t.Errorf("raw % x (%v), want % x", raw, err, tc.raw)
				}
			})
		}
		t.Run(name+"/committed", func(t *testing.T) {
			obj, err := f.Lookup(ctx, "committed")
			if err != nil {
				t.Fatal(err)
			}
			nt, ok := obj.(*NamedType)
			if !ok || nt.Type.Class != ClassFixed || nt.Type.Size != 4 || !nt.Type.Signed {
				t.Errorf("committed = %#v", obj)
			}
		})
	}
}

func TestExtraLinkErrors(t *testing.T) {
	ctx := context.Background()
	for _, name := range extraNames {
		f := openBytes(t, name, extraImage(t, name))
		tests := []struct {
			path string
			err  error
			text []string
		}{
			{"ext", ErrExternalLink, []string{`"other.h5"`, `"/some/where"`}},
			{"ext/deeper", ErrExternalLink, []string{`"other.h5"`}},
			{"loop1", ErrLinkLoop, nil},
			{"dangling", ErrNotFound, []string{"nowhere"}},
		}
		for _, tc := range tests {
			t.Run(name+"/"+tc.path, func(t *testing.T) {
				_, err := f.Lookup(ctx, tc.path)
				if !errors.Is(err, tc.err) {
					t.Fatalf("Lookup(%q) = %v, want %v", tc.path, err, tc.err)
				}
				for _, s := range tc.text {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %s", err, s)
					}
				}
			})
		}
	}
}

func TestHalfToFloat(t *testing.T) {
	tests := []struct {
		bits uint16
		want float64
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0001, math.Ldexp(1, -24)},
		{0x7c00, math.Inf(1)}, {0xfc00, math.Inf(-1)}, {0x0000, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%#04x", tc.bits), func(t *testing.T) {
			if got := zarrmeta.Float16(tc.bits); got != tc.want {
				t.Errorf("zarrmeta.Float16(%#04x) = %v, want %v", tc.bits, got, tc.want)
			}
		})
	}
	if !math.IsNaN(zarrmeta.Float16(0x7e00)) {
		t.Error("0x7e00 is not NaN")
	}
}

// TestSharedMessageHeap reads a file whose datatypes, dataspaces, fill
// values and attributes are shared through the superblock extension's
// shared object header message heap.
func TestSharedMessageHeap(t *testing.T) {
	ctx := context.Background()
	f := openBytes(t, "sohm.h5", extraImage(t, "sohm.h5"))
	if len(f.sohm) == 0 {
		t.Fatal("no shared message table found")
	}
	for i := range 3 {
		t.Run(fmt.Sprint("d", i), func(t *testing.T) {
			ds, err := f.Dataset(ctx, fmt.Sprint("d", i))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := ds.ReadRaw(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.Decode(ctx, ds.Datatype(), raw, 5)
			if want := []int64{int64(i), int64(i + 1), int64(i + 2), int64(i + 3), int64(i + 4)}; err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("values %v (%v), want %v", got, err, want)
			}
			attrs, err := ds.Attrs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(attrs) != 2 || attrs[0].Name != "scale" || attrs[1].Value != "volts-long-string-value" ||
				!reflect.DeepEqual(attrs[0].Value, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
				t.Errorf("attributes %+v %+v", attrs[0], attrs[1])
			}
		})
	}
}
