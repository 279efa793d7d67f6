package btree2

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

type memSource struct{ data []byte }

func (m *memSource) ReadAt(_ context.Context, p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m.data)) {
		return 0, io.EOF
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
func (m *memSource) Size(context.Context) (int64, error) { return int64(len(m.data)), nil }
func (m *memSource) Name() string                        { return "mem" }

var sizes8 = fileio.Sizes{OffsetSize: 8, LengthSize: 8}

func reader(t testing.TB, data []byte) *fileio.Reader {
	t.Helper()
	r, err := fileio.New(context.Background(), &memSource{data: data})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = r.WithSizes(sizes8); err != nil {
		t.Fatal(err)
	}
	return r
}

// headers returns the addresses of every "BTHD" signature in data.
func headers(data []byte) []uint64 {
	var out []uint64
	for i := 0; ; i++ {
		j := bytes.Index(data[i:], []byte("BTHD"))
		if j < 0 {
			return out
		}
		i += j
		out = append(out, uint64(i))
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestFixtureTrees walks every version 2 B-tree of the fixtures: dense
// link storage, chunk indexes with leaf roots and internal nodes. The
// records of chunk trees (types 10 and 11) must come in strictly
// increasing order of their scaled offsets, and Find must return each.
func TestFixtureTrees(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		path      string
		minTrees  int
		minDepth  uint16
		minChunks int
	}{
		{"../../../testdata/conformance/fixture-latest.h5", 2, 0, 20},
		{"../layout/testdata/indexes.h5", 4, 2, 5000},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			data := readFile(t, tt.path)
			r := reader(t, data)
			var trees, chunks int
			var depth uint16
			for _, addr := range headers(data) {
				tr, err := Open(ctx, r, addr)
				if err != nil {
					t.Fatalf("Open(%d): %v", addr, err)
				}
				trees++
				depth = max(depth, tr.Depth)
				var prev []byte
				var n uint64
				err = tr.Walk(ctx, func(rec []byte) error {
					n++
					if len(rec) != int(tr.RecordSize) {
						t.Fatalf("record of %d bytes, want %d", len(rec), tr.RecordSize)
					}
					if tr.Type != TypeChunk && tr.Type != TypeFilteredChunk {
						return nil
					}
					chunks++
					key := scaled(tr, rec)
					if prev != nil && bytes.Compare(bigEndian(prev), bigEndian(key)) >= 0 {
						t.Fatalf("records out of order: %x then %x", prev, key)
					}
					prev = key
					got, ok, err := tr.Find(ctx, func(r []byte) int {
						return bytes.Compare(bigEndian(key), bigEndian(scaled(tr, r)))
					})
					if err != nil || !ok || !bytes.Equal(got, rec) {
						t.Fatalf("Find(%x) = %x, %v, %v", key, got, ok, err)
					}
					return nil
				})
				if err != nil {
					t.Fatalf("Walk(%d): %v", addr, err)
				}
				if n != tr.TotalRecords {
					t.Fatalf("walked %d records, header says %d", n, tr.TotalRecords)
				}
			}
			if trees < tt.minTrees || depth < tt.minDepth || chunks < tt.minChunks {
				t.Fatalf("%d trees, depth %d, %d chunk records; want at least %d, %d, %d",
					trees, depth, chunks, tt.minTrees, tt.minDepth, tt.minChunks)
			}
		})
	}
}

// scaled returns the scaled offsets that end a chunk record.
func scaled(tr *Tree, rec []byte) []byte {
	fixed := 8 // address
	if tr.Type == TypeFilteredChunk {
		fixed = len(rec) - 16 // two dimensions in these fixtures
	}
	return rec[fixed:]
}

// bigEndian rewrites little-endian uint64s so bytes.Compare orders them.
func bigEndian(le []byte) []byte {
	out := make([]byte, len(le))
	for i := 0; i+8 <= len(le); i += 8 {
		binary.BigEndian.PutUint64(out[i:], binary.LittleEndian.Uint64(le[i:]))
	}
	return out
}

func TestFindMissing(t *testing.T) {
	ctx := context.Background()
	data := readFile(t, "../layout/testdata/indexes.h5")
	r := reader(t, data)
	for _, addr := range headers(data) {
		tr, err := Open(ctx, r, addr)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Type != TypeChunk {
			continue
		}
		// Chunk (1000, 1000) lies outside every fixture grid.
		key := make([]byte, 16)
		binary.LittleEndian.PutUint64(key, 1000)
		binary.LittleEndian.PutUint64(key[8:], 1000)
		_, ok, err := tr.Find(ctx, func(r []byte) int {
			return bytes.Compare(bigEndian(key), bigEndian(scaled(tr, r)))
		})
		if err != nil || ok {
			t.Fatalf("Find(missing) = %v, %v", ok, err)
		}
		return
	}
	t.Fatal("no type 10 tree in indexes.h5")
}

func TestEncSize(t *testing.T) {
	tests := []struct {
		n    uint64
		want int
	}{{0, 1}, {1, 1}, {255, 1}, {256, 2}, {65535, 2}, {65536, 3}, {1 << 63, 8}}
	for _, tt := range tests {
		t.Run("", func(t *testing.T) {
			if got := encSize(tt.n); got != tt.want {
				t.Errorf("encSize(%d) = %d, want %d", tt.n, got, tt.want)
			}
		})
	}
}

// TestLevels checks the capacity arithmetic on hand-computed values: 512
// byte nodes of 24-byte records (type 10, two dimensions, 8-byte
// addresses).
func TestLevels(t *testing.T) {
	h := Header{NodeSize: 512, RecordSize: 24, Depth: 2}
	lv, nrecSize, err := h.levels(sizes8)
	if err != nil {
		t.Fatal(err)
	}
	// Leaves: (512-10)/24 = 20 records, counted in 1 byte.
	// Depth 1: pointers of 8+1 bytes: (512-10-9)/(24+9) = 14 records,
	// subtrees of 15*20+14 = 314 records, counted in 2 bytes.
	// Depth 2: pointers of 8+1+2 bytes: (512-10-11)/(24+11) = 14 records,
	// subtrees of 15*314+14 = 4724 records.
	want := []level{{20, 20, 0}, {14, 314, 2}, {14, 4724, 2}}
	if nrecSize != 1 {
		t.Errorf("nrecSize = %d, want 1", nrecSize)
	}
	for i := range want {
		if lv[i] != want[i] {
			t.Errorf("level %d = %+v, want %+v", i, lv[i], want[i])
		}
	}
}

// corrupt returns a copy of data with the bytes at off replaced.
func corrupt(data []byte, off int, b ...byte) []byte {
	c := bytes.Clone(data)
	copy(c[off:], b)
	return c
}

// reseal recomputes the checksum of the n bytes at off (checksum last).
func reseal(data []byte, off, n int) []byte {
	binary.LittleEndian.PutUint32(data[off+n-4:], fileio.Checksum(data[off:off+n-4]))
	return data
}

func TestHostile(t *testing.T) {
	ctx := context.Background()
	data := readFile(t, "../layout/testdata/indexes.h5")
	var deep uint64
	r := reader(t, data)
	for _, addr := range headers(data) {
		if tr, err := Open(ctx, r, addr); err == nil && tr.Depth > 0 {
			deep = addr
		}
	}
	if deep == 0 {
		t.Fatal("no internal node in indexes.h5")
	}
	tr, _ := Open(ctx, r, deep)
	h := int(deep)
	hs := headerSize(sizes8)
	root := int(tr.Root)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"header checksum", corrupt(data, h+10, 0xff), fileio.ErrChecksum},
		{"absurd depth", reseal(corrupt(data, h+12, 0xff, 0xff), h, hs), ErrCorrupt},
		{"tiny nodes", reseal(corrupt(data, h+6, 12, 0, 0, 0), h, hs), ErrCorrupt},
		{"zero record size", reseal(corrupt(data, h+10, 0, 0), h, hs), ErrCorrupt},
		{"too many root records", reseal(corrupt(data, h+24, 0xff, 0xff), h, hs), ErrCorrupt},
		{"root past EOF", reseal(corrupt(data, h+16, 0, 0, 0, 0, 0, 0, 0, 1), h, hs), fileio.ErrOutOfRange},
		{"node checksum", corrupt(data, root+8, 0xee), fileio.ErrChecksum},
		{"node signature", corrupt(data, root, 'X'), fileio.ErrChecksum},
		{"more records than announced", reseal(corrupt(data, h+26, 5), h, hs), ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reader(t, tt.data)
			err := Walk(ctx, r, deep, func([]byte) error { return nil })
			if !errors.Is(err, tt.want) {
				t.Fatalf("Walk: %v, want %v", err, tt.want)
			}
		})
	}
}

// TestLoop points every child of the root at the root's first child, so
// the same subtree is reached twice.
func TestLoop(t *testing.T) {
	ctx := context.Background()
	data := readFile(t, "../layout/testdata/indexes.h5")
	r := reader(t, data)
	for _, addr := range headers(data) {
		tr, err := Open(ctx, r, addr)
		if err != nil || tr.Depth == 0 {
			continue
		}
		n, err := tr.node(ctx, child{addr: tr.Root, records: uint64(tr.RootRecords), total: tr.TotalRecords}, int(tr.Depth))
		if err != nil {
			t.Fatal(err)
		}
		bad := bytes.Clone(data)
		ptr := tr.pointerSize(int(tr.Depth))
		base := int(tr.Root) + 6 + len(n.records)*int(tr.RecordSize)
		for i := 1; i < len(n.children); i++ {
			copy(bad[base+i*ptr:], bad[base:base+ptr])
		}
		reseal(bad, int(tr.Root), 6+len(n.records)*int(tr.RecordSize)+len(n.children)*ptr+4)
		err = Walk(ctx, reader(t, bad), addr, func([]byte) error { return nil })
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Walk over a loop: %v, want ErrCorrupt", err)
		}
		return
	}
	t.Fatal("no tree with internal nodes")
}

func TestWalkStopsOnError(t *testing.T) {
	ctx := context.Background()
	data := readFile(t, "../layout/testdata/indexes.h5")
	r := reader(t, data)
	stop := errors.New("stop")
	n := 0
	err := Walk(ctx, r, headers(data)[0], func([]byte) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Fatalf("Walk = %v after %d records", err, n)
	}
}

func FuzzWalk(f *testing.F) {
	data := readFile(f, "../layout/testdata/indexes.h5")
	for _, addr := range headers(data) {
		f.Add(uint32(addr), uint32(addr), data[addr:addr+64])
	}
	f.Fuzz(func(t *testing.T, addr, patchAt uint32, patch []byte) {
		if int(patchAt) >= len(data) {
			return
		}
		bad := bytes.Clone(data)
		copy(bad[patchAt:], patch)
		// Checksums would reject nearly every mutation: reseal the
		// header so the fuzzer reaches the structure checks.
		if int(addr)+headerSize(sizes8) <= len(bad) {
			reseal(bad, int(addr), headerSize(sizes8))
		}
		r := reader(t, bad)
		tr, err := Open(context.Background(), r, uint64(addr))
		if err != nil {
			return
		}
		n := uint64(0)
		if err := tr.Walk(context.Background(), func([]byte) error { n++; return nil }); err == nil && n != tr.TotalRecords {
			t.Fatalf("Walk succeeded with %d records, header says %d", n, tr.TotalRecords)
		}
	})
}

func BenchmarkWalk(b *testing.B) {
	ctx := context.Background()
	data := readFile(b, "../layout/testdata/indexes.h5")
	r := reader(b, data)
	var tr *Tree
	for _, addr := range headers(data) {
		if t, err := Open(ctx, r, addr); err == nil && (tr == nil || t.TotalRecords > tr.TotalRecords) {
			tr = t
		}
	}
	b.ReportAllocs()
	b.SetBytes(int64(tr.TotalRecords) * int64(tr.RecordSize))
	for b.Loop() {
		if err := tr.Walk(ctx, func([]byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
