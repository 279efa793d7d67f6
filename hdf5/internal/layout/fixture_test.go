package layout

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// memSource serves a file's bytes from memory.
type memSource struct {
	name string
	data []byte
}

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
func (m *memSource) Name() string                        { return m.name }

var fixturePaths = map[string]string{
	"fixture.h5":        "../../../testdata/conformance/fixture.h5",
	"fixture-latest.h5": "../../../testdata/conformance/fixture-latest.h5",
	"indexes.h5":        "testdata/indexes.h5",
}

// truth is one dataset of testdata/chunks.json.gz, written by h5py.
type truth struct {
	Path     string   `json:"path"`
	Header   uint64   `json:"header"`
	Shape    []uint64 `json:"shape"`
	ElemSize uint64   `json:"elemSize"`
	Layout   string   `json:"layout"`
	Filters  []uint16 `json:"filters"`
	Chunks   []uint64 `json:"chunks"`
	Stored   [][4]any `json:"stored"`
	Addr     *uint64  `json:"addr"`
	Size     uint64   `json:"size"`
}

// storedEntries converts the h5py chunk list to entries.
func (d truth) storedEntries(t testing.TB) []Entry {
	t.Helper()
	out := make([]Entry, len(d.Stored))
	for i, s := range d.Stored {
		var coords []int
		for _, c := range s[0].([]any) {
			coords = append(coords, int(c.(float64)))
		}
		out[i] = Entry{Coords: coords, Chunk: Chunk{FilterMask: uint32(s[1].(float64)), Addr: uint64(s[2].(float64)), Size: uint64(s[3].(float64))}}
	}
	return out
}

type fixtureFile struct {
	data   []byte
	r      *fileio.Reader
	truths []truth
}

var (
	fixturesOnce sync.Once
	fixtures     map[string]*fixtureFile
	fixturesErr  error
)

func loadFixtures(t testing.TB) map[string]*fixtureFile {
	t.Helper()
	fixturesOnce.Do(func() {
		raw, err := readGzip("testdata/chunks.json.gz")
		if err != nil {
			fixturesErr = err
			return
		}
		var all map[string][]truth
		if fixturesErr = json.Unmarshal(raw, &all); fixturesErr != nil {
			return
		}
		fixtures = make(map[string]*fixtureFile)
		for name, path := range fixturePaths {
			data, err := os.ReadFile(path)
			if err != nil {
				fixturesErr = err
				return
			}
			f := &fixtureFile{data: data, truths: all[name]}
			if f.r, fixturesErr = openReader(data, name); fixturesErr != nil {
				return
			}
			fixtures[name] = f
		}
	})
	if fixturesErr != nil {
		t.Fatal(fixturesErr)
	}
	return fixtures
}

func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// openReader returns a Reader with the sizes of the file's superblock.
func openReader(data []byte, name string) (*fileio.Reader, error) {
	r, err := fileio.New(context.Background(), &memSource{name: name, data: data})
	if err != nil {
		return nil, err
	}
	s := fileio.Sizes{OffsetSize: int(data[13]), LengthSize: int(data[14])}
	if data[8] >= 2 {
		s = fileio.Sizes{OffsetSize: int(data[9]), LengthSize: int(data[10])}
	}
	return r.WithSizes(s)
}

func sortEntries(es []Entry) {
	slices.SortFunc(es, func(a, b Entry) int { return slices.Compare(a.Coords, b.Coords) })
}

// TestFixtureLayouts checks every dataset of the fixtures against h5py:
// layout class, contiguous address and size, and for chunked datasets the
// address, size and filter mask of every stored chunk through All and
// Lookup, and Lookup's "not stored" answer for every other chunk.
func TestFixtureLayouts(t *testing.T) {
	ctx := context.Background()
	for name, f := range loadFixtures(t) {
		for _, d := range f.truths {
			t.Run(name+"/"+d.Path, func(t *testing.T) {
				msgs := headerMessages(t, f.data, d.Header)
				l, err := Parse(msgs[msgLayout], f.r.Sizes())
				if err != nil {
					t.Fatalf("Parse(%s): %v", describe(msgs[msgLayout]), err)
				}
				if l.Class.String() != d.Layout {
					t.Fatalf("class %v, want %s", l.Class, d.Layout)
				}
				checkFilters(t, msgs[msgFilters], d)
				switch l.Class {
				case Contiguous:
					if d.Addr == nil {
						if !fileio.IsUndefined(l.Addr) {
							t.Errorf("Addr = %d, want undefined", l.Addr)
						}
						return
					}
					if l.Addr != *d.Addr || l.Size != d.Size {
						t.Errorf("contiguous at %d size %d, want %d size %d", l.Addr, l.Size, *d.Addr, d.Size)
					}
				case Compact:
					want := d.ElemSize
					for _, n := range d.Shape {
						want *= n
					}
					if uint64(len(l.Data)) != want {
						t.Errorf("compact data of %d bytes, want %d", len(l.Data), want)
					}
				case Chunked:
					if !slices.Equal(l.Chunk, d.Chunks) || l.ElemSize != d.ElemSize {
						t.Fatalf("chunks %v of %d bytes, want %v of %d", l.Chunk, l.ElemSize, d.Chunks, d.ElemSize)
					}
					checkChunks(t, ctx, f.r, l, maxDims(t, msgs[msgDataspace]), d)
				}
			})
		}
	}
}

func checkFilters(t *testing.T, msg []byte, d truth) {
	t.Helper()
	if msg == nil {
		if len(d.Filters) != 0 {
			t.Fatalf("no filter message, want filters %v", d.Filters)
		}
		return
	}
	fs, err := ParseFilters(msg)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint16
	for _, f := range fs {
		ids = append(ids, f.ID)
		if _, err := f.Codec(int(d.ElemSize)); err != nil {
			t.Errorf("Codec of %+v: %v", f, err)
		}
	}
	if !slices.Equal(ids, d.Filters) {
		t.Errorf("filters %v, want %v", ids, d.Filters)
	}
}

func checkChunks(t *testing.T, ctx context.Context, r *fileio.Reader, l *Layout, maxDims []uint64, d truth) {
	t.Helper()
	idx, err := l.Index(ctx, r, d.Shape, maxDims)
	if err != nil {
		t.Fatalf("Index(%+v): %v", *l, err)
	}
	t.Logf("%s index, %d chunks", l.IndexType, len(d.Stored))
	want := d.storedEntries(t)
	got, err := idx.All(ctx)
	if err != nil {
		t.Fatalf("All: %v", err)
	}
	sortEntries(want)
	sortEntries(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s index: All =\n%v\nwant\n%v", l.IndexType, head(got), head(want))
	}
	stored := make(map[string]Chunk)
	for _, e := range want {
		stored[fmt.Sprint(e.Coords)] = e.Chunk
	}
	// Every chunk of the grid: stored ones found, the others not.
	grid := make([]int, len(d.Shape))
	for i, n := range d.Shape {
		grid[i] = int(ceilDiv(n, d.Chunks[i]))
	}
	forEachCoord(grid, func(coords []int) {
		c, ok, err := idx.Lookup(ctx, coords)
		if err != nil {
			t.Fatalf("Lookup(%v): %v", coords, err)
		}
		w, stored := stored[fmt.Sprint(coords)]
		if ok != stored || c != w {
			t.Fatalf("Lookup(%v) = %+v, %v; want %+v, %v", coords, c, ok, w, stored)
		}
	})
	for _, bad := range [][]int{slices.Repeat([]int{-1}, len(grid)), grid, append(slices.Clone(grid), 0)} {
		if _, _, err := idx.Lookup(ctx, bad); err == nil {
			t.Errorf("Lookup(%v) outside the grid %v: no error", bad, grid)
		}
	}
}

func head(es []Entry) []Entry {
	if len(es) > 8 {
		return es[:8]
	}
	return es
}

// forEachCoord calls f with every coordinate vector of the grid, in
// row-major order; f must not keep the slice.
func forEachCoord(grid []int, f func([]int)) {
	for _, n := range grid {
		if n == 0 {
			return
		}
	}
	c := make([]int, len(grid))
	for {
		f(c)
		i := len(c) - 1
		for ; i >= 0; i-- {
			if c[i]++; c[i] < grid[i] {
				break
			}
			c[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// TestFixtureLindiRefs checks the v1 B-tree index of fixture.h5 against
// the chunk references LINDI wrote into fixture.lindi.json.
func TestFixtureLindiRefs(t *testing.T) {
	ctx := context.Background()
	f := loadFixtures(t)["fixture.h5"]
	raw, err := os.ReadFile("../../../testdata/conformance/fixture.lindi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Refs map[string]json.RawMessage `json:"refs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range f.truths {
		if d.Layout != "chunked" {
			continue
		}
		msgs := headerMessages(t, f.data, d.Header)
		l, err := Parse(msgs[msgLayout], f.r.Sizes())
		if err != nil {
			t.Fatal(err)
		}
		idx, err := l.Index(ctx, f.r, d.Shape, maxDims(t, msgs[msgDataspace]))
		if err != nil {
			t.Fatal(err)
		}
		for key, ref := range doc.Refs {
			coordText, ok := strings.CutPrefix(key, d.Path+"/")
			if !ok || strings.Contains(coordText, "/") || strings.HasPrefix(coordText, ".") {
				continue
			}
			var tuple []any
			if json.Unmarshal(ref, &tuple) != nil || len(tuple) != 3 {
				continue // inline chunk
			}
			var coords []int
			for _, s := range strings.Split(coordText, ".") {
				n, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("ref %s: %v", key, err)
				}
				coords = append(coords, n)
			}
			c, ok, err := idx.Lookup(ctx, coords)
			if err != nil || !ok {
				t.Fatalf("Lookup %s: %v, %v", key, ok, err)
			}
			if c.Addr != uint64(tuple[1].(float64)) || c.Size != uint64(tuple[2].(float64)) {
				t.Errorf("%s: chunk at %d size %d, LINDI says %v", key, c.Addr, c.Size, tuple)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d chunk refs checked", checked)
	}
}

// TestFixtureLatestSameData reads every chunk of fixture-latest.h5
// (fixed array, extensible array and v2 B-tree indexes), inflates it when
// deflated, and compares it with the same chunk of fixture.h5 (v1
// B-trees).
func TestFixtureLatestSameData(t *testing.T) {
	ctx := context.Background()
	fx := loadFixtures(t)
	old, latest := fx["fixture.h5"], fx["fixture-latest.h5"]
	byPath := make(map[string]truth)
	for _, d := range old.truths {
		byPath[d.Path] = d
	}
	compared := 0
	for _, d := range latest.truths {
		if d.Layout != "chunked" {
			continue
		}
		t.Run(d.Path, func(t *testing.T) {
			oldIdx := openIndex(t, old, byPath[d.Path])
			newIdx := openIndex(t, latest, d)
			entries, err := newIdx.All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				oc, ok, err := oldIdx.Lookup(ctx, e.Coords)
				if err != nil || !ok {
					t.Fatalf("chunk %v missing from fixture.h5: %v", e.Coords, err)
				}
				a := chunkData(t, latest, e.Chunk, d.Filters)
				b := chunkData(t, old, oc, d.Filters)
				if !bytes.Equal(a, b) {
					t.Fatalf("chunk %v differs", e.Coords)
				}
				compared++
			}
		})
	}
	if compared < 100 {
		t.Fatalf("only %d chunks compared", compared)
	}
}

func openIndex(t *testing.T, f *fixtureFile, d truth) Index {
	t.Helper()
	msgs := headerMessages(t, f.data, d.Header)
	l, err := Parse(msgs[msgLayout], f.r.Sizes())
	if err != nil {
		t.Fatal(err)
	}
	idx, err := l.Index(context.Background(), f.r, d.Shape, maxDims(t, msgs[msgDataspace]))
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// chunkData returns a chunk's bytes, inflated when the pipeline has a
// deflate filter that was applied to it.
func chunkData(t *testing.T, f *fixtureFile, c Chunk, filters []uint16) []byte {
	t.Helper()
	b := f.data[c.Addr : c.Addr+c.Size]
	for i, id := range filters {
		if id == FilterDeflate && c.FilterMask&(1<<i) == 0 {
			zr, err := zlib.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b
}
