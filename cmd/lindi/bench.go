package main

import (
	"bytes"
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
	"text/tabwriter"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/io/netsim"
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

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	latency := fs.Duration("latency", 20*time.Millisecond, "first-byte latency of every request")
	bandwidth := fs.Float64("bandwidth", 100, "bandwidth of each response in MB/s (0: unlimited)")
	concurrency := fs.Int("concurrency", fetch.DefaultConcurrency, "requests in flight for the parallel runs")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *latency < 0 || *bandwidth < 0 || *concurrency <= 0 {
		return usagef("bench takes only flags: -latency D -bandwidth MB/s -concurrency N")
	}
	files, err := benchFiles()
	if err != nil {
		return err
	}
	// The CPU part of each read: the same read with no latency and no bandwidth limit.
	fast, err := newBenchServer(files, netsim.Config{})
	if err != nil {
		return err
	}
	defer fast.close()
	slow, err := newBenchServer(files, netsim.Config{Latency: *latency, Bandwidth: int64(*bandwidth * 1e6)})
	if err != nil {
		return err
	}
	defer slow.close()

	fmt.Fprintf(stdout, "latency %v, bandwidth %g MB/s per request, %d cores, concurrency 1 vs %d\n\n",
		*latency, *bandwidth, runtime.GOMAXPROCS(0), *concurrency)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "read\tchunks\tMB read\tMB fetched\tconc. 1\trequests\tparallel\trequests\tspeed-up\tround trips\tideal\tvs ideal\t")
	for _, c := range benchCases {
		cpu, _, err := fast.read(ctx, c, *concurrency)
		if err != nil {
			return err
		}
		serial, serialReqs, err := slow.read(ctx, c, 1)
		if err != nil {
			return err
		}
		par, parReqs, err := slow.read(ctx, c, *concurrency)
		if err != nil {
			return err
		}
		chunks, nbytes, err := slow.touched(ctx, c)
		if err != nil {
			return err
		}
		// Ideal: the round trips the concurrency limit forces for the requests
		// made (one when they all fit), the bytes at the bandwidth of as many
		// parallel responses, and the CPU time measured above.
		trips := (max(parReqs, 1) + int64(*concurrency) - 1) / int64(*concurrency)
		ideal := time.Duration(trips)*(*latency) + cpu.time
		if *bandwidth > 0 {
			streams := float64(min(int64(*concurrency), max(parReqs, 1)))
			ideal += time.Duration(float64(par.bytes) / (*bandwidth * 1e6 * streams) * float64(time.Second))
		}
		rt := "-"
		if *latency > 0 {
			rt = fmt.Sprintf("%.1f", float64(par.time)/float64(*latency))
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%s\t%d\t%s\t%d\t%.1f×\t%s\t%s\t%.2f×\t\n", c.name, chunks, float64(nbytes)/1e6, float64(par.bytes)/1e6,
			round(serial.time), serialReqs, round(par.time), parReqs, float64(serial.time)/float64(par.time), rt,
			round(ideal), float64(par.time)/float64(ideal))
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

type measured struct {
	time  time.Duration
	bytes int64
}

// read opens the benchmark file afresh, with no cache, and reads one case,
// returning the wall time of the read alone and the requests it made.
func (s *benchServer) read(ctx context.Context, c benchCase, concurrency int) (measured, int64, error) {
	f, err := h5.Open(ctx, s.srv.URL+"/bench.lindi.json", h5.WithConcurrency(concurrency), h5.WithCacheBytes(0))
	if err != nil {
		return measured{}, 0, err
	}
	defer f.Close()
	d, err := f.Dataset(ctx, c.dataset)
	if err != nil {
		return measured{}, 0, err
	}
	sel, err := selection.Parse(c.sel)
	if err != nil {
		return measured{}, 0, err
	}
	before := s.sim.Stats()
	start := time.Now()
	if _, err := d.Read(ctx, sel); err != nil {
		return measured{}, 0, err
	}
	elapsed := time.Since(start)
	after := s.sim.Stats()
	return measured{time: elapsed, bytes: after.Bytes - before.Bytes}, after.Requests - before.Requests, nil
}

// touched counts the chunks a case touches and the bytes of the data read.
func (s *benchServer) touched(ctx context.Context, c benchCase) (int, int64, error) {
	f, err := h5.Open(ctx, s.srv.URL+"/bench.lindi.json")
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	d, err := f.Dataset(ctx, c.dataset)
	if err != nil {
		return 0, 0, err
	}
	sel, _ := selection.Parse(c.sel)
	r, err := sel.Resolve(d.Shape())
	if err != nil {
		return 0, 0, err
	}
	p, err := r.Plan(d.Chunks())
	if err != nil {
		return 0, 0, err
	}
	return p.NumChunks(), int64(r.Len() * d.DType().Size), nil
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
