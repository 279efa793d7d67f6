package layout

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// dataset returns the layout message, dimensions and maximum dimensions
// of a fixture dataset.
func dataset(t testing.TB, f *fixtureFile, path string) (*Layout, []byte, []uint64, []uint64) {
	t.Helper()
	for _, d := range f.truths {
		if d.Path == path {
			msgs := headerMessages(t, f.data, d.Header)
			l, err := Parse(msgs[msgLayout], f.r.Sizes())
			if err != nil {
				t.Fatal(err)
			}
			return l, msgs[msgLayout], d.Shape, maxDims(t, msgs[msgDataspace])
		}
	}
	t.Fatalf("no dataset %s", path)
	return nil, nil, nil, nil
}

// patched returns a Reader over a copy of data with b written at off.
func patched(t testing.TB, data []byte, off uint64, b ...byte) *fileio.Reader {
	t.Helper()
	c := bytes.Clone(data)
	copy(c[off:], b)
	r, err := openReader(c, "patched")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// resealed is patched, then recomputes the checksum of the n bytes at
// start (checksum last) so the structure checks, not the checksum, fail.
func resealed(t testing.TB, data []byte, start, n, off uint64, b ...byte) *fileio.Reader {
	t.Helper()
	c := bytes.Clone(data)
	copy(c[off:], b)
	binary.LittleEndian.PutUint32(c[start+n-4:], fileio.Checksum(c[start:start+n-4]))
	r, err := openReader(c, "resealed")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestHostileIndexes(t *testing.T) {
	ctx := context.Background()
	fx := loadFixtures(t)
	ix, old := fx["indexes.h5"], fx["fixture.h5"]
	fa, _, faDims, faMax := dataset(t, ix, "fa_paged")
	ea, _, eaDims, eaMax := dataset(t, ix, "ea_big")
	bt, _, btDims, btMax := dataset(t, ix, "bt2_big")
	b1, _, b1Dims, b1Max := dataset(t, old, "misc/over_1000_chunks")
	im, _, imDims, imMax := dataset(t, ix, "implicit")

	faHdr := fa.Addr
	faHdrLen := uint64(4 + 4 + 8 + 8 + 4)
	faDblk := binary.LittleEndian.Uint64(ix.data[faHdr+16:])
	eaHdr := ea.Addr
	eaHdrLen := uint64(4 + 1 + 1 + 6 + 6*8 + 8 + 4)
	eaIblock := binary.LittleEndian.Uint64(ix.data[eaHdr+eaHdrLen-12:])
	b1Root := b1.Addr

	type tc struct {
		name string
		l    *Layout
		r    *fileio.Reader
		dims []uint64
		max  []uint64
		want error
	}
	tests := []tc{
		{"fa header checksum", fa, patched(t, ix.data, faHdr+8, 0xff), faDims, faMax, fileio.ErrChecksum},
		{"fa client id", fa, resealed(t, ix.data, faHdr, faHdrLen, faHdr+5, 7), faDims, faMax, ErrCorrupt},
		{"fa element size", fa, resealed(t, ix.data, faHdr, faHdrLen, faHdr+6, 3), faDims, faMax, ErrCorrupt},
		{"fa too few elements", fa, resealed(t, ix.data, faHdr, faHdrLen, faHdr+8, 1, 0, 0, 0, 0, 0, 0, 0), faDims, faMax, ErrCorrupt},
		{"fa absurd elements", fa, resealed(t, ix.data, faHdr, faHdrLen, faHdr+8, 0, 0, 0, 0, 0, 0, 0, 1), faDims, faMax, ErrCorrupt},
		{"fa data block checksum", fa, patched(t, ix.data, faDblk+14, 0x55), faDims, faMax, fileio.ErrChecksum},
		{"fa page checksum", fa, patched(t, ix.data, faDblk+200, 0x55), faDims, faMax, fileio.ErrChecksum},
		{"ea header checksum", ea, patched(t, ix.data, eaHdr+20, 0xff), eaDims, eaMax, fileio.ErrChecksum},
		{"ea absurd max bits", ea, resealed(t, ix.data, eaHdr, eaHdrLen, eaHdr+7, 200), eaDims, eaMax, ErrCorrupt},
		{"ea min elements", ea, resealed(t, ix.data, eaHdr, eaHdrLen, eaHdr+9, 3), eaDims, eaMax, ErrCorrupt},
		{"ea max index", ea, resealed(t, ix.data, eaHdr, eaHdrLen, eaHdr+12+4*8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), eaDims, eaMax, ErrCorrupt},
		{"ea index block checksum", ea, patched(t, ix.data, eaIblock+20, 0x55), eaDims, eaMax, fileio.ErrChecksum},
		{"ea index block past EOF", ea, resealed(t, ix.data, eaHdr, eaHdrLen, eaHdr+eaHdrLen-12, 0, 0, 0, 0, 0, 0, 0, 1), eaDims, eaMax, fileio.ErrOutOfRange},
		{"bt2 header", bt, patched(t, ix.data, bt.Addr+8, 0xff), btDims, btMax, fileio.ErrChecksum},
		{"v1 B-tree signature", b1, patched(t, old.data, b1Root, 'X'), b1Dims, b1Max, fileio.ErrSignature},
		{"v1 B-tree node type", b1, patched(t, old.data, b1Root+4, 0), b1Dims, b1Max, ErrCorrupt},
		{"v1 B-tree empty node", b1, patched(t, old.data, b1Root+6, 0, 0), b1Dims, b1Max, ErrCorrupt},
		// The root's first child pointer aimed back at the root: the
		// level does not decrease.
		{"v1 B-tree loop", b1, patched(t, old.data, b1Root+24+8+3*8, le64(b1Root)...), b1Dims, b1Max, ErrCorrupt},
		{"implicit past EOF", im, old.r, imDims, imMax, nil},
	}
	for _, tt := range tests[:len(tests)-1] {
		t.Run(tt.name, func(t *testing.T) {
			err := openAndWalk(ctx, tt.l, tt.r, tt.dims, tt.max)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("implicit past EOF", func(t *testing.T) {
		l := *im
		l.Addr = uint64(len(ix.data)) - 10
		if _, err := l.Index(ctx, ix.r, imDims, imMax); !errors.Is(err, fileio.ErrOutOfRange) {
			t.Fatalf("err = %v, want ErrOutOfRange", err)
		}
	})
	t.Run("dims mismatch", func(t *testing.T) {
		if _, err := fa.Index(ctx, ix.r, []uint64{1, 2}, nil); err == nil {
			t.Fatal("no error for 2 dims on a 1-d layout")
		}
		if _, err := fa.Index(ctx, ix.r, []uint64{3000}, []uint64{10}); err == nil {
			t.Fatal("no error for maxDims < dims")
		}
	})
	t.Run("not chunked", func(t *testing.T) {
		l := &Layout{Class: Contiguous}
		if _, err := l.Index(ctx, ix.r, []uint64{1}, nil); err == nil {
			t.Fatal("contiguous layout gave an index")
		}
	})
}

func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// openAndWalk opens an index, lists it and looks up its first chunks.
func openAndWalk(ctx context.Context, l *Layout, r *fileio.Reader, dims, maxDims []uint64) error {
	idx, err := l.Index(ctx, r, dims, maxDims)
	if err != nil {
		return err
	}
	if _, err := idx.All(ctx); err != nil {
		return err
	}
	coords := make([]int, len(dims))
	for i := range 16 {
		coords[len(coords)-1] = i
		if _, _, err := idx.Lookup(ctx, coords); err != nil {
			return err
		}
	}
	return nil
}

// TestConcurrentLookups looks up every chunk of each index type from
// several goroutines at once (run with -race).
func TestConcurrentLookups(t *testing.T) {
	ctx := context.Background()
	fx := loadFixtures(t)
	for _, c := range []struct{ file, path string }{
		{"indexes.h5", "fa_paged"}, {"indexes.h5", "ea_big"}, {"indexes.h5", "bt2_big"},
		{"fixture.h5", "misc/over_1000_chunks"},
	} {
		t.Run(c.path, func(t *testing.T) {
			f := fx[c.file]
			l, _, dims, maxDims := dataset(t, f, c.path)
			idx, err := l.Index(ctx, f.r, dims, maxDims)
			if err != nil {
				t.Fatal(err)
			}
			all, err := idx.All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for g := range 4 {
				wg.Go(func() {
					for i := g; i < len(all); i += 4 {
						got, ok, err := idx.Lookup(ctx, all[i].Coords)
						if err != nil || !ok || got != all[i].Chunk {
							errs <- errors.New("lookup disagrees with All")
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
		})
	}
}

// FuzzParse checks that Parse never panics and that what it accepts is
// consistent.
func FuzzParse(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		for _, d := range fx.truths {
			f.Add(headerMessages(f, fx.data, d.Header)[msgLayout])
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Parse(b, sizes8)
		if err != nil {
			return
		}
		if l.Class == Chunked {
			if len(l.Chunk) == 0 || slices.Contains(l.Chunk, 0) || l.ElemSize == 0 {
				t.Fatalf("accepted chunk shape %v of %d bytes", l.Chunk, l.ElemSize)
			}
		}
	})
}

func FuzzParseFilters(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		for _, d := range fx.truths {
			if m := headerMessages(f, fx.data, d.Header)[msgFilters]; m != nil {
				f.Add(m)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, err := ParseFilters(b)
		if err != nil {
			return
		}
		for _, flt := range fs {
			flt.Codec(4) // must not panic
		}
	})
}

// FuzzIndex mutates a chunk index of indexes.h5 (or the layout message
// pointing at it) and reads the whole index.
func FuzzIndex(f *testing.F) {
	ix := loadFixtures(f)["indexes.h5"]
	for _, d := range ix.truths {
		if d.Layout != "chunked" {
			continue
		}
		m := headerMessages(f, ix.data, d.Header)
		l, err := Parse(m[msgLayout], ix.r.Sizes())
		if err != nil || fileio.IsUndefined(l.Addr) {
			continue
		}
		f.Add(m[msgLayout], m[msgDataspace], uint32(l.Addr), ix.data[l.Addr:l.Addr+48])
	}
	f.Fuzz(func(t *testing.T, layoutMsg, space []byte, at uint32, patch []byte) {
		if int(at) >= len(ix.data) || len(space) < 8 {
			return
		}
		l, err := Parse(layoutMsg, ix.r.Sizes())
		if err != nil || l.Class != Chunked {
			return
		}
		dims, maxDims := fuzzDims(space, len(l.Chunk))
		c := bytes.Clone(ix.data)
		copy(c[at:], patch)
		// Reseal the index header so mutations reach the checks behind
		// its checksum.
		if n := headerLen[l.IndexType]; n > 0 && l.Addr < uint64(len(c)) && n <= uint64(len(c))-l.Addr {
			binary.LittleEndian.PutUint32(c[l.Addr+n-4:], fileio.Checksum(c[l.Addr:l.Addr+n-4]))
		}
		r, err := openReader(c, "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		idx, err := l.Index(ctx, r, dims, maxDims)
		if err != nil {
			return
		}
		all, err := idx.All(ctx)
		if err != nil {
			return
		}
		for _, e := range all[:min(len(all), 32)] {
			if _, _, err := idx.Lookup(ctx, e.Coords); err != nil && !errors.Is(err, fileio.ErrChecksum) {
				return
			}
		}
	})
}

// fuzzDims derives small dimensions from fuzz bytes; odd bytes make a
// dimension unlimited.
func fuzzDims(b []byte, rank int) (dims, maxDims []uint64) {
	dims = make([]uint64, rank)
	maxDims = make([]uint64, rank)
	for i := range dims {
		v := b[i%len(b)]
		dims[i] = uint64(v) * 16
		maxDims[i] = dims[i]
		if v%2 == 1 {
			maxDims[i] = fileio.Undefined
		}
	}
	return dims, maxDims
}

// headerLen is the size of the index headers with 8-byte offsets and
// lengths, checksum included.
var headerLen = map[IndexType]uint64{FixedArray: 28, ExtensibleArray: 72, BTree2: 38}

func BenchmarkLookup(b *testing.B) {
	ctx := context.Background()
	fx := loadFixtures(b)
	for _, c := range []struct{ file, path string }{
		{"fixture.h5", "misc/over_1000_chunks"},
		{"indexes.h5", "fa_paged"}, {"indexes.h5", "ea_big"}, {"indexes.h5", "bt2_big"},
		{"indexes.h5", "implicit"},
	} {
		f := fx[c.file]
		l, _, dims, maxDims := dataset(b, f, c.path)
		idx, err := l.Index(ctx, f.r, dims, maxDims)
		if err != nil {
			b.Fatal(err)
		}
		all, err := idx.All(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(l.IndexType.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(all[0].Size))
			i := 0
			for b.Loop() {
				if _, ok, err := idx.Lookup(ctx, all[i%len(all)].Coords); err != nil || !ok {
					b.Fatal(ok, err)
				}
				i += 7
			}
		})
	}
}

// BenchmarkOpenAll measures opening an index and listing it cold (new
// Reader, empty caches): the cost of enumerating a dataset's chunks.
func BenchmarkOpenAll(b *testing.B) {
	ctx := context.Background()
	fx := loadFixtures(b)
	for _, c := range []struct{ file, path string }{
		{"fixture.h5", "misc/over_1000_chunks"},
		{"fixture-latest.h5", "misc/over_1000_chunks"},
		{"indexes.h5", "ea_big"}, {"indexes.h5", "bt2_big"},
	} {
		f := fx[c.file]
		l, msg, dims, maxDims := dataset(b, f, c.path)
		b.Run(l.IndexType.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				r, err := openReader(f.data, c.file)
				if err != nil {
					b.Fatal(err)
				}
				idx, err := l.Index(ctx, r, dims, maxDims)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := idx.All(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestEdgeChunksUnfiltered sets FlagNoFilterEdgeChunks on the implicit
// dataset (20×17 in 5×5 chunks): the chunks of the last column cross the
// extent, so they must come back with every filter skipped.
func TestEdgeChunksUnfiltered(t *testing.T) {
	ctx := context.Background()
	ix := loadFixtures(t)["indexes.h5"]
	l, _, dims, maxDims := dataset(t, ix, "implicit")
	edge := *l
	edge.Flags |= FlagNoFilterEdgeChunks
	idx, err := edge.Index(ctx, ix.r, dims, maxDims)
	if err != nil {
		t.Fatal(err)
	}
	all, err := idx.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		want := uint32(0)
		if e.Coords[1] == 3 {
			want = AllFiltersSkipped
		}
		c, ok, err := idx.Lookup(ctx, e.Coords)
		if err != nil || !ok {
			t.Fatalf("Lookup(%v): %v, %v", e.Coords, ok, err)
		}
		if e.FilterMask != want || c.FilterMask != want {
			t.Errorf("chunk %v: masks %#x (All), %#x (Lookup); want %#x", e.Coords, e.FilterMask, c.FilterMask, want)
		}
	}
}
