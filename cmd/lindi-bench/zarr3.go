package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/selection"
)

// The sharded Zarr v3 benchmark: an int16 array of 4096×2048 in shards of
// 1024×1024 holding 8×8 inner chunks of 128×128, zstd-compressed; 8 shards,
// 512 inner chunks, 16 MiB decoded.
var (
	z3Shape = [2]int{4096, 2048}
	z3Shard = [2]int{1024, 1024}
	z3Inner = [2]int{128, 128}
)

// z3Cases are the reads. Each costs the same round trips: opening the URL
// (one round: a URL ending in .zarr has no first bytes for the drivers of
// single files to sniff, and the drivers of stores — Zarr v2's .zmetadata,
// .zgroup and .zattrs, Zarr v3's consolidated root zarr.json — ask at once:
// z3OpenTrips), the indexes of the shards the read touches (one round,
// wherever the index is: one at the end of the shard is read with a suffix
// range, whose answer tells the size), then the inner chunks, coalesced
// (one round).
const z3OpenTrips = 1

var z3Cases = []struct {
	name, sel string
	zarrita   string // the selection's name in zarrita_bench.mjs
	objects   int    // the chunks it touches: objects of their own in plain.zarr
}{
	{"full read", "...", "full", 512},
	{"strided, one inner chunk a shard", "::1024, ::1024", "strided", 8},
	{"a small box", "300:340, 700:760", "box", 1},
}

// The layouts of the store: sharded with the index at the end or the start
// of each shard, and not sharded (plain.zarr: each inner chunk an object of
// its own, whose size only a request tells; a read of k of them costs
// ceil(k/concurrency) rounds, each chunk read whole in one request).
var z3Layouts = []string{"end", "start", "plain"}

// zarritaScript times zarrita.js on the same store (-zarrita).
//
//go:embed zarrita_bench.mjs
var zarritaScript []byte

func cmdZarr3(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("zarr3", flag.ContinueOnError)
	latency := fs.Duration("latency", 20*time.Millisecond, "first-byte latency of every request")
	bandwidth := fs.Float64("bandwidth", 100, "bandwidth of each response in MB/s (0: unlimited)")
	concurrency := fs.Int("concurrency", fetch.DefaultConcurrency, "requests in flight")
	write := fs.String("write", "", "write the stores (end.zarr, start.zarr, plain.zarr) into this directory, for other readers, and stop")
	zarrita := fs.String("zarrita", "", "a directory holding node_modules/zarrita (npm install zarrita@0.7.5): time zarrita.js on end.zarr over the same server too")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *latency < 0 || *bandwidth < 0 || *concurrency <= 0 {
		return usagef("zarr3 takes only flags: -latency D -bandwidth MB/s -concurrency N -write DIR -zarrita DIR")
	}
	files := map[string][]byte{}
	for _, layout := range z3Layouts {
		if err := z3Store(files, layout); err != nil {
			return err
		}
	}
	if *write != "" {
		for name, b := range files {
			p := filepath.Join(*write, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "wrote %d files to %s\n", len(files), *write)
		return nil
	}
	fast, slow, err := newBenchServers(files, *latency, *bandwidth)
	if err != nil {
		return err
	}
	defer fast.close()
	defer slow.close()
	fmt.Fprintf(stdout, "Zarr v3, %d×%d int16 in shards of %d×%d, inner chunks %d×%d (64 a shard), zstd, consolidated metadata\n",
		z3Shape[0], z3Shape[1], z3Shard[0], z3Shard[1], z3Inner[0], z3Inner[1])
	fmt.Fprintf(stdout, "latency %v, bandwidth %g MB/s per response, %d cores, concurrency %d, median of %d runs\n",
		*latency, *bandwidth, runtime.GOMAXPROCS(0), *concurrency, benchRuns)
	fmt.Fprintf(stdout, "floor = the same open and read at zero latency + its round trips: %d to open (every store driver's probe at once), the shard indexes (1, at the start or the end), the chunks (plain: one round per %d chunks, each read whole)\n\n", z3OpenTrips, *concurrency)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "read\tlayout\trequests\tMB fetched\ttime\ttrips\tfloor\tvs floor\tCPU÷wall\t")
	ours := map[string]time.Duration{} // the end.zarr times, for zarrita's
	for _, where := range z3Layouts {
		for _, c := range z3Cases {
			sel, err := selection.Parse(c.sel)
			if err != nil {
				return err
			}
			trips := z3OpenTrips + 2
			if where == "plain" {
				trips = z3OpenTrips + (c.objects+*concurrency-1) / *concurrency
			}
			op := benchOp{file: "/" + where + ".zarr", concurrency: *concurrency, run: func(ctx context.Context, f *h5.File) error {
				d, err := f.Dataset(ctx, "data")
				if err == nil {
					_, err = d.Read(ctx, sel)
				}
				return err
			}}
			cpu, err := fast.measure(ctx, op)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			got, err := slow.measure(ctx, op)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			floor := cpu.wall + time.Duration(trips)*(*latency)
			if where == "end" {
				ours[c.zarrita] = got.wall
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%s\t%d\t%s\t%.2f×\t%.2f\t\n", c.name, where, got.requests, float64(got.bytes)/1e6,
				round(got.wall), trips, round(floor), float64(got.wall)/float64(floor), float64(cpu.cpu)/float64(cpu.wall))
		}
	}
	if err := tw.Flush(); err != nil || *zarrita == "" {
		return err
	}
	return benchZarrita(ctx, stdout, *zarrita, slow.srv.URL+"/end.zarr", ours)
}

// benchZarrita times zarrita.js (zarrita_bench.mjs, run with node in dir)
// reading end.zarr from url, each case opened afresh as ours are, and
// prints its times beside ours.
func benchZarrita(ctx context.Context, stdout io.Writer, dir, url string, ours map[string]time.Duration) error {
	script := filepath.Join(dir, "lindi_zarrita_bench.mjs")
	if err := os.WriteFile(script, zarritaScript, 0o644); err != nil {
		return err
	}
	defer os.Remove(script)
	fmt.Fprintf(stdout, "\nzarrita.js over the same server (end.zarr: zarrita reads a shard index from the end), median of %d runs\n", benchRuns)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "read\tzarrita\tours\tours ÷ zarrita\t")
	for _, c := range z3Cases {
		cmd := exec.CommandContext(ctx, "node", script, url, c.zarrita, strconv.Itoa(benchRuns))
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("zarrita %s: %w (is node installed, and zarrita in %s/node_modules?)", c.zarrita, err, dir)
		}
		var r struct {
			MedianMS float64 `json:"median_ms"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			return fmt.Errorf("zarrita %s: %q: %w", c.zarrita, out, err)
		}
		z := time.Duration(r.MedianMS * float64(time.Millisecond))
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f×\t\n", c.name, round(z), round(ours[c.zarrita]), float64(ours[c.zarrita])/float64(z))
	}
	return tw.Flush()
}

// z3Store adds the benchmark store to files: under /end.zarr with the shard
// indexes at the end of the shards, under /start.zarr at their start.
func z3Store(files map[string][]byte, layout string) error {
	root, loc := "/"+layout+".zarr", layout
	start, plain := layout == "start", layout == "plain"
	zc, err := codecs.Builtin().NewCodec([]byte(`{"id":"zstd","level":1}`))
	if err != nil {
		return err
	}
	enc, ok := zc.(codecs.Encoder)
	if !ok {
		return fmt.Errorf("zstd does not encode")
	}
	per := [2]int{z3Shard[0] / z3Inner[0], z3Shard[1] / z3Inner[1]}
	n := per[0] * per[1]
	raw := make([]byte, z3Inner[0]*z3Inner[1]*2)
	for si := 0; si < z3Shape[0]/z3Shard[0]; si++ {
		for sj := 0; sj < z3Shape[1]/z3Shard[1]; sj++ {
			var body []byte
			index := make([]byte, 0, 16*n+4)
			offset := 0
			if start {
				offset = 16*n + 4
			}
			for ci := 0; ci < per[0]; ci++ {
				for cj := 0; cj < per[1]; cj++ {
					for r := 0; r < z3Inner[0]; r++ {
						for c := 0; c < z3Inner[1]; c++ {
							y := si*z3Shard[0] + ci*z3Inner[0] + r
							x := sj*z3Shard[1] + cj*z3Inner[1] + c
							v := 1000*math.Sin(float64(y)/200+float64(x)/300) + float64((y*7919+x*104729)%50)
							binary.LittleEndian.PutUint16(raw[2*(r*z3Inner[1]+c):], uint16(int16(v)))
						}
					}
					before := len(body)
					if body, err = enc.Encode(body, raw, 2); err != nil {
						return err
					}
					if plain {
						files[fmt.Sprintf("%s/data/c/%d/%d", root, si*per[0]+ci, sj*per[1]+cj)] = bytes.Clone(body[before:])
					}
					index = binary.LittleEndian.AppendUint64(index, uint64(offset+before))
					index = binary.LittleEndian.AppendUint64(index, uint64(len(body)-before))
				}
			}
			index = binary.LittleEndian.AppendUint32(index, crc32.Checksum(index, crc32.MakeTable(crc32.Castagnoli)))
			shard := append(body, index...)
			if start {
				shard = append(index, body...)
			}
			if !plain {
				files[fmt.Sprintf("%s/data/c/%d/%d", root, si, sj)] = shard
			}
		}
	}
	arr := map[string]any{
		"zarr_format": 3, "node_type": "array", "shape": z3Shape, "data_type": "int16",
		"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": z3Shard}},
		"chunk_key_encoding": map[string]any{"name": "default"}, "fill_value": 0, "attributes": map[string]any{},
		"codecs": []any{map[string]any{"name": "sharding_indexed", "configuration": map[string]any{
			"chunk_shape":    z3Inner,
			"codecs":         []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, map[string]any{"name": "zstd", "configuration": map[string]any{"level": 1}}},
			"index_codecs":   []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, map[string]any{"name": "crc32c"}},
			"index_location": loc,
		}}},
	}
	if plain {
		arr["chunk_grid"] = map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": z3Inner}}
		arr["codecs"] = []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}, map[string]any{"name": "zstd", "configuration": map[string]any{"level": 1}}}
	}
	rootDoc := map[string]any{"zarr_format": 3, "node_type": "group", "attributes": map[string]any{},
		"consolidated_metadata": map[string]any{"kind": "inline", "must_understand": false, "metadata": map[string]any{"data": arr}}}
	for name, doc := range map[string]any{root + "/zarr.json": rootDoc, root + "/data/zarr.json": arr} {
		b, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		files[name] = b
	}
	return nil
}
