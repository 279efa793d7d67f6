package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"
	"unsafe"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/selection"
)

// writeCodecs are the codecs lindi-bench write measures: NWB's usual, lindi's
// default, and zstd.
var writeCodecs = []struct {
	name   string
	config string
}{
	{"zlib level 4", `{"id":"zlib","level":4}`},
	{"blosc lz4 shuffle", `{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":1}`},
	{"zstd level 3", `{"id":"zstd","level":3}`},
}

// cmdWrite measures writing a noisy int16 dataset (ephys-like: 384
// channels of random walks plus noise) into a .lindi.tar with each codec,
// on one core and on all, against the disk's sequential write of the same
// bytes; and amending one attribute of the result.
func cmdWrite(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("write", flag.ContinueOnError)
	mb := fs.Int("mb", 2048, "size of the dataset in MB (2^20 bytes)")
	dir := fs.String("dir", "", "directory for the files written (default: a temporary one, removed)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *mb < 1 {
		return usagef("write takes only flags: -mb N -dir DIR")
	}
	if *dir == "" {
		if *dir, err = os.MkdirTemp("", "lindi-bench-write"); err != nil {
			return err
		}
		defer os.RemoveAll(*dir)
	}
	const channels = 384
	rows := (*mb << 20) / 2 / channels
	data := ephys(rows, channels)
	size := float64(len(data) * 2)
	fmt.Fprintf(stdout, "writing %d×%d int16 (%.0f MB) into a .lindi.tar in %s, %d cores, chunks of about 20 MiB\n\n",
		rows, channels, size/1e6, *dir, runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "codec\tworkers\ttime\tMB/s in\tfile MB\tdisk floor\tvs floor\tall ÷ one core\tencode only\tall ÷ one core\t")
	var last string
	for _, c := range writeCodecs {
		var one, oneEnc time.Duration
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			enc, err := encodeOnly(ctx, data, channels, c.config, workers)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			name := filepath.Join(*dir, fmt.Sprintf("bench-%d.lindi.tar", workers))
			os.Remove(name)
			start := time.Now()
			if err := benchWriteOnce(ctx, name, data, channels, c.config, workers); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			took := time.Since(start)
			st, err := os.Stat(name)
			if err != nil {
				return err
			}
			floor, err := diskFloor(*dir, st.Size())
			if err != nil {
				return err
			}
			speedup, encSpeedup := "-", "-"
			if workers == 1 {
				one, oneEnc = took, enc
			} else {
				speedup = fmt.Sprintf("%.2f×", one.Seconds()/took.Seconds())
				encSpeedup = fmt.Sprintf("%.2f×", oneEnc.Seconds()/enc.Seconds())
			}
			fmt.Fprintf(tw, "%s\t%d\t%.2fs\t%.0f\t%.0f\t%.2fs\t%.2f×\t%s\t%.0f MB/s\t%s\t\n", c.name, workers, took.Seconds(),
				size/1e6/took.Seconds(), float64(st.Size())/1e6, floor.Seconds(), took.Seconds()/floor.Seconds(), speedup,
				size/1e6/enc.Seconds(), encSpeedup)
			last = name
		}
	}
	tw.Flush()
	// Amending one attribute costs the size of lindi.json, not of the file.
	st, err := os.Stat(last)
	if err != nil {
		return err
	}
	start := time.Now()
	f, err := h5.OpenWrite(ctx, last)
	if err != nil {
		return err
	}
	if err := f.Root().SetAttr(ctx, "note", "amended"); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	took := time.Since(start)
	after, err := os.Stat(last)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\namending one attribute of the %.0f MB tar: %.3fs, the file grew by %d bytes\n",
		float64(st.Size())/1e6, took.Seconds(), after.Size()-st.Size())
	return nil
}

// benchWriteOnce creates name holding data as an int16 dataset.
func benchWriteOnce(ctx context.Context, name string, data []int16, channels int, codec string, workers int) error {
	f, err := h5.Create(ctx, name, h5.WithWorkers(workers))
	if err != nil {
		return err
	}
	spec := &h5.DatasetSpec{Codec: json.RawMessage(codec)}
	if _, err := h5.CreateDatasetFrom(ctx, f.Root(), "acquisition/ElectricalSeries/data", data, []int{len(data) / channels, channels}, spec); err != nil {
		f.Discard()
		return err
	}
	return f.Close()
}

// encodeOnly times the write pipeline on data (assembling and encoding
// every chunk on workers) with the encoded chunks dropped: the encoders'
// rate, without the disk.
func encodeOnly(ctx context.Context, data []int16, channels int, codec string, workers int) (time.Duration, error) {
	pipe, err := codecs.Builtin().Pipeline([]byte(codec), nil)
	if err != nil {
		return 0, err
	}
	shape := []int{len(data) / channels, channels}
	a := &engine.Chunked{Shape: shape, Chunks: h5.DefaultChunks(shape, 2), ItemSize: 2, Pipeline: pipe, Name: "bench",
		Locator: missing{}}
	r, err := selection.Selection{}.Resolve(shape)
	if err != nil {
		return 0, err
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), 2*len(data))
	start := time.Now()
	err = engine.Write(ctx, a, r, raw, engine.WriteOptions{Workers: workers,
		Put: func(context.Context, []int, []byte) error { return nil }})
	return time.Since(start), err
}

// missing locates no chunk: a write covering every chunk never asks.
type missing struct{}

func (missing) Locate(context.Context, []int) (engine.Chunk, error) {
	return engine.Chunk{Missing: true}, nil
}

// ephys makes rows×channels int16 samples: per channel a slow random walk
// plus white noise, as extracellular recordings look to a compressor.
func ephys(rows, channels int) []int16 {
	data := make([]int16, rows*channels)
	rng := rand.New(rand.NewPCG(7, 11))
	walk := make([]float64, channels)
	for i := range rows {
		row := data[i*channels : (i+1)*channels]
		for c := range row {
			walk[c] = 0.999*walk[c] + rng.NormFloat64()*8
			row[c] = int16(walk[c] + rng.NormFloat64()*20)
		}
	}
	return data
}

// diskFloor times writing n bytes to a new file in dir with one sequential
// write and an fsync: the least any writer of an n-byte file needs.
func diskFloor(dir string, n int64) (time.Duration, error) {
	name := filepath.Join(dir, "floor.bin")
	defer os.Remove(name)
	buf := make([]byte, 8<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	start := time.Now()
	fh, err := os.Create(name)
	if err != nil {
		return 0, err
	}
	for left := n; left > 0; left -= int64(len(buf)) {
		if _, err := fh.Write(buf[:min(int64(len(buf)), left)]); err != nil {
			fh.Close()
			return 0, err
		}
	}
	if err := fh.Sync(); err != nil {
		fh.Close()
		return 0, err
	}
	if err := fh.Close(); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}
