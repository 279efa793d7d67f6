// Command lindi-beam runs lindi's indexing and reductions on Apache Beam:
// in-process by default (the prism runner), or on Flink, Spark or Dataflow
// through their job services, with Beam's own flags (--runner, --endpoint,
// --environment_type, --environment_config, --job_name, …).
//
//	lindi-beam index --out DIR [--manifest FILE] [--all-chunks] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE...
//	lindi-beam stats --out OUT.json [--group-bytes N] [--amend OUT.lindi.tar] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE DATASET [SELECTION]
//
// index writes DIR/NAME.lindi.json for each SOURCE (a local path or an
// http(s)/s3 URL; NAME its base name; a DANDI asset, NAME its path; a
// dandiset or folder of one, for each of its NWB assets), the same document
// as lindi index writes, and with --manifest one JSON line per source: {"source",
// "output", "error"}. It exits 1 when any source failed, after all the
// others were written.
//
// stats writes {"dataset", "shape", "count", "mean", "std", "min", "max"}
// (one value per column of the selection: its positions on axis 1) for a
// numpy-style SELECTION (default: all) of DATASET, read in chunk groups of
// --group-bytes stored bytes (default 128 MiB) on the workers and reduced
// exactly; --amend also writes them into an amendment of the NWB file SOURCE
// as the table processing/statistics/channel_stats.
//
// Flags come before the positional arguments. Output paths must be
// visible to the workers (a shared file system on a cluster). --in-flight
// bounds the HTTP requests of each worker process (default 8).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lindigo/lindi/beam/lindibeam"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/io/source"
)

const usage = `usage:
  lindi-beam index --out DIR [--manifest FILE] [--all-chunks] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE...
  lindi-beam stats --out OUT.json [--group-bytes N] [--amend OUT.lindi.tar] [--in-flight N] [--concurrency N|auto] [beam flags] SOURCE DATASET [SELECTION]
Beam's flags: --runner (default prism, in-process), --endpoint, --environment_type, …
`

var (
	out         = flag.String("out", "", "index: the output directory; stats: the output JSON file")
	manifest    = flag.String("manifest", "", "index: write a JSON line per source to `FILE`")
	allChunks   = flag.Bool("all-chunks", false, "index: list every chunk instead of linking datasets of more than 1000 chunks to the HDF5 file")
	groupBytes  = flag.Int64("group-bytes", lindibeam.DefaultGroupBytes, "stats: stored bytes of the chunk groups a worker reads at once")
	amend       = flag.String("amend", "", "stats: also write the statistics into `OUT.lindi.tar`, a new amendment of the NWB file SOURCE")
	inFlight    = flag.Int("in-flight", lindibeam.DefaultInFlight, "HTTP requests in flight per worker process")
	concurrency = flag.String("concurrency", "", "byte-range requests in flight per host, under --in-flight: a number, or auto to adapt to what the server takes (default $"+source.ConcurrencyEnv+" on the workers, else auto)")
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "index" && os.Args[1] != "stats") {
		// A worker started by a runner (--worker, --id, …) runs the
		// harness inside beam.Init and never returns from it.
		flag.Parse()
		beam.Init()
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd := os.Args[1]
	if err := flag.CommandLine.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	beam.Init()
	var err error
	switch cmd {
	case "index":
		err = runIndex(context.Background(), flag.Args())
	case "stats":
		err = runStats(context.Background(), flag.Args())
	}
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
	case *inFlight < 1:
		return usageError("--in-flight must be at least 1")
	}
	if err := checkConcurrency(); err != nil {
		return err
	}
	seen := map[string]string{}
	for _, s := range srcs {
		name := lindibeam.OutputName(s)
		if prev, dup := seen[name]; dup {
			return usageError(fmt.Sprintf("%s and %s would both write %s", prev, s, name))
		}
		seen[name] = s
	}
	p, s := beam.NewPipelineWithRoot()
	written, failed := lindibeam.Index(s, lindibeam.IndexOptions{
		OutDir:      *out,
		Index:       index.Config{AllChunks: *allChunks, Tool: "lindi-beam"},
		InFlight:    *inFlight,
		Concurrency: *concurrency,
	}, beam.CreateList(s, srcs))
	if *manifest != "" {
		lindibeam.WriteManifest(s, *manifest, written, failed)
	}
	res, err := beamx.RunWithMetrics(ctx, p)
	if err != nil {
		return err
	}
	n, known := failures(res)
	if *manifest != "" {
		if n, known, err = manifestFailures(*manifest); err != nil {
			return err
		}
	}
	if !known {
		fmt.Fprintln(os.Stderr, "lindi-beam: the runner reported no metrics: see the manifest for failures")
		return nil
	}
	if n > 0 {
		return fmt.Errorf("%d of %d sources failed", n, len(srcs))
	}
	return nil
}

// failures reads the count of failed sources from the job's counters.
func failures(res beam.PipelineResult) (int64, bool) {
	if res == nil {
		return 0, false
	}
	var n int64
	known := false
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Name() == "index_failed" {
			n += c.Result()
			known = true
		}
		if c.Name() == "index_written" {
			known = true
		}
	}
	return n, known
}

// manifestFailures counts the failed lines of the manifest and names them
// on stderr.
func manifestFailures(name string) (int64, bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	var n int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e struct {
			Source string  `json:"source"`
			Error  *string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return 0, false, fmt.Errorf("manifest %s: %w", name, err)
		}
		if e.Error != nil {
			n++
			fmt.Fprintf(os.Stderr, "lindi-beam: %s: %s\n", e.Source, strings.ReplaceAll(*e.Error, "\n", " "))
		}
	}
	return n, true, sc.Err()
}

func runStats(ctx context.Context, args []string) error {
	switch {
	case *out == "":
		return usageError("stats needs --out OUT.json")
	case len(args) < 2 || len(args) > 3:
		return usageError("stats takes SOURCE DATASET [SELECTION]")
	case *groupBytes < 1:
		return usageError("--group-bytes must be positive")
	case *inFlight < 1:
		return usageError("--in-flight must be at least 1")
	}
	if err := checkConcurrency(); err != nil {
		return err
	}
	job := lindibeam.StatsJob{Source: args[0], Dataset: args[1], GroupBytes: *groupBytes, InFlight: *inFlight, Concurrency: *concurrency, Out: *out, Amend: *amend}
	if len(args) == 3 {
		job.Selection = args[2]
	}
	p, s := beam.NewPipelineWithRoot()
	lindibeam.Stats(s, job)
	return beamx.Run(ctx, p)
}
