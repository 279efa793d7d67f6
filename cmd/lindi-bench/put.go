package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"
	"unsafe"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/npy"
)

// putRuns is how many times bench put runs each codec; the median is kept.
const putRuns = 3

// cmdPut measures the CLI's write path as a user meets it: lindi put of
// an ephys-like int16 .npy (64 channels) into an empty .lindi.tar, the lindi
// binary run as a whole process per codec, against the disk's sequential
// write of the output's bytes. The binary is -lindi, or else cmd/lindi built
// from the module lindi-bench is run in. bench/put_python.py runs Python
// lindi beside it.
func cmdPut(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("put", flag.ContinueOnError)
	mb := fs.Int("mb", 512, "size of the .npy's data in MB (2^20 bytes)")
	dir := fs.String("dir", "", "directory for the files (default: a temporary one, removed)")
	lindi := fs.String("lindi", "", "the lindi binary to measure (default: go build ./cmd/lindi into the directory)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *mb < 1 {
		return usagef("put takes only flags: -mb N -dir DIR -lindi PATH")
	}
	if *dir == "" {
		if *dir, err = os.MkdirTemp("", "lindi-bench-put"); err != nil {
			return err
		}
		defer os.RemoveAll(*dir)
	}
	if *lindi == "" {
		if *lindi, err = buildLindi(ctx, *dir); err != nil {
			return err
		}
	}
	const channels = 64
	rows := (*mb << 20) / 2 / channels
	input := filepath.Join(*dir, "put.npy")
	if err := writeEphysNPY(input, rows, channels); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lindi put of %d×%d int16 (%.0f MB .npy) into an empty .lindi.tar in %s, whole process, %d cores, median of %d\n\n",
		rows, channels, float64(rows*channels*2)/1e6, *dir, runtime.GOMAXPROCS(0), putRuns)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "codec\ttime\tCPU\tmax RSS MB\tpage faults\tfile MB\tdisk floor\tvs floor\t")
	out := filepath.Join(*dir, "put.lindi.tar")
	for _, c := range writeCodecs {
		var runs []putRun
		for range putRuns {
			r, err := putOnce(ctx, *lindi, out, input, c.config)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			runs = append(runs, r)
		}
		slices.SortFunc(runs, func(a, b putRun) int { return int(a.wall - b.wall) })
		r := runs[len(runs)/2]
		st, err := os.Stat(out)
		if err != nil {
			return err
		}
		floor, err := diskFloor(*dir, st.Size())
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%.2fs\t%.2fs\t%.0f\t%d\t%.0f\t%.2fs\t%.2f×\t\n", c.name, r.wall.Seconds(), r.cpu.Seconds(),
			r.rssMB, r.faults, float64(st.Size())/1e6, floor.Seconds(), r.wall.Seconds()/floor.Seconds())
	}
	return tw.Flush()
}

// putRun is one lindi put as measured.
type putRun struct {
	wall, cpu time.Duration
	rssMB     float64
	faults    int64
}

// buildLindi builds cmd/lindi into dir and returns the binary's path.
func buildLindi(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "lindi")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/lindigo/lindi/cmd/lindi")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building lindi (or give -lindi PATH): %w: %s", err, bytes.TrimSpace(out))
	}
	return bin, nil
}

// putOnce creates out empty and runs lindi put into it.
func putOnce(ctx context.Context, lindi, out, input, codec string) (putRun, error) {
	os.Remove(out)
	f, err := h5.Create(ctx, out)
	if err != nil {
		return putRun{}, err
	}
	if err := f.Close(); err != nil {
		return putRun{}, err
	}
	cmd := exec.CommandContext(ctx, lindi, "put", "--codec", codec, out, "acquisition/ElectricalSeries/data", input)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return putRun{}, err
	}
	r := putRun{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	r.rssMB, r.faults = processMemory(cmd.ProcessState)
	return r, nil
}

// writeEphysNPY writes rows×channels ephys-like int16 samples as a .npy.
func writeEphysNPY(name string, rows, channels int) error {
	data := ephys(rows, channels)
	fh, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(fh, 1<<20)
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), 2*len(data))
	err = npy.Write(w, &npy.Array{Descr: "<i2", Shape: []int{rows, channels}, Data: raw})
	if err == nil {
		err = w.Flush()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}
