package main

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lindigo/lindi/codecs/blosc"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/selection"
)

// The zarrshadow benchmark: a reference store of an NWB-shaped file whose
// ElectricalSeries has 2,000,000 chunks (a grid of 2000 × 1000 chunks of
// 4 samples × 1 channel, int16, uncompressed, one in every 997 never
// written), located by a chunk index blocked by 65,536 entries as zarrshadow
// writes it (31 blocks, blosc zstd with byte shuffle). The targets:
// the store opens in ≤ 50 ms reading ≤ 1 MB (its refs.json, 0.8 MB with
// 400 small series inline beside the large one), and a selection of 100 chunks
// costs ≤ 3 round trips (the index metadata, its blocks, the chunks).
const (
	shadowRows, shadowCols = 2000, 1000 // the chunk grid
	shadowChunkRows        = 4
	shadowBlock            = 65536
	shadowMissingEvery     = 997
	shadowSeries           = "acquisition/ElectricalSeries/data"
	shadowSmall            = 400 // small series besides it, inline
)

// shadowValue is the sample at (row, channel): what a read must give.
func shadowValue(r, c int) int16 { return int16((r*7 + c*13) % 30011) }

// shadowMissing reports whether the chunk at grid (i, j) was never written.
func shadowMissing(i, j int) bool { return (i*shadowCols+j)%shadowMissingEvery == 0 }

// shadowCases are boxes [r0, r1) × [c0, c1) of 100 chunks each.
var shadowCases = []struct {
	name           string
	r0, r1, c0, c1 int
}{
	{"in one index block", 4000, 4004, 100, 200},
	{"across 2 index blocks", 0, 400, 5, 6},
}

func cmdZarrshadow(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("zarrshadow", flag.ContinueOnError)
	latency := fs.Duration("latency", 20*time.Millisecond, "first-byte latency of every request")
	bandwidth := fs.Float64("bandwidth", 100, "bandwidth of each response in MB/s (0: unlimited)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *latency <= 0 || *bandwidth < 0 {
		return usagef("zarrshadow takes only flags: -latency D (> 0) -bandwidth MB/s")
	}
	files, err := shadowStore()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "lindi-bench-zarrshadow-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	indexBytes, blocks := 0, 0
	for name, b := range files {
		if strings.HasPrefix(name, "/big.zindi/index/") {
			indexBytes += len(b)
			blocks++
		}
	}
	fmt.Fprintf(stdout, "zarrshadow reference store: %s of %d × %d chunks (%d), refs.json %.1f KB, chunk index %d files, %.2f MB\n",
		shadowSeries, shadowRows, shadowCols, shadowRows*shadowCols, float64(len(files["/big.zindi/refs.json"]))/1e3, blocks, float64(indexBytes)/1e6)
	fmt.Fprintf(stdout, "%d cores, median of %d runs; remote: latency %v, bandwidth %g MB/s per response; trips = (time − time at zero latency) ÷ latency\n\n",
		runtime.GOMAXPROCS(0), benchRuns, *latency, *bandwidth)

	// Local: the open alone.
	local := make([]time.Duration, benchRuns)
	var localRead int64
	for i := range local {
		start := time.Now()
		f, err := h5.Open(ctx, filepath.Join(dir, "big.zindi"))
		if err != nil {
			return err
		}
		local[i] = time.Since(start)
		localRead = 0
		for _, s := range f.Stats() {
			localRead += s.Bytes
		}
		f.Close()
	}
	slices.Sort(local)
	fmt.Fprintf(stdout, "local open: %s, reading refs.json (%.3f MB) and %.3f MB more (none of the index)\n\n",
		round(local[len(local)/2]), float64(len(files["/big.zindi/refs.json"]))/1e6, float64(localRead)/1e6)

	fast, slow, err := newBenchServers(files, *latency, *bandwidth)
	if err != nil {
		return err
	}
	defer fast.close()
	defer slow.close()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "remote\trequests\tMB fetched\ttime\tat zero latency\ttrips\t")
	open := benchOp{file: "/big.zindi", concurrency: fetch.DefaultConcurrency, run: func(context.Context, *h5.File) error { return nil }}
	row := func(name string, op benchOp) (float64, error) {
		z, err := fast.measure(ctx, op)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		got, err := slow.measure(ctx, op)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
		trips := float64(got.wall-z.wall) / float64(*latency)
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%s\t%s\t%.1f\t\n", name, got.requests, float64(got.bytes)/1e6, round(got.wall), round(z.wall), trips)
		return trips, nil
	}
	openTrips, err := row("open", open)
	if err != nil {
		return err
	}
	for _, c := range shadowCases {
		op := benchOp{file: open.file, concurrency: open.concurrency, run: func(ctx context.Context, f *h5.File) error {
			return shadowCheck(ctx, f, c.r0, c.r1, c.c0, c.c1)
		}}
		trips, err := row(fmt.Sprintf("open + [%d:%d, %d:%d], 100 chunks %s", c.r0, c.r1, c.c0, c.c1, c.name), op)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "  the read alone\t\t\t\t\t%.1f\t\n", trips-openTrips)
	}
	return tw.Flush()
}

// shadowCheck reads the box [r0, r1) × [c0, c1) of the series and checks
// every value.
func shadowCheck(ctx context.Context, f *h5.File, r0, r1, c0, c1 int) error {
	d, err := f.Dataset(ctx, shadowSeries)
	if err != nil {
		return err
	}
	a, err := h5.Read[int16](ctx, d, selection.Selection{selection.Slice(r0, r1, 1), selection.Slice(c0, c1, 1)})
	if err != nil {
		return err
	}
	k := 0
	for i := r0; i < r1; i++ {
		for j := c0; j < c1; j++ {
			want := shadowValue(i, j)
			if shadowMissing(i/shadowChunkRows, j) {
				want = -1 // the fill value
			}
			if a.Data[k] != want {
				return fmt.Errorf("%s[%d, %d] = %d, want %d", shadowSeries, i, j, a.Data[k], want)
			}
			k++
		}
	}
	return nil
}

// shadowStore builds the benchmark's files: /big.zindi (refs.json and the
// chunk index) and /big.bin, the file its chunks are byte ranges of.
func shadowStore() (map[string][]byte, error) {
	files := map[string][]byte{}
	chunkBytes := shadowChunkRows * 2
	data := make([]byte, 0, shadowRows*shadowCols*chunkBytes)
	index := make([]uint64, 2*shadowRows*shadowCols)
	for i := range shadowRows {
		for j := range shadowCols {
			k := i*shadowCols + j
			if shadowMissing(i, j) {
				index[2*k], index[2*k+1] = math.MaxUint64, math.MaxUint64
				continue
			}
			index[2*k], index[2*k+1] = uint64(len(data)), uint64(chunkBytes)
			for r := range shadowChunkRows {
				data = binary.LittleEndian.AppendUint16(data, uint16(shadowValue(i*shadowChunkRows+r, j)))
			}
		}
	}
	files["/big.bin"] = data

	group := func(attrs map[string]any) string {
		b, _ := json.Marshal(map[string]any{"zarr_format": 3, "node_type": "group", "attributes": attrs})
		return string(b)
	}
	array := func(shape, chunks []int, dtype string, fill any, codecs []any, attrs map[string]any) ([]byte, error) {
		return json.Marshal(map[string]any{
			"zarr_format": 3, "node_type": "array", "shape": shape, "data_type": dtype,
			"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": chunks}},
			"chunk_key_encoding": map[string]any{"name": "default", "configuration": map[string]any{"separator": "/"}},
			"fill_value":         fill, "codecs": codecs, "attributes": attrs, "storage_transformers": []any{},
		})
	}
	le := map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}
	series, err := array([]int{shadowRows * shadowChunkRows, shadowCols}, []int{shadowChunkRows, 1}, "int16", -1, []any{le},
		map[string]any{"_DTYPE": "int16", "conversion": 1.0, "unit": "volts"})
	if err != nil {
		return nil, err
	}
	refs := map[string]any{
		"zarr.json":                                   group(map[string]any{"neurodata_type": "NWBFile", "nwb_version": "2.7.0"}),
		"acquisition/zarr.json":                       group(map[string]any{}),
		"acquisition/ElectricalSeries/zarr.json":      group(map[string]any{"neurodata_type": "ElectricalSeries"}),
		"acquisition/ElectricalSeries/data/zarr.json": string(series),
	}
	// The rest of an NWB file: small datasets with their chunks inline, as
	// zarrshadow stores them, so that refs.json is as large as the 0.8 MB
	// zarrshadow reports for its 2-million-chunk file.
	small := make([]byte, 1024)
	for i := range small {
		small[i] = byte(i * 31)
	}
	inline := "base64:" + base64.StdEncoding.EncodeToString(small)
	for k := range shadowSmall {
		p := fmt.Sprintf("processing/behavior/series%03d", k)
		refs[p+"/zarr.json"] = group(map[string]any{"neurodata_type": "TimeSeries", "description": "a small series"})
		m, err := array([]int{128}, []int{128}, "float64", 0.0, []any{le}, map[string]any{"_DTYPE": "float64", "unit": "m"})
		if err != nil {
			return nil, err
		}
		refs[p+"/data/zarr.json"] = string(m)
		refs[p+"/data/c/0"] = inline
	}
	refs["processing/zarr.json"] = group(map[string]any{})
	refs["processing/behavior/zarr.json"] = group(map[string]any{"neurodata_type": "ProcessingModule"})
	doc, err := json.Marshal(map[string]any{
		"version": 2, "refs": refs,
		"indexes": map[string]any{shadowSeries: map[string]any{"url": "../big.bin", "index": "index/" + shadowSeries}},
	})
	if err != nil {
		return nil, err
	}
	files["/big.zindi/refs.json"] = doc

	// The index: blocks of 65 rows × 1000 columns (65,000 entries), filled
	// from the last axis backward as zarrshadow's index_block_shape does.
	blockRows := max(1, shadowBlock/shadowCols)
	blosczstd := map[string]any{"name": "blosc", "configuration": map[string]any{"cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": 8, "blocksize": 0}}
	meta, err := array([]int{shadowRows, shadowCols, 2}, []int{blockRows, shadowCols, 2}, "uint64", uint64(math.MaxUint64), []any{le, blosczstd}, map[string]any{})
	if err != nil {
		return nil, err
	}
	base := "/big.zindi/index/" + shadowSeries
	files[base+"/zarr.json"] = meta
	for b := 0; b*blockRows < shadowRows; b++ {
		raw := make([]byte, blockRows*shadowCols*16)
		for k := range blockRows * shadowCols * 2 {
			v := uint64(math.MaxUint64)
			if g := b*blockRows*shadowCols*2 + k; g < len(index) {
				v = index[g]
			}
			binary.LittleEndian.PutUint64(raw[8*k:], v)
		}
		enc, err := blosc.Encode(nil, raw, blosc.Options{Compressor: "zstd", Level: 5, Shuffle: 1, TypeSize: 8})
		if err != nil {
			return nil, err
		}
		files[fmt.Sprintf("%s/c/%d/0/0", base, b)] = enc
	}
	return files, nil
}
