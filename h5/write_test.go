package h5

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/selection"
)

func mustSel(t *testing.T, s string) selection.Selection {
	t.Helper()
	sel, err := selection.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

func TestWriteAPI(t *testing.T) {
	ctx := context.Background()
	name := t.Name() + ".mem.lindi"
	f, err := Create(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, name); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Create: %v, want ErrExist", err)
	}
	g, err := f.Root().CreateGroup(ctx, "processing/behavior")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Root().CreateGroup(ctx, "processing/behavior"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("CreateGroup twice: %v", err)
	}
	if g2, err := f.Root().RequireGroup(ctx, "processing/behavior"); err != nil || g2 != g {
		t.Errorf("RequireGroup = %v, %v; want the same group", g2, err)
	}
	data := make([]int16, 10*7)
	for i := range data {
		data[i] = int16(i*37 - 900)
	}
	d, err := CreateDatasetFrom(ctx, g, "x/data", data, []int{10, 7}, &DatasetSpec{Chunks: []int{4, 3}, Codec: NoCodec})
	if err != nil {
		t.Fatal(err)
	}
	// A partial write: a read-modify-write of the chunks it touches.
	if err := Write(ctx, d, mustSel(t, "2:9:3, 1::2"), []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}); err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(data)
	k := 0
	for i := 2; i < 9; i += 3 {
		for j := 1; j < 7; j += 2 {
			k++
			want[i*7+j] = int16(k)
		}
	}
	if err := Write(ctx, d, mustSel(t, "0, 0"), []float64{0.5}); err == nil {
		t.Error("0.5 written into <i2")
	}
	if err := Write(ctx, d, mustSel(t, "0, 0"), []int{math.MaxInt32}); err == nil {
		t.Error("MaxInt32 written into <i2")
	}
	if err := Write(ctx, d, mustSel(t, "0:20, 0"), []int16{1}); err == nil {
		t.Error("a write past the shape succeeded")
	}
	if err := d.SetAttr(ctx, "unit", "mV"); err != nil {
		t.Fatal(err)
	}
	if err := g.SetAttr(ctx, "rate", 30000.0); err != nil {
		t.Fatal(err)
	}
	if err := g.SetAttr(ctx, "_SCALAR", true); err == nil {
		t.Error("reserved attribute name accepted")
	}
	if err := g.SetAttr(ctx, "bad", "NaN"); err == nil {
		t.Error("the string NaN accepted")
	}
	if err := f.Root().SetAttr(ctx, "target", Reference{Path: "/processing/behavior/x/data"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Root().SoftLink(ctx, "link", "/processing/behavior/x/data"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Root().CreateGroup(ctx, "gone/deeper"); err != nil {
		t.Fatal(err)
	}
	if err := f.Root().Delete(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"a/../b", "a\x01", ".zarray", "", "a//b"} {
		if _, err := f.Root().CreateGroup(ctx, bad); err == nil {
			t.Errorf("CreateGroup(%q) succeeded", bad)
		}
	}
	if _, err := CreateDatasetFrom(ctx, f.Root(), "names", []string{"a", "é", ""}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateDatasetFrom(ctx, f.Root(), "refs", []Reference{{Path: "/names"}, {Path: "/processing"}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	check := func(f *File) {
		t.Helper()
		d, err := f.Dataset(ctx, "link")
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadExact[int16](ctx, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Data, want) {
			t.Errorf("read back\n%v\nwant\n%v", got.Data, want)
		}
		if u, err := d.Attrs().String("unit"); err != nil || u != "mV" {
			t.Errorf("unit = %q, %v", u, err)
		}
		g, err := f.Group(ctx, "processing/behavior")
		if err != nil {
			t.Fatal(err)
		}
		if v, err := g.Attrs().Get("rate"); err != nil || v != 30000.0 {
			t.Errorf("rate = %#v (%T), %v", v, v, err)
		}
		if r, err := f.Root().Attrs().Ref("target"); err != nil || r.Path != "/processing/behavior/x/data" {
			t.Errorf("target = %v, %v", r, err)
		}
		names, err := f.Dataset(ctx, "names")
		if err != nil {
			t.Fatal(err)
		}
		if s, err := Read[string](ctx, names, nil); err != nil || !slices.Equal(s.Data, []string{"a", "é", ""}) {
			t.Errorf("names = %v, %v", s, err)
		}
		refs, err := f.Dataset(ctx, "refs")
		if err != nil {
			t.Fatal(err)
		}
		if r, err := Read[Reference](ctx, refs, nil); err != nil || len(r.Data) != 2 || r.Data[1].Path != "/processing" {
			t.Errorf("refs = %v, %v", r, err)
		}
		if _, err := f.Get(ctx, "gone"); err == nil {
			t.Error("deleted group still there")
		}
	}
	check(f)
	// A copy by reference, in the same file and into another.
	if _, err := f.Root().Copy(ctx, d, "copies/data"); err != nil {
		t.Fatal(err)
	}
	other, err := Create(ctx, t.Name()+"-other.mem.lindi")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Root().Copy(ctx, g, "behavior"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    *File
		path string
	}{{f, "copies/data"}, {other, "behavior/x/data"}} {
		cd, err := c.f.Dataset(ctx, c.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadExact[int16](ctx, cd, nil)
		if err != nil || !slices.Equal(got.Data, want) {
			t.Errorf("copy %s: %v, %v", c.path, got, err)
		}
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := openMem(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	check(r)
	// Amend it again.
	f, err = OpenWrite(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenWrite(ctx, name); err == nil {
		t.Error("a second writer opened the file")
	}
	check(f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestWriteReadOnly(t *testing.T) {
	ctx := context.Background()
	f, err := OpenRefs(ctx, map[string]any{".zgroup": map[string]any{"zarr_format": 2}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Root().CreateGroup(ctx, "a"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("CreateGroup on a read-only file: %v", err)
	}
	if _, err := Create(ctx, "https://example.org/x.lindi.tar"); err == nil {
		t.Error("a remote file was created")
	}
	if _, err := Create(ctx, t.TempDir()+"/x.nwb"); err == nil {
		t.Error("an HDF5 name was created")
	}
}

func TestMaterialize(t *testing.T) {
	ctx := context.Background()
	src, err := Open(ctx, "../testdata/conformance/fixture.lindi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := CreateFrom(ctx, t.Name()+".mem.lindi", src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "misc/over_1000_chunks")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read[float64](ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	one := make([]float64, d.Shape()[len(d.Shape())-1])
	sel := mustSel(t, "1")
	for range len(d.Shape()) - 2 {
		sel = append(sel, selection.Index(0))
	}
	sel = append(sel, selection.All())
	if len(d.Shape()) == 1 {
		one, sel = []float64{0}, mustSel(t, "1")
	}
	if err := Write(ctx, d, sel, one); err == nil || !strings.Contains(err.Error(), "_EXTERNAL_ARRAY_LINK") {
		t.Fatalf("write to a linked dataset: %v", err)
	}
	if err := d.Materialize(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := Read[float64](ctx, d, nil)
	if err != nil || !slices.Equal(got.Data, want.Data) {
		t.Fatalf("after Materialize: %v (%d values), want %d", err, len(got.Data), len(want.Data))
	}
	for i := range one {
		one[i] = -7
	}
	if err := Write(ctx, d, sel, one); err != nil {
		t.Fatal(err)
	}
	got, err = Read[float64](ctx, d, sel)
	if err != nil || !slices.Equal(got.Data, one) {
		t.Errorf("after a write: %v, %v", got, err)
	}
}

// TestWriteFailurePoisons: a write that fails after some of its chunks
// were put leaves the file uncommittable, so that it stays at its last
// committed state.
func TestWriteFailurePoisons(t *testing.T) {
	ctx := context.Background()
	name := t.Name() + ".mem.lindi"
	f, err := Create(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Root().CreateGroup(ctx, "kept"); err != nil {
		t.Fatal(err)
	}
	if err := f.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	data := make([]float64, 10000)
	for i := range data {
		data[i] = float64(i) * 1.1
	}
	d, err := f.Root().CreateDataset(ctx, "x", DatasetSpec{Shape: []int{10000}, DType: DTypeOf[float64](), Chunks: []int{1000}, Codec: NoCodec})
	if err != nil {
		t.Fatal(err)
	}
	mem.mu.Lock()
	mem.files[name].failAt = 3
	mem.mu.Unlock()
	if err := Write(ctx, d, nil, data); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("write: %v", err)
	}
	if err := f.Flush(ctx); err == nil || !strings.Contains(err.Error(), "not committed") {
		t.Errorf("flush after a failed write: %v", err)
	}
	if err := f.Discard(); err != nil {
		t.Fatal(err)
	}
	r, err := openMem(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Get(ctx, "kept"); err != nil {
		t.Error(err)
	}
	if _, err := r.Get(ctx, "x"); err == nil {
		t.Error("the uncommitted dataset is in the file")
	}
}

// TestCopyByValue copies every dataset of a Zarr store (which has no LINDI
// document) by reading and writing it, and reads each back equal.
func TestCopyByValue(t *testing.T) {
	ctx := context.Background()
	src, err := Open(ctx, "../testdata/conformance/fixture.zarr")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := Create(ctx, t.Name()+".mem.lindi")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Discard()
	copied := 0
	err = src.Root().Walk(ctx, func(path string, l Link, o Object, err error) error {
		d, ok := o.(*Dataset)
		if err != nil || !ok || d.Err() != nil {
			return nil
		}
		c, err := f.Root().Copy(ctx, d, "copy"+path)
		if err != nil {
			t.Logf("%s: %v", path, err)
			return nil
		}
		a, err := d.Read(ctx, nil)
		if err != nil {
			return nil
		}
		b, err := c.(*Dataset).Read(ctx, nil)
		if err != nil {
			t.Errorf("%s: reading the copy: %v", path, err)
			return nil
		}
		if fmt.Sprint(a.Shape, a.Data, a.Objects) != fmt.Sprint(b.Shape, b.Data, b.Objects) {
			t.Errorf("%s: the copy reads %v %v, the source %v %v", path, b.Shape, b.DType, a.Shape, a.DType)
		}
		copied++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if copied < 10 {
		t.Errorf("only %d datasets copied", copied)
	}
	t.Logf("%d datasets copied by value", copied)
}

func TestResize(t *testing.T) {
	ctx := context.Background()
	f, err := Create(ctx, t.Name()+".mem.lindi")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Discard()
	d, err := CreateDatasetFrom(ctx, f.Root(), "x", []int32{1, 2, 3, 4, 5, 6, 7}, nil, &DatasetSpec{Chunks: []int{3}, Fill: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Resize(ctx, []int{10}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadExact[int32](ctx, d, nil)
	if err != nil || !slices.Equal(got.Data, []int32{1, 2, 3, 4, 5, 6, 7, -1, -1, -1}) {
		// The old edge chunk was written whole, its tail beyond the old
		// shape the fill value; the chunk beyond it was never written.
		t.Errorf("grown: %v, %v", got, err)
	}
	if err := Write(ctx, d, mustSel(t, "7:10"), []int32{8, 9, 10}); err != nil {
		t.Fatal(err)
	}
	if err := d.Resize(ctx, []int{4}); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadExact[int32](ctx, d, nil); err != nil || !slices.Equal(got.Data, []int32{1, 2, 3, 4}) {
		t.Errorf("shrunk: %v, %v", got, err)
	}
	if err := d.Resize(ctx, []int{9}); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadExact[int32](ctx, d, nil); err != nil || !slices.Equal(got.Data, []int32{1, 2, 3, 4, 5, 6, -1, -1, -1}) {
		t.Errorf("grown after shrinking: %v, %v (chunk 2 was dropped, chunk 1 kept)", got, err)
	}
	if err := d.Resize(ctx, []int{3, 3}); err == nil {
		t.Error("a change of rank accepted")
	}
}

// TestWritePointwise writes Vindex and MaskND selections (with orthogonal
// axes around them) and reads the whole dataset back against a model.
func TestWritePointwise(t *testing.T) {
	ctx := context.Background()
	f, err := Create(ctx, t.Name()+".mem.lindi")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Discard()
	shape := []int{3, 7, 9}
	model := make([]int32, 3*7*9)
	for i := range model {
		model[i] = int32(i)
	}
	d, err := CreateDatasetFrom(ctx, f.Root(), "x", model, shape, &DatasetSpec{Chunks: []int{2, 3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	at := func(i, j, k int) *int32 { return &model[(i*7+j)*9+k] }
	// x[0:3:2, vindex([0, 2, 6, 2], [1, 5, 8, 6])] = …: shape (2, 4)
	rows, cols := []int{0, 2, 6, 2}, []int{1, 5, 8, 6}
	vals := []int32{-1, -2, -3, -4, -5, -6, -7, -8}
	if err := Write(ctx, d, selection.Selection{selection.Slice(0, 3, 2), selection.Vindex(rows, cols)}, vals); err != nil {
		t.Fatal(err)
	}
	for b, i := range []int{0, 2} {
		for p := range rows {
			*at(i, rows[p], cols[p]) = vals[b*4+p]
		}
	}
	// x[1, mask] = …, the mask over axes 1 and 2.
	mask := make([]bool, 7*9)
	var want []int32
	for j := range 7 {
		for k := range 9 {
			if (j*9+k)%5 == 0 {
				mask[j*9+k] = true
				want = append(want, int32(1000+len(want)))
				*at(1, j, k) = want[len(want)-1]
			}
		}
	}
	if err := Write(ctx, d, selection.Selection{selection.Index(1), selection.MaskND([]int{7, 9}, mask)}, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadExact[int32](ctx, d, nil)
	if err != nil || !slices.Equal(got.Data, model) {
		t.Errorf("after pointwise writes:\n%v\nwant\n%v (%v)", got.Data, model, err)
	}
	if err := Write(ctx, d, selection.Selection{selection.Index(0), selection.Vindex([]int{0}, []int{1})}, []int32{1, 2}); err == nil {
		t.Error("a pointwise write with too many values succeeded")
	}
}
