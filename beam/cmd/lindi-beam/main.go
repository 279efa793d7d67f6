// Command lindi-beam runs lindi's indexing and reductions on Apache Beam:
// in-process by default (the prism runner), or on Flink, Spark or Dataflow
// through their job services, with Beam's own flags (--runner, --endpoint,
// --environment_type, --environment_config, --job_name, …).
//
//	lindi-beam index --out DIR [--manifest FILE] [--shard I/N] [--all-chunks] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE...
//	lindi-beam stats --out OUT.csv --series PATH [--window T0:T1] [--shard I/N] [--group-bytes N] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE...
//	lindi-beam stats --out OUT.json [--group-bytes N] [--amend OUT.lindi.tar] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE DATASET [SELECTION]
//
// A SOURCE is a local path, an http(s)/s3 URL, a DANDI asset, or a
// dandiset or folder of one, which stands for its NWB assets.
//
// index writes DIR/NAME.lindi.json for each asset (NAME: DANDISET/VERSION/PATH
// for a DANDI asset, assets/ID for one known by its ID, else the source's
// base name; sources that would share a NAME are refused), the same document
// as lindi index writes, and with --manifest one JSON line per source:
// {"source", "output", "error"}. Failed sources are named on stderr, and it
// exits 1 when any failed, after all the others were written. DIR may be a
// local directory or a gs://, s3:// URL.
//
// --shard I/N takes only the I-th of N shares of the DANDI assets the
// sources name, split by path as lindi ls --shard and dandi.WithShard split
// them, so that N jobs take each asset once; its sources must be DANDI
// addresses.
//
// stats with --series writes, for each asset, the statistics of the
// TimeSeries PATH over the time window (seconds of the file's time base,
// T0 <= t < T1; units ms, s, min; an empty end is open) in the series' unit
// (conversion, offset and channel_conversion applied): CSV with the header
// asset,column,count,mean,std,rms,min,max and the electrode table's
// columns. Without --series, it writes {"dataset", "shape", "count", "mean",
// "std", "min", "max"} (stored units, a value per column of the selection)
// for a numpy-style SELECTION (default: all) of DATASET of one file;
// --amend also writes them into an amendment of the NWB file SOURCE as the
// table processing/statistics/channel_stats.
//
// Outputs (--out, --manifest, --amend) may be local paths (on a cluster,
// paths every worker sees) or gs://, s3:// URLs, written whole or not at
// all, readable by others (0666 less the umask). Flags come before the
// positional arguments.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lindigo/lindi/beam/lindibeam"
	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/io/source"
)

const usage = `usage:
  lindi-beam index --out DIR [--manifest FILE] [--shard I/N] [--all-chunks] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE...
  lindi-beam stats --out OUT.csv --series PATH [--window T0:T1] [--shard I/N] [--group-bytes N] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE...
  lindi-beam stats --out OUT.json [--group-bytes N] [--amend OUT.lindi.tar] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE DATASET [SELECTION]
SOURCE: a local path, an http(s) or s3 URL, a DANDI asset, or a dandiset or folder of one.
Outputs: local paths or gs://, s3:// URLs. Without --runner the job runs in this process (prism).
`

// lindiFlags are lindi-beam's own flags, shown before Beam's.
var lindiFlags = flag.NewFlagSet("lindi-beam", flag.ContinueOnError)

var (
	out         = lindiFlags.String("out", "", "index: the output directory; stats: the output CSV (with --series) or JSON file (local paths or gs://, s3:// URLs)")
	manifest    = lindiFlags.String("manifest", "", "index: write a JSON line per source to `FILE`")
	allChunks   = lindiFlags.Bool("all-chunks", false, "index: list every chunk instead of linking datasets of more than 1000 chunks to the HDF5 file")
	series      = lindiFlags.String("series", "", "stats: the `PATH` of a TimeSeries in each source (acquisition/ElectricalSeries)")
	window      = lindiFlags.String("window", "", "stats --series: the time window `T0:T1` (seconds of the file's time base; 0:10s, 500ms:1.5s, :1min)")
	groupBytes  = lindiFlags.Int64("group-bytes", 0, fmt.Sprintf("stats: stored bytes of the chunk groups a worker reads at once (default: the whole selection when the job runs in this process; %d elsewhere)", lindibeam.DefaultGroupBytes))
	amend       = lindiFlags.String("amend", "", "stats without --series: also write the statistics into `OUT.lindi.tar`, a new amendment of the NWB file SOURCE")
	shard       = lindiFlags.String("shard", "", "index, stats --series: take only the `I/N`-th share of the DANDI assets, split as lindi ls --shard splits them (0 ≤ I < N)")
	inFlight    = lindiFlags.Int("in-flight", 0, fmt.Sprintf("HTTP requests in flight per worker process (default %d when the job runs in this process, as lindi cat reads; %d per worker elsewhere)", source.AutoMaxConcurrency, lindibeam.DefaultInFlight))
	concurrency = lindiFlags.String("concurrency", "", "byte-range requests in flight per host, under --in-flight: a number, or auto to adapt to what the server takes (default $"+source.ConcurrencyEnv+" on the workers, else auto)")
)

func init() {
	// Beam's flags and lindi's are parsed together from flag.CommandLine.
	lindiFlags.VisitAll(func(f *flag.Flag) { flag.CommandLine.Var(f.Value, f.Name, f.Usage) })
	flag.CommandLine.Usage = printUsage
}

// printUsage shows lindi-beam's commands and flags, then Beam's.
func printUsage() {
	w := flag.CommandLine.Output()
	fmt.Fprint(w, usage, "\nlindi-beam's flags:\n")
	lindiFlags.SetOutput(w)
	lindiFlags.PrintDefaults()
	fmt.Fprint(w, "\nApache Beam's flags (--runner, --endpoint, --environment_type, …):\n")
	beamFlags := flag.NewFlagSet("beam", flag.ContinueOnError)
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if lindiFlags.Lookup(f.Name) == nil {
			beamFlags.Var(f.Value, f.Name, f.Usage)
		}
	})
	beamFlags.SetOutput(w)
	beamFlags.PrintDefaults()
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "index" && os.Args[1] != "stats") {
		// A worker started by a runner (--worker, --id, …) runs the
		// harness inside beam.Init and never returns from it.
		flag.Parse()
		beam.Init()
		printUsage()
		os.Exit(2)
	}
	cmd := os.Args[1]
	if err := flag.CommandLine.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	beam.Init()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, cmd, flag.Args())
	stop()
	var ue usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "lindi-beam: %v\n%s", err, usage)
		os.Exit(2)
	case err != nil:
		fmt.Fprintf(os.Stderr, "lindi-beam: %v\n", err)
		os.Exit(1)
	}
}

type usageError string

// run runs the command cmd in a temporary directory of its own, removed
// when the command ends: Beam's runner leaves an empty
// beamloopbackworker-* file in the temporary directory at each run whose
// worker is this process (runnerlib.Execute creates it and never removes
// it), thousands of them in /tmp after a day of jobs.
func run(ctx context.Context, cmd string, args []string) error {
	dir, err := os.MkdirTemp("", "lindi-beam-")
	if err != nil {
		return err
	}
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	defer func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
		os.RemoveAll(dir)
	}()
	switch cmd {
	case "index":
		return runIndex(ctx, args)
	case "stats":
		return runStats(ctx, args)
	}
	return usageError("unknown command " + cmd)
}

// jobInFlight is --in-flight, or its default: a job run in this process
// reads as lindi cat does, up to source.AutoMaxConcurrency requests in
// flight under each host's adaptive limit (lindibeam's default of 8 took
// 1.08× the time of 32 on issue 38's 512 MB dataset); workers elsewhere
// keep lindibeam.DefaultInFlight each, so that many of them together stay
// below what one bucket serves.
func jobInFlight() int {
	if *inFlight > 0 {
		return *inFlight
	}
	if inProcess() {
		return source.AutoMaxConcurrency
	}
	return lindibeam.DefaultInFlight
}

// jobGroupBytes is --group-bytes, or its default: a job run in this
// process reads its selection as one group (read in parts of 128 MiB in
// memory, two at a time, as every group is), since groups only spread the
// work over workers, and here each ended with its slowest chunk while the runner
// started the next late (one group took 0.85× the wall time of groups of
// 128 MiB on the module's bench and 0.90× on issue 38's dataset); workers
// elsewhere take lindibeam.DefaultGroupBytes.
func jobGroupBytes() int64 {
	if *groupBytes > 0 {
		return *groupBytes
	}
	if inProcess() {
		return math.MaxInt64
	}
	return lindibeam.DefaultGroupBytes
}

// inProcess reports whether the job runs in this process: on prism, Beam's
// default runner, without --endpoint, or on direct.
func inProcess() bool {
	r := strings.ToLower(*runners.Runner)
	return (r == "" || r == "prism") && *jobopts.Endpoint == "" || r == "direct"
}

// checkConcurrency refuses a --concurrency, or a LINDI_CONCURRENCY, the
// workers could not use, before the job starts.
func checkConcurrency() error {
	if *concurrency == "" {
		_, err := source.ConcurrencyFromEnv()
		return err
	}
	if _, err := source.ParseConcurrency(*concurrency); err != nil {
		return usageError("--" + err.Error())
	}
	return nil
}

func (e usageError) Error() string { return string(e) }

func runIndex(ctx context.Context, srcs []string) error {
	switch {
	case *out == "":
		return usageError("index needs --out DIR")
	case len(srcs) == 0:
		return usageError("index needs at least one SOURCE")
	case *inFlight < 0:
		return usageError("--in-flight must not be negative")
	}
	if err := checkConcurrency(); err != nil {
		return err
	}
	sh, err := parseShard(*shard, srcs)
	if err != nil {
		return err
	}
	name := *manifest
	if name == "" {
		// The failures are named on stderr from a manifest of our own.
		dir, err := os.MkdirTemp("", "lindi-beam-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		name = filepath.Join(dir, "manifest.jsonl")
	} else {
		unlock, err := lindibeam.LockManifest(name)
		if err != nil {
			return err
		}
		defer unlock()
	}
	p, s := beam.NewPipelineWithRoot()
	written, failed := lindibeam.Index(s, lindibeam.IndexOptions{
		OutDir:      *out,
		Shard:       sh,
		Index:       index.Config{AllChunks: *allChunks, Tool: "lindi-beam"},
		InFlight:    jobInFlight(),
		Concurrency: *concurrency,
	}, beam.CreateList(s, srcs))
	lindibeam.WriteManifest(s, name, written, failed)
	if err := beamx.Run(ctx, p); err != nil {
		return err
	}
	n, total, err := manifestFailures(ctx, name)
	if err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%d of %d sources failed", n, total)
	}
	return nil
}

// manifestFailures counts the failed lines of the manifest, of total, and
// names them on stderr.
func manifestFailures(ctx context.Context, name string) (n, total int, err error) {
	b, err := lindibeam.ReadOutput(ctx, name)
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Source string  `json:"source"`
			Error  *string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return 0, 0, fmt.Errorf("manifest %s: %w", name, err)
		}
		total++
		if e.Error != nil {
			n++
			fmt.Fprintf(os.Stderr, "lindi-beam: %s: %s\n", e.Source, strings.ReplaceAll(*e.Error, "\n", " "))
		}
	}
	return n, total, sc.Err()
}

func runStats(ctx context.Context, args []string) error {
	switch {
	case *out == "":
		return usageError("stats needs --out")
	case *groupBytes < 0:
		return usageError("--group-bytes must not be negative")
	case *inFlight < 0:
		return usageError("--in-flight must not be negative")
	case *series != "":
		return runSeriesStats(ctx, args)
	case *window != "":
		return usageError("--window needs --series")
	case *shard != "":
		return usageError("--shard is for index and stats --series")
	case len(args) < 2 || len(args) > 3:
		return usageError("stats takes SOURCE DATASET [SELECTION], or --series PATH and SOURCE...")
	}
	if err := checkConcurrency(); err != nil {
		return err
	}
	job := lindibeam.DatasetJob{Source: args[0], Dataset: args[1], GroupBytes: jobGroupBytes(), InFlight: jobInFlight(), Concurrency: *concurrency, Out: *out, Amend: *amend}
	if len(args) == 3 {
		job.Selection = args[2]
	}
	p, s := beam.NewPipelineWithRoot()
	lindibeam.DatasetStats(s, job)
	return beamx.Run(ctx, p)
}

func runSeriesStats(ctx context.Context, srcs []string) error {
	switch {
	case len(srcs) == 0:
		return usageError("stats --series needs at least one SOURCE")
	case *amend != "":
		return usageError("--amend is for stats of one DATASET, not --series")
	}
	if err := checkConcurrency(); err != nil {
		return err
	}
	sh, err := parseShard(*shard, srcs)
	if err != nil {
		return err
	}
	job := lindibeam.StatsJob{Series: *series, GroupBytes: jobGroupBytes(), InFlight: jobInFlight(), Concurrency: *concurrency}
	if *window != "" {
		var err error
		if job.From, job.To, err = parseWindow(*window); err != nil {
			return usageError(err.Error())
		}
	}
	dir, err := os.MkdirTemp("", "lindi-beam-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	failures := filepath.Join(dir, "failed.jsonl")
	p, s := beam.NewPipelineWithRoot()
	assets, unlisted := lindibeam.ExpandShard(s, sh, beam.CreateList(s, srcs))
	rows, failed := lindibeam.Stats(s, job, assets)
	lindibeam.WriteStats(s, *out, rows)
	lindibeam.WriteJSONL(s, failures, beam.Flatten(s, unlisted, failed))
	if err := beamx.Run(ctx, p); err != nil {
		return err
	}
	n, _, err := manifestFailures(ctx, failures)
	if err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%d sources failed; the others are in %s", n, *out)
	}
	return nil
}

// parseShard reads --shard's I/N ("" for the whole) and checks that every
// source is a DANDI address, the only ones split into shards.
func parseShard(s string, srcs []string) (lindibeam.Shard, error) {
	if s == "" {
		return lindibeam.Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return lindibeam.Shard{}, usageError(fmt.Sprintf("--shard %q: want I/N with 0 ≤ I < N, such as 3/16", s))
	}
	for _, src := range srcs {
		if _, err := dandi.ParseAddress(src); err != nil {
			return lindibeam.Shard{}, usageError(fmt.Sprintf("--shard splits DANDI assets, not %s", src))
		}
	}
	return lindibeam.Shard{I: i, N: n}, nil
}

// parseWindow reads T0:T1, times in seconds or with a unit (ms, s, min, h);
// an empty end is open.
func parseWindow(w string) (from, to float64, err error) {
	a, b, ok := strings.Cut(w, ":")
	if !ok {
		return 0, 0, fmt.Errorf("--window %q: want T0:T1, such as 0:10s", w)
	}
	from, to = math.Inf(-1), math.Inf(1)
	if a != "" {
		if from, err = parseTime(a); err != nil {
			return 0, 0, fmt.Errorf("--window %q: %v", w, err)
		}
	}
	if b != "" {
		if to, err = parseTime(b); err != nil {
			return 0, 0, fmt.Errorf("--window %q: %v", w, err)
		}
	}
	if !(from < to) {
		return 0, 0, fmt.Errorf("--window %q: the start is not before the end", w)
	}
	return from, to, nil
}

func parseTime(s string) (float64, error) {
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ms", 1e-3}, {"min", 60}, {"h", 3600}, {"s", 1}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				return 0, fmt.Errorf("time %q", s)
			}
			return v * u.scale, nil
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("time %q", s)
	}
	return v, nil
}
