package main

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http/httptest"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/h5gen"
	"github.com/lindigo/lindi/internal/netsim"
	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/selection"
)

// benchCase is one read of the benchmark: a dataset and a selection.
type benchCase struct {
	name, dataset, sel string
}

var benchCases = []benchCase{
	{"1200 small adjacent chunks", "small", "..."},
	{"full read, compressed chunks", "zlib", "..."},
	{"strided, every chunk", "zlib", "::7, ::3"},
	{"200 non-adjacent chunks", "scattered", "::2560"},
	{"a few rows of large raw chunks", "raw", "150000:150010, :"},
	{"a column of large raw chunks", "raw", ":, 3"},
}

// nwbCase is one operation on the NWB-shaped HDF5 file of the benchmark.
type nwbCase struct {
	name string
	run  func(ctx context.Context, f *h5.File) error
}

var nwbCases = []nwbCase{
	{"one small dataset deep in the tree", func(ctx context.Context, f *h5.File) error {
		d, err := f.Dataset(ctx, "acquisition/series_050/channels")
		if err == nil {
			_, err = d.Read(ctx, nil)
		}
		return err
	}},
	{"a gzip series, 60 chunks", func(ctx context.Context, f *h5.File) error {
		d, err := f.Dataset(ctx, "acquisition/series_050/data")
		if err == nil {
			_, err = d.Read(ctx, nil)
		}
		return err
	}},
	{"ls of the root", func(ctx context.Context, f *h5.File) error {
		return f.Root().Walk(ctx, func(string, h5.Link, h5.Object, error) error { return h5.SkipGroup })
	}},
	{"ls -r", func(ctx context.Context, f *h5.File) error {
		return f.Root().Walk(ctx, func(_ string, _ h5.Link, _ h5.Object, err error) error { return err })
	}},
}

// Round trips no reader avoids, which the floor adds to a read at zero
// latency: a LINDI JSON read fetches the document, then the chunks; an HDF5
// read its metadata, the chunk index, then the chunks.
const (
	lindiTrips = 2
	hdf5Trips  = 3
)

// benchRuns is how many times each measurement is made; the median is kept.
const benchRuns = 3

// cmdReads measures parallel remote reads of LINDI JSON and HDF5 files
// against a simulated network, each against its floor.
func cmdReads(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("reads", flag.ContinueOnError)
	latency := fs.Duration("latency", 20*time.Millisecond, "first-byte latency of every request")
	bandwidth := fs.Float64("bandwidth", 100, "bandwidth of each response in MB/s (0: unlimited)")
	concurrency := fs.Int("concurrency", fetch.DefaultConcurrency, "requests in flight")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *latency < 0 || *bandwidth < 0 || *concurrency <= 0 {
		return usagef("reads takes only flags: -latency D -bandwidth MB/s -concurrency N")
	}
	files, err := benchFiles()
	if err != nil {
		return err
	}
	if files["/nwb.h5"], err = h5gen.NWB(120, 6000); err != nil {
		return err
	}
	// The floor of each read: the same read with no latency.
	fast, slow, err := newBenchServers(files, *latency, *bandwidth)
	if err != nil {
		return err
	}
	defer fast.close()
	defer slow.close()

	fmt.Fprintf(stdout, "latency %v, bandwidth %g MB/s per response, %d cores, concurrency %d, median of %d runs\n",
		*latency, *bandwidth, runtime.GOMAXPROCS(0), *concurrency, benchRuns)
	fmt.Fprintf(stdout, "floor = the same open and read at zero latency + %d round trips (LINDI JSON) or %d (HDF5); CPU÷wall at zero latency\n\n", lindiTrips, hdf5Trips)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "read\tfile\trequests\tMB fetched\ttime\tfloor\tvs floor\tCPU÷wall\t")
	row := func(name, file string, trips int, run func(context.Context, *h5.File) error) error {
		op := benchOp{file: file, concurrency: *concurrency, run: run}
		cpu, err := fast.measure(ctx, op)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		got, err := slow.measure(ctx, op)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		floor := cpu.wall + time.Duration(trips)*(*latency)
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%s\t%s\t%.2f×\t%.2f\t\n", name, file[1:], got.requests, float64(got.bytes)/1e6,
			round(got.wall), round(floor), float64(got.wall)/float64(floor), float64(cpu.cpu)/float64(cpu.wall))
		return nil
	}
	for _, c := range benchCases {
		sel, err := selection.Parse(c.sel)
		if err != nil {
			return err
		}
		err = row(c.name, "/bench.lindi.json", lindiTrips, func(ctx context.Context, f *h5.File) error {
			d, err := f.Dataset(ctx, c.dataset)
			if err == nil {
				_, err = d.Read(ctx, sel)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, c := range nwbCases {
		if err := row(c.name, "/nwb.h5", hdf5Trips, c.run); err != nil {
			return err
		}
	}
	return tw.Flush()
}

func round(d time.Duration) string {
	if d < 10*time.Millisecond {
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// benchServer serves the benchmark files through the network simulator.
type benchServer struct {
	sim *netsim.Handler
	srv *httptest.Server
}

func newBenchServer(files map[string][]byte, cfg netsim.Config) (*benchServer, error) {
	sim, err := netsim.New(netsim.Blobs(files), cfg)
	if err != nil {
		return nil, err
	}
	return &benchServer{sim: sim, srv: httptest.NewServer(sim)}, nil
}

func (s *benchServer) close() { s.srv.Close() }

// newBenchServers serves files twice, each response at bandwidth MB/s (0:
// unlimited): fast with no latency (the floor of a read: the same read at
// zero latency), slow with latency before every response.
func newBenchServers(files map[string][]byte, latency time.Duration, bandwidth float64) (fast, slow *benchServer, err error) {
	if fast, err = newBenchServer(files, netsim.Config{Bandwidth: int64(bandwidth * 1e6)}); err != nil {
		return nil, nil, err
	}
	if slow, err = newBenchServer(files, netsim.Config{Latency: latency, Bandwidth: int64(bandwidth * 1e6)}); err != nil {
		fast.close()
		return nil, nil, err
	}
	return fast, slow, nil
}

// benchOp is an operation on a freshly opened benchmark file.
type benchOp struct {
	file        string
	concurrency int
	run         func(context.Context, *h5.File) error
}

// measured is the cost of one operation, open included.
type measured struct {
	wall, cpu       time.Duration // cpu: the process's CPU time, server included
	requests, bytes int64
}

// measure opens op's file afresh, with no cache, and runs op, benchRuns
// times; it returns the run of median wall time.
func (s *benchServer) measure(ctx context.Context, op benchOp) (measured, error) {
	runs := make([]measured, benchRuns)
	for i := range runs {
		before, cpu0 := s.sim.Stats(), cpuTime()
		start := time.Now()
		f, err := h5.Open(ctx, s.srv.URL+op.file, h5.WithConcurrency(op.concurrency), h5.WithCacheBytes(0))
		if err != nil {
			return measured{}, err
		}
		err = op.run(ctx, f)
		f.Close()
		if err != nil {
			return measured{}, err
		}
		after := s.sim.Stats()
		runs[i] = measured{wall: time.Since(start), cpu: cpuTime() - cpu0,
			requests: after.Requests - before.Requests, bytes: after.Bytes - before.Bytes}
	}
	slices.SortFunc(runs, func(a, b measured) int { return cmp.Compare(a.wall, b.wall) })
	return runs[len(runs)/2], nil
}

// benchFiles builds the benchmark's LINDI JSON file and the blobs its refs point at.
func benchFiles() (map[string][]byte, error) {
	refs := map[string]any{".zgroup": map[string]int{"zarr_format": 2}}
	files := map[string][]byte{}
	add := func(name, dtype string, shape, chunks []int, compressed bool, gap int, elem func(i int) float64) error {
		meta := map[string]any{"zarr_format": 2, "shape": shape, "chunks": chunks, "dtype": dtype,
			"compressor": nil, "filters": nil, "fill_value": 0, "order": "C"}
		if compressed {
			meta["compressor"] = map[string]any{"id": "zlib", "level": 1}
		}
		refs[name+"/.zarray"] = meta
		var blob bytes.Buffer
		rows, cols := chunks[0], 1
		if len(shape) == 2 {
			cols = shape[1]
		}
		size := 8
		if dtype == "<i2" {
			size = 2
		}
		for c := 0; c*rows < shape[0]; c++ {
			raw := make([]byte, rows*cols*size)
			for i := range rows * cols {
				v := elem(c*rows*cols + i)
				if size == 2 {
					binary.LittleEndian.PutUint16(raw[2*i:], uint16(int16(v)))
				} else {
					binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
				}
			}
			if compressed {
				var z bytes.Buffer
				w, _ := zlib.NewWriterLevel(&z, 1)
				w.Write(raw)
				w.Close()
				raw = z.Bytes()
			}
			key := fmt.Sprintf("%s/%d", name, c)
			if len(shape) == 2 {
				key += ".0"
			}
			refs[key] = []any{"./" + name + ".bin", blob.Len(), len(raw)}
			blob.Write(raw)
			blob.Write(make([]byte, gap))
		}
		files["/"+name+".bin"] = blob.Bytes()
		return nil
	}
	noisy := func(i int) float64 { return math.Sin(float64(i)/300) + float64(i*7919%1000)/1e4 }
	steps := []error{
		add("small", "<f8", []int{1200 * 128}, []int{128}, false, 0, noisy),        // 1 KiB chunks, back to back
		add("zlib", "<f8", []int{8192, 256}, []int{256, 256}, true, 0, noisy),      // 32 chunks of 512 KiB
		add("scattered", "<f8", []int{1000 * 512}, []int{512}, true, 1<<20, noisy), // 1 MiB between chunks
		add("raw", "<i2", []int{1_200_000, 64}, []int{100_000, 64}, false, 0, func(i int) float64 { return float64(i % 30000) }),
	}
	for _, err := range steps {
		if err != nil {
			return nil, err
		}
	}
	doc, err := json.Marshal(map[string]any{"version": 1, "refs": refs})
	if err != nil {
		return nil, err
	}
	files["/bench.lindi.json"] = doc
	return files, nil
}
