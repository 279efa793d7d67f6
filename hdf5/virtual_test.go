package hdf5

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// vdsFile opens testdata/corners/vds.h5 (gen_vds.py).
func vdsFile(t testing.TB) *File {
	t.Helper()
	b, err := os.ReadFile("../testdata/corners/vds.h5")
	if err != nil {
		t.Fatal(err)
	}
	return openBytes(t, "vds.h5", b)
}

// TestMappings reads the mappings of h5py's virtual datasets: source names,
// "all", regular and block hyperslabs, in stored order.
func TestMappings(t *testing.T) {
	ctx := context.Background()
	f := vdsFile(t)
	ds, err := f.Dataset(ctx, "/stacked")
	if err != nil {
		t.Fatal(err)
	}
	if ds.Layout() != LayoutVirtual || ds.Err() != nil || ds.Chunks() != nil {
		t.Fatalf("layout %s, err %v, chunks %v", ds.Layout(), ds.Err(), ds.Chunks())
	}
	m, err := ds.Mappings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 || m[1].File != "vds_src1.h5" || m[1].Dataset != "data" || m[1].Source.Kind != RegionAll {
		t.Fatalf("mappings %+v", m)
	}
	v := m[2].Virtual // row 2: start [2 0], block [1 6]
	lo, hi := selectionBox(t, v)
	if !reflect.DeepEqual(lo, []uint64{2, 0}) || !reflect.DeepEqual(hi, []uint64{2, 5}) {
		t.Errorf("virtual selection of mapping 2: %+v", v)
	}
	same, err := f.Dataset(ctx, "/same_file")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := same.Mappings(ctx); err != nil || len(m) != 1 || m[0].File != "." || m[0].Dataset != "plain" {
		t.Errorf("same-file mappings %+v, %v", m, err)
	}
	plain, err := f.Dataset(ctx, "/plain")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Mappings(ctx); !errors.Is(err, ErrUnsupported) {
		t.Errorf("mappings of a contiguous dataset: %v", err)
	}
	if _, err := ds.Locator(ctx); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Locator of a virtual dataset: %v", err)
	}
}

// selectionBox is the one block of a hyperslab, regular or not.
func selectionBox(t *testing.T, s Selection) (lo, hi []uint64) {
	t.Helper()
	if s.Regular != nil {
		b, err := s.Regular.blocks()
		if err != nil || len(b) != 1 {
			t.Fatalf("regular %+v: %v", s.Regular, err)
		}
		return b[0][0], b[0][1]
	}
	if len(s.Blocks) != 1 {
		t.Fatalf("selection %+v", s)
	}
	return s.Blocks[0][0], s.Blocks[0][1]
}

// mappingsObject is the heap object of a virtual dataset's mappings.
func mappingsObject(t testing.TB, f *File, path string) []byte {
	t.Helper()
	ctx := context.Background()
	ds, err := f.Dataset(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.collection(ctx, ds.layout.Addr)
	if err != nil {
		t.Fatal(err)
	}
	return c[uint16(ds.layout.HeapIndex)]
}

// resum replaces the checksum of a mappings object after an edit.
func resum(b []byte) []byte {
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(b[len(b)-4:], fileio.Checksum(b[:len(b)-4]))
	return b
}

// TestMappingsHostile: a corrupt heap object fails with an error naming
// what is wrong, never a panic.
func TestMappingsHostile(t *testing.T) {
	f := vdsFile(t)
	good := mappingsObject(t, f, "/stacked")
	sizes := f.r.Sizes()
	if _, err := parseMappings(good, sizes); err != nil {
		t.Fatal(err)
	}
	edit := func(fn func(b []byte) []byte) []byte { return resum(fn(append([]byte(nil), good...))) }
	tests := []struct {
		name string
		b    []byte
		err  error
	}{
		{"checksum", append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^1), fileio.ErrChecksum},
		{"short", []byte{0, 1}, fileio.ErrShort},
		{"version 1", edit(func(b []byte) []byte { b[0] = 1; return b }), ErrUnsupported},
		{"huge count", edit(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[1:], 1<<40); return b }), ErrFormat},
		{"count past the end", edit(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[1:], 4); return b }), ErrFormat},
		{"trailing bytes", edit(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[1:], 2); return b }), ErrFormat},
		{"no NUL", resum(append(good[:9:9], 'a', 'b', 0, 0, 0, 0)), ErrFormat},
		{"selection type", edit(func(b []byte) []byte { b[9+len("vds_src0.h5\x00data\x00")] = 9; return b }), ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseMappings(tt.b, sizes)
			if !errors.Is(err, tt.err) {
				t.Errorf("err = %v, want %v", err, tt.err)
			}
		})
	}
}

// FuzzMappings checks that no heap object makes the mappings parser panic
// or allocate without bound (the checksum is made to match, so that the
// fuzzer reaches the selections).
func FuzzMappings(f *testing.F) {
	file := vdsFile(f)
	for _, p := range []string{"/stacked", "/strided", "/subblock", "/big"} {
		f.Add(mappingsObject(f, file, p))
	}
	sizes := file.r.Sizes()
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 4 {
			return
		}
		m, err := parseMappings(resum(b), sizes)
		if err == nil && len(m) > len(b) {
			t.Errorf("%d mappings from %d bytes", len(m), len(b))
		}
	})
}
