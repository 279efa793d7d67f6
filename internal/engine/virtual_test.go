package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/selection"
)

func TestAxis(t *testing.T) {
	var a axis
	for _, r := range []span{{2, 2}, {3, 2}, {8, 1}, {9, 3}, {20, 1}} { // merges into 2-4, 8-11, 20
		a.add(r.lo, r.n)
	}
	if !reflect.DeepEqual(a.runs, []span{{2, 3}, {8, 4}, {20, 1}}) || a.len() != 8 {
		t.Fatalf("runs %v, len %d", a.runs, a.len())
	}
	var coords []int
	for p := range a.len() {
		coords = append(coords, a.at(p))
	}
	if !reflect.DeepEqual(coords, []int{2, 3, 4, 8, 9, 10, 11, 20}) {
		t.Errorf("coordinates %v", coords)
	}
	for c, want := range map[int]int{0: 0, 2: 0, 4: 2, 5: 3, 8: 3, 10: 5, 12: 7, 20: 7, 21: 8} {
		if got := a.find(c); got != want {
			t.Errorf("find(%d) = %d, want %d", c, got, want)
		}
	}
}

func blocks(bs ...[2][]uint64) hdf5.Selection {
	return hdf5.Selection{Kind: hdf5.RegionBlocks, Blocks: bs}
}

func regular(start, stride, count, block []uint64) hdf5.Selection {
	return hdf5.Selection{Kind: hdf5.RegionBlocks, Regular: &hdf5.Hyperslab{Start: start, Stride: stride, Count: count, Block: block}}
}

func TestSelectionAxes(t *testing.T) {
	dims := []int{10, 8}
	tests := []struct {
		name string
		sel  hdf5.Selection
		want string // the axes' runs, or "" on err
		err  error
	}{
		{"all", hdf5.Selection{Kind: hdf5.RegionAll}, "[[{0 10}] [{0 8}]]", nil},
		{"none", hdf5.Selection{Kind: hdf5.RegionNone}, "[[] []]", nil},
		{"strided", regular([]uint64{1, 0}, []uint64{3, 4}, []uint64{3, 2}, []uint64{1, 2}), "[[{1 1} {4 1} {7 1}] [{0 2} {4 2}]]", nil},
		{"overlapping blocks", regular([]uint64{0, 0}, []uint64{1, 1}, []uint64{3, 1}, []uint64{2, 8}), "[[{0 4}] [{0 8}]]", nil},
		{"one block", blocks([2][]uint64{{2, 3}, {4, 3}}), "[[{2 3}] [{3 1}]]", nil},
		{"strided slice as blocks", blocks([2][]uint64{{0, 1}, {0, 2}}, [2][]uint64{{0, 5}, {0, 6}}, [2][]uint64{{4, 1}, {4, 2}}, [2][]uint64{{4, 5}, {4, 6}}), "[[{0 1} {4 1}] [{1 2} {5 2}]]", nil},
		{"L shape", blocks([2][]uint64{{0, 0}, {1, 3}}, [2][]uint64{{2, 0}, {3, 1}}), "", hdf5.ErrUnsupported},
		{"overlap", blocks([2][]uint64{{0, 0}, {1, 3}}, [2][]uint64{{1, 1}, {2, 2}}), "", hdf5.ErrFormat},
		{"block outside", blocks([2][]uint64{{0, 0}, {10, 1}}), "", hdf5.ErrFormat},
		{"hyperslab outside", regular([]uint64{0, 0}, []uint64{5, 1}, []uint64{3, 1}, []uint64{1, 1}), "", hdf5.ErrFormat},
		{"overflowing hyperslab", regular([]uint64{0, 0}, []uint64{1 << 62, 1}, []uint64{5, 1}, []uint64{1, 1}), "", hdf5.ErrFormat},
		{"unlimited", regular([]uint64{0, 0}, []uint64{1, 1}, []uint64{hdf5.Unlimited, 1}, []uint64{1, 1}), "", hdf5.ErrUnsupported},
		{"too many blocks", regular([]uint64{0, 0}, []uint64{0, 1}, []uint64{5 << 20, 1}, []uint64{1, 1}), "", hdf5.ErrUnsupported},
		{"rank", regular([]uint64{0}, []uint64{1}, []uint64{1}, []uint64{1}), "", hdf5.ErrFormat},
		{"points", hdf5.Selection{Kind: hdf5.RegionPoints, Points: [][]uint64{{1, 1}}}, "", hdf5.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			axes, err := selectionAxes(tt.sel, dims)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var runs [][]span
			for _, a := range axes {
				runs = append(runs, append([]span{}, a.runs...))
			}
			if got := fmt.Sprint(runs); got != tt.want {
				t.Errorf("axes %s, want %s", got, tt.want)
			}
		})
	}
}

func TestLiteralName(t *testing.T) {
	for in, want := range map[string]string{"a.h5": "a.h5", "100%%.h5": "100%.h5", "f-%b.h5": "", "%": ""} {
		got, err := literalName(in)
		if got != want || (want == "") != errors.Is(err, hdf5.ErrUnsupported) {
			t.Errorf("literalName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// elements lists the coordinates a product of axes selects, in C order.
func elements(axes []axis) [][]int {
	out := [][]int{nil}
	for _, a := range axes {
		var next [][]int
		for _, prefix := range out {
			for p := range a.len() {
				next = append(next, append(append([]int{}, prefix...), a.at(p)))
			}
		}
		out = next
	}
	return out
}

// TestVirtualAssemble reads virtual arrays of the 2-D testArray as a source
// through mappings of different shapes, in chunks of several sizes, and
// checks every element against the k-th-to-k-th rule, the fill value where
// no mapping reaches and where the source is missing.
func TestVirtualAssemble(t *testing.T) {
	src := testArray{rows: 10, cols: 12, chunks: []int{3, 5}}
	arr := src.build()
	maps := []hdf5.Mapping{
		{File: "a.h5", Dataset: "d", // source 2×6 block into a 3×4 strided one
			Source:  regular([]uint64{2, 3}, []uint64{1, 1}, []uint64{1, 1}, []uint64{2, 6}),
			Virtual: regular([]uint64{1, 0}, []uint64{3, 3}, []uint64{3, 2}, []uint64{1, 2})},
		{File: "gone.h5", Dataset: "d", Source: hdf5.Selection{Kind: hdf5.RegionAll},
			Virtual: regular([]uint64{6, 0}, []uint64{1, 1}, []uint64{1, 1}, []uint64{1, 9})}, // less elements: never checked, the source is missing
		{File: "a.h5", Dataset: "d", // source column 11 rows 0:7 into virtual row 6 from 2
			Source:  regular([]uint64{0, 11}, []uint64{1, 1}, []uint64{1, 1}, []uint64{7, 1}),
			Virtual: regular([]uint64{6, 2}, []uint64{1, 1}, []uint64{1, 1}, []uint64{1, 7})},
	}
	open := func(_ context.Context, file, _ string) (*Chunked, error) {
		if file == "gone.h5" {
			return nil, nil
		}
		return arr, nil
	}
	shape, fill := []int{8, 9}, []byte{0xcd, 0xab}
	want := make([]uint16, 8*9)
	for i := range want {
		want[i] = 0xabcd
	}
	for _, i := range []int{0, 2} {
		v, _ := selectionAxes(maps[i].Virtual, shape)
		s, _ := selectionAxes(maps[i].Source, []int{10, 12})
		ve, se := elements(v), elements(s)
		for k := range ve {
			want[ve[k][0]*9+ve[k][1]] = src.value(se[k][0], se[k][1])
		}
	}
	for _, grid := range [][]int{{8, 9}, {2, 4}, {1, 1}, {3, 9}} {
		l := &virtualLocator{name: "v", shape: shape, grid: grid, item: 2, fill: fill, open: open}
		for _, m := range maps {
			vm, err := newVirtualMapping(m, shape)
			if err != nil {
				t.Fatal(err)
			}
			l.maps = append(l.maps, vm)
		}
		a := &Chunked{Shape: shape, Chunks: grid, ItemSize: 2, Fill: fill, Name: "v", Locator: l}
		r, _ := selection.Selection{}.Resolve(shape)
		out := make([]byte, 2*len(want))
		if err := Read(context.Background(), a, r, out, Options{}); err != nil {
			t.Fatalf("grid %v: %v", grid, err)
		}
		for i, w := range want {
			if got := binary.LittleEndian.Uint16(out[2*i:]); got != w {
				t.Fatalf("grid %v: element %d,%d = %#x, want %#x", grid, i/9, i%9, got, w)
			}
		}
	}
}

// TestVirtualCopyScattered: elements whose source coordinates are spread
// over both axes are read in parts, not as their whole product.
func TestVirtualCopyScattered(t *testing.T) {
	ta := testArray{rows: 100, cols: 100, chunks: []int{10, 10}}
	var reads atomic.Int64
	arr := ta.build()
	inner := arr.Locator
	arr.Locator = locateFunc(func(ctx context.Context, c []int) (Chunk, error) {
		reads.Add(1)
		return inner.Locate(ctx, c)
	})
	s := &virtualSource{arr: arr, axes: make([]axis, 2)}
	s.axes[0].add(0, 100)
	s.axes[1].add(0, 100)
	var ks, dsts []int
	for i := range 100 { // the diagonal, backwards: 100 elements in a product of 10,000
		ks, dsts = append(ks, i*100+i), append(dsts, 99-i)
	}
	buf := make([]byte, 200)
	if err := s.copyTo(context.Background(), ks, dsts, buf, 2, Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if got, want := binary.LittleEndian.Uint16(buf[2*(99-i):]), ta.value(i, i); got != want {
			t.Fatalf("element %d = %d, want %d", i, got, want)
		}
	}
	if n := reads.Load(); n >= 100 { // the product spans all 100
		t.Errorf("%d chunks located for the 10 the diagonal crosses", n)
	}
}

// TestVirtualErrors: a source of another element size, and selections of
// different sizes, fail naming the mapping.
func TestVirtualErrors(t *testing.T) {
	arr := testArray{rows: 4, cols: 4, chunks: []int{2, 2}}.build()
	m := hdf5.Mapping{File: "a.h5", Dataset: "d", Source: hdf5.Selection{Kind: hdf5.RegionAll},
		Virtual: regular([]uint64{0}, []uint64{1}, []uint64{1}, []uint64{16})}
	for name, tc := range map[string]struct {
		item int
		vm   hdf5.Mapping
		err  error
	}{
		"item size":      {4, m, hdf5.ErrUnsupported},
		"element counts": {2, hdf5.Mapping{File: "a.h5", Dataset: "d", Source: hdf5.Selection{Kind: hdf5.RegionAll}, Virtual: regular([]uint64{0}, []uint64{1}, []uint64{1}, []uint64{15})}, hdf5.ErrFormat},
	} {
		l := &virtualLocator{name: "v", shape: []int{16}, grid: []int{16}, item: tc.item,
			open: func(context.Context, string, string) (*Chunked, error) { return arr, nil }}
		vm, err := newVirtualMapping(tc.vm, l.shape)
		if err != nil {
			t.Fatal(err)
		}
		l.maps = []*virtualMapping{vm}
		if _, err := l.assemble(context.Background(), []int{0}, []int{16}, Options{}); !errors.Is(err, tc.err) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.err)
		}
	}
}

// TestVirtualHugeSelection: a virtual selection of more elements than an
// int counts is refused, not wrapped.
func TestVirtualHugeSelection(t *testing.T) {
	_, err := newVirtualMapping(hdf5.Mapping{File: ".", Dataset: "d", Virtual: hdf5.Selection{Kind: hdf5.RegionAll}}, []int{1 << 40, 1 << 40})
	if !errors.Is(err, hdf5.ErrFormat) {
		t.Errorf("err = %v, want ErrFormat", err)
	}
}

func TestVirtualGrid(t *testing.T) {
	for _, tt := range []struct {
		shape []int
		item  int
		want  []int
	}{
		{[]int{3, 6}, 4, []int{3, 6}},
		{[]int{1 << 20, 1000}, 4, []int{262, 1000}},
		{[]int{4, 1 << 30}, 1, []int{1, 1 << 20}},
		{[]int{0, 5}, 8, []int{1, 5}},
	} {
		if got := virtualGrid(tt.shape, tt.item); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("virtualGrid(%v, %d) = %v, want %v", tt.shape, tt.item, got, tt.want)
		}
	}
}

// FuzzSelectionAxes checks that no list of blocks makes selectionAxes
// panic, and that blocks it accepts hold as many elements as its axes.
func FuzzSelectionAxes(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 5, 0, 6, 4, 1, 4, 2, 4, 5, 4, 6})
	f.Add([]byte{0, 0, 1, 3, 2, 0, 3, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		dims := []int{12, 12}
		var bs [][2][]uint64
		volume := 0
		for i := 0; i+4 <= len(b) && len(bs) < 64; i += 4 {
			lo := []uint64{uint64(b[i] % 14), uint64(b[i+1] % 14)}
			hi := []uint64{uint64(b[i+2] % 14), uint64(b[i+3] % 14)}
			bs = append(bs, [2][]uint64{lo, hi})
			volume += (int(hi[0]) - int(lo[0]) + 1) * (int(hi[1]) - int(lo[1]) + 1)
		}
		axes, err := selectionAxes(blocks(bs...), dims)
		if n, _ := numElements(axes); err == nil && n != volume {
			t.Errorf("blocks %v: axes of %d elements, blocks of %d", bs, n, volume)
		}
	})
}
