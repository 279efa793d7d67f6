package hdf5

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/hdf5/internal/layout"
)

// readLocated assembles a whole dataset from the chunks its Locator finds,
// as a reader of any layout would: stored bytes from Data or the file,
// decoded by the chunk's pipeline, short raw chunks zero-padded.
func readLocated(ctx context.Context, ds *Dataset, file []byte) ([]byte, error) {
	loc, err := ds.Locator(ctx)
	if err != nil {
		return nil, err
	}
	size := int(ds.Datatype().Size)
	shape, grid := make([]uint64, len(loc.shape)), make([]uint64, len(loc.grid))
	chunkBytes := size
	for i := range shape {
		shape[i], grid[i] = uint64(loc.shape[i]), uint64(loc.grid[i])
		chunkBytes *= loc.grid[i]
	}
	out := ds.fillBytes(ds.Space().NumElements() * uint64(size))
	err = eachChunk(loc.counts, func(coords []int) error {
		ch, err := loc.Locate(ctx, coords)
		if err != nil || ch.Missing {
			return err
		}
		stored := ch.Data
		if stored == nil {
			stored = file[ch.Off : ch.Off+ch.Len]
		}
		data := make([]byte, chunkBytes)
		switch {
		case ch.Pipeline != nil:
			if data, err = ch.Pipeline.Decode(nil, stored, chunkBytes); err != nil {
				return err
			}
		case len(stored) > chunkBytes || len(stored) < chunkBytes && !loc.PadShort():
			return errors.New("raw chunk of the wrong size")
		default:
			copy(data, stored)
		}
		scatter(out, data, shape, grid, coords, size)
		return nil
	})
	return out, err
}

// eachChunk calls fn with the coordinates of every chunk of a grid with
// counts chunks per dimension, in C order.
func eachChunk(counts []int, fn func([]int) error) error {
	for _, n := range counts {
		if n == 0 {
			return nil
		}
	}
	coords := make([]int, len(counts))
	for {
		if err := fn(coords); err != nil {
			return err
		}
		d := len(coords) - 1
		for ; d >= 0; d-- {
			if coords[d]++; coords[d] < counts[d] {
				break
			}
			coords[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}

// TestLocatorValues reads every dataset a whole-dataset case covers, of
// every layout, through its Locator and compares with the expected values.
func TestLocatorValues(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		data := readFixture(t, name)
		f := openBytes(t, name, data)
		layouts := map[Layout]int{}
		for _, c := range wholeCases(t, name) {
			ds, err := f.Dataset(ctx, c.Dataset)
			if err != nil {
				t.Fatal(err)
			}
			variants := []*Dataset{ds}
			if ds.Layout() == LayoutContiguous { // no fixture has compact data
				variants = append(variants, compactCopy(t, ds))
			}
			for _, ds := range variants {
				layouts[ds.Layout()]++
				t.Run(name+"/"+c.ID+"/"+c.Dataset+"/"+ds.Layout().String(), func(t *testing.T) {
					raw, err := readLocated(ctx, ds, data)
					if err != nil {
						t.Fatal(err)
					}
					got, err := f.decodeElements(ctx, ds.Datatype(), raw, int(ds.Space().NumElements()))
					if err != nil {
						t.Fatal(err)
					}
					want := readNPY(t, filepath.Join(conformance, c.Expected)).values(t)
					if !sameElements(got, want) {
						t.Errorf("values differ from %s", c.Expected)
					}
				})
			}
		}
		if len(layouts) != 3 {
			t.Errorf("%s: datasets by layout %v, want all three", name, layouts)
		}
	}
}

// compactCopy returns ds, a contiguous dataset, as if its data were stored
// compact in its object header.
func compactCopy(t *testing.T, ds *Dataset) *Dataset {
	t.Helper()
	raw, err := ds.ReadRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := *ds
	c.loc = new(locatorMemo)
	c.layout = &layout.Layout{Version: 3, Class: layout.Compact, Data: raw, Addr: ^uint64(0)}
	return &c
}

// TestLocatorGrid checks the grid each layout is read in.
func TestLocatorGrid(t *testing.T) {
	ctx := context.Background()
	f := openBytes(t, "fixture.h5", readFixture(t, "fixture.h5"))
	tests := []struct {
		path     string
		compact  bool
		layout   Layout
		grid     []int
		padShort bool
	}{
		{"acquisition/ElectricalSeries/data", false, LayoutChunked, []int{689, 24}, false},
		{"misc/contiguous_f8", false, LayoutContiguous, []int{922, 10}, true},
		{"misc/scalar_int", false, LayoutContiguous, []int{1}, true},
		{"misc/empty_1d", false, LayoutContiguous, []int{1}, true},
		{"misc/contiguous_f8", true, LayoutCompact, []int{922, 10}, true},
		{"misc/scalar_int", true, LayoutCompact, []int{1}, true},
		{"misc/empty_1d", true, LayoutCompact, []int{1}, true},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			ds, loc := locatorOf(t, f, tc.path, tc.compact)
			if loc.Layout() != tc.layout || !reflect.DeepEqual(loc.Grid(), tc.grid) || loc.PadShort() != tc.padShort {
				t.Errorf("layout %s grid %v padShort %v; want %s %v %v", loc.Layout(), loc.Grid(), loc.PadShort(), tc.layout, tc.grid, tc.padShort)
			}
			if again, _ := ds.Locator(ctx); again != loc {
				t.Error("second Locator call made a new Locator")
			}
		})
	}
}

// TestLocatorVirtualChunks cuts a large contiguous dataset into chunks of
// whole rows of about VirtualChunkBytes, the last one short.
func TestLocatorVirtualChunks(t *testing.T) {
	ctx := context.Background()
	const n = 3000 * 1000 // 3 MB of 1-byte elements at address 0
	f := openBytes(t, "big", append(readFixture(t, "fixture.h5"), make([]byte, n)...))
	ds, err := f.Dataset(ctx, "misc/bool")
	if err != nil {
		t.Fatal(err)
	}
	big := *ds
	big.loc = new(locatorMemo)
	big.space.Dims = []uint64{3000, 1000}
	lay := *ds.layout
	lay.Addr, lay.Size = 0, n
	big.layout = &lay
	loc, err := big.Locator(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{VirtualChunkBytes / 1000, 1000}; !reflect.DeepEqual(loc.Grid(), want) {
		t.Fatalf("grid %v, want %v", loc.Grid(), want)
	}
	last, err := loc.Locate(ctx, []int{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(n - 2*1048*1000); last.Off != 2*1048*1000 || last.Len != want {
		t.Errorf("last chunk at %d+%d, want %d+%d", last.Off, last.Len, 2*1048*1000, want)
	}
	if _, err := loc.Locate(ctx, []int{3, 0}); err == nil {
		t.Error("chunk past the grid located")
	}
}

// TestLocatorEdgeChunks sets FlagNoFilterEdgeChunks on a filtered dataset:
// chunks past the shape then decode with an empty pipeline, the others
// with the full one.
func TestLocatorEdgeChunks(t *testing.T) {
	ctx := context.Background()
	f := openBytes(t, "fixture.h5", readFixture(t, "fixture.h5"))
	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data") // 5946 rows in chunks of 689
	if err != nil {
		t.Fatal(err)
	}
	edge := *ds
	edge.loc = new(locatorMemo)
	lay := *ds.layout
	lay.Flags |= layout.FlagNoFilterEdgeChunks
	edge.layout = &lay
	loc, err := edge.Locator(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		coords []int
		ids    []string
	}{
		{[]int{0, 0}, []string{"shuffle", "zlib"}},
		{[]int{8, 0}, nil},
	} {
		ch, err := loc.Locate(ctx, tc.coords)
		if err != nil {
			t.Fatal(err)
		}
		if ids := ch.Pipeline.IDs(); !reflect.DeepEqual(ids, tc.ids) {
			t.Errorf("chunk %v: pipeline %v, want %v", tc.coords, ids, tc.ids)
		}
	}
}

// TestPipelinesMask builds the pipeline of a chunk that skipped filters.
func TestPipelinesMask(t *testing.T) {
	p := newPipelines(codecs.Builtin(), []layout.Filter{{ID: layout.FilterShuffle}, {ID: layout.FilterDeflate}}, 4)
	for _, tc := range []struct {
		mask uint32
		ids  []string
	}{
		{0, []string{"shuffle", "zlib"}},
		{1, []string{"zlib"}},
		{2, []string{"shuffle"}},
		{2 | 1<<7, []string{"shuffle"}}, // bits past the last filter are ignored
		{layout.AllFiltersSkipped, nil},
	} {
		pipe, err := p.get(tc.mask)
		if err != nil {
			t.Fatal(err)
		}
		if ids := pipe.IDs(); !reflect.DeepEqual(ids, tc.ids) {
			t.Errorf("mask %#x: %v, want %v", tc.mask, ids, tc.ids)
		}
	}
	bad := newPipelines(codecs.Builtin(), []layout.Filter{{ID: layout.FilterSzip}}, 4)
	if _, err := bad.get(0); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "szip") {
		t.Errorf("szip: %v", err)
	}
	if _, err := bad.get(1); err != nil {
		t.Errorf("szip skipped: %v", err)
	}
}

// TestLocatorBadCoords asks for chunks outside the grid.
func TestLocatorBadCoords(t *testing.T) {
	ctx := context.Background()
	f := openBytes(t, "fixture.h5", readFixture(t, "fixture.h5"))
	for _, tc := range []struct {
		path    string
		compact bool
	}{{"acquisition/ElectricalSeries/data", false}, {"misc/bool", false}, {"misc/scalar_int", false}, {"misc/bool", true}} {
		_, loc := locatorOf(t, f, tc.path, tc.compact)
		for _, c := range [][]int{nil, {-1, 0}, {100, 0}, {0, 0, 0}, {-1}, {9}} {
			if _, err := loc.Locate(ctx, c); err == nil {
				t.Errorf("%s (compact %v): chunk %v located", tc.path, tc.compact, c)
			}
		}
	}
}

// TestLocatorConcurrent makes and uses one Locator from 32 goroutines at
// once, as the engine does; run with -race.
func TestLocatorConcurrent(t *testing.T) {
	ctx := context.Background()
	f := openBytes(t, "fixture-latest.h5", readFixture(t, "fixture-latest.h5"))
	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([][]Chunk, 32)
	for g := range results {
		wg.Go(func() {
			loc, err := ds.Locator(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			_ = eachChunk(loc.counts, func(c []int) error {
				ch, err := loc.Locate(ctx, c)
				if err != nil {
					t.Error(err)
				}
				results[g] = append(results[g], ch)
				return err
			})
		})
	}
	wg.Wait()
	for g := range results[1:] {
		if !reflect.DeepEqual(results[g+1], results[0]) {
			t.Fatalf("goroutine %d located other chunks", g+1)
		}
	}
}

// TestReadRawShortCompact zero-pads compact data shorter than the dataset,
// the rule the Locator gives every reader.
func TestReadRawShortCompact(t *testing.T) {
	ctx := context.Background()
	f := openBytes(t, "fixture.h5", readFixture(t, "fixture.h5"))
	ds, err := f.Dataset(ctx, "misc/u8")
	if err != nil {
		t.Fatal(err)
	}
	short := compactCopy(t, ds)
	full := short.layout.Data
	short.layout.Data = full[:3]
	raw, err := short.ReadRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(bytes.Clone(full[:3]), make([]byte, len(full)-3)...); !bytes.Equal(raw, want) {
		t.Errorf("raw % x, want % x", raw, want)
	}
}

// locatorOf returns the dataset at path in f, as a compact copy when
// compact is set, and its Locator.
func locatorOf(t *testing.T, f *File, path string, compact bool) (*Dataset, *Locator) {
	t.Helper()
	ctx := context.Background()
	ds, err := f.Dataset(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if compact {
		ds = compactCopy(t, ds)
	}
	loc, err := ds.Locator(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ds, loc
}
