package lindibeam

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/internal/atomicfile"
	"github.com/lindigo/lindi/io/source"
)

func init() {
	beam.RegisterType(reflect.TypeFor[Result]())
	beam.RegisterType(reflect.TypeFor[Target]())
	register.DoFn4x0[context.Context, string, func(Target), func(Result)](&expandFn{})
	register.Emitter1[Target]()
	register.DoFn4x0[context.Context, Target, func(Result), func(Result)](&indexFn{})
	register.Emitter1[Result]()
	register.DoFn3x1[context.Context, int, func(*Result) bool, error](&manifestFn{})
	register.Iter1[Result]()
}

// Result is what became of one source of an index: its output, or why it
// failed. It is a line of the manifest: {"source", "output", "error"}, error
// null on success.
type Result struct {
	Source string
	Output string
	// Error is empty on success.
	Error string
}

// MarshalJSON writes the manifest line.
func (r Result) MarshalJSON() ([]byte, error) {
	return json.Marshal(r.entry())
}

// entry is r as a line of the manifest.
func (r Result) entry() index.ManifestEntry {
	e := index.ManifestEntry{Source: r.Source, Output: r.Output}
	if r.Error != "" {
		e.Error = &r.Error
	}
	return e
}

// IndexOptions configure Index.
type IndexOptions struct {
	// OutDir is the directory the outputs are written in: a local path
	// every worker sees (a shared file system on a cluster).
	OutDir string
	// Index is the options of each index.
	Index index.Config
	// InFlight bounds the HTTP requests in flight per worker process
	// (DefaultInFlight when 0).
	InFlight int
	// Concurrency is the requests in flight per host: a number, "auto",
	// or "" for the worker's LINDI_CONCURRENCY (else auto).
	Concurrency string
}

// Index indexes each source of srcs (a PCollection of strings: local paths,
// http(s) or s3 URLs, DANDI assets, or a dandiset or folder of one, which
// stands for its HDF5 NWB assets) into OutDir, one .lindi.json per source
// (see Expand for the names), written atomically under that fixed name so
// that a retried bundle rewrites the same file (and leaves it as it was
// when only the creation date would change). It returns the results of the
// sources written and, as a side output, those that failed (a dandiset that
// cannot be listed too): a failure is reported, not a crash of the job.
func Index(s beam.Scope, opts IndexOptions, srcs beam.PCollection) (written, failed beam.PCollection) {
	s = s.Scope("lindi.Index")
	targets, unlisted := beam.ParDo2(s, &expandFn{OutDir: opts.OutDir}, srcs)
	written, failed = beam.ParDo2(s, &indexFn{Config: opts.Index, InFlight: opts.InFlight, Concurrency: opts.Concurrency}, beam.Reshuffle(s, targets))
	return written, beam.Flatten(s, unlisted, failed)
}

// Target is one file to index and where its index goes.
type Target struct {
	Source, Output string
}

// expandFn turns a source into the files to index: a dandiset or a folder
// of one into its *.nwb assets, anything else into itself.
type expandFn struct {
	OutDir string
}

func (f *expandFn) ProcessElement(ctx context.Context, src string, emit func(Target), failed func(Result)) {
	a, err := dandi.ParseAddress(src)
	if err != nil || !a.IsFolder() {
		name := OutputName(src)
		if err == nil && a.Path != "" {
			name = a.Path + ".lindi.json"
		}
		emit(Target{Source: src, Output: filepath.Join(f.OutDir, filepath.FromSlash(name))})
		return
	}
	for asset, err := range dandi.Assets(ctx, src, dandi.WithGlob("*.nwb")) {
		if err != nil {
			indexFailed.Inc(ctx, 1)
			failed(Result{Source: src, Error: err.Error()})
			return
		}
		if asset.IsZarr() { // an NWB Zarr store has nothing to index
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(asset.Path)) { // an archive's answer is not trusted to name our files
			indexFailed.Inc(ctx, 1)
			failed(Result{Source: asset.Address(), Error: fmt.Sprintf("lindibeam: asset path %q leaves the output directory", asset.Path)})
			continue
		}
		emit(Target{Source: asset.Address(), Output: filepath.Join(f.OutDir, filepath.FromSlash(asset.Path+".lindi.json"))})
	}
}

// OutputName is the file name Index gives the output of src: the last
// element of its path (of its URL's path) plus ".lindi.json". A DANDI
// asset's output is named after its path in the dandiset instead
// ("sub-01/sub-01_ecephys.nwb.lindi.json", in a folder of OutDir).
func OutputName(src string) string {
	return filepath.Base(index.DefaultOutput(src))
}

// indexFn indexes one file; its exported fields travel to the workers.
type indexFn struct {
	Config      index.Config
	InFlight    int
	Concurrency string
}

var (
	indexWritten = beam.NewCounter("lindi", "index_written")
	indexFailed  = beam.NewCounter("lindi", "index_failed")
)

func (f *indexFn) ProcessElement(ctx context.Context, t Target, written, failed func(Result)) {
	r := Result{Source: t.Source, Output: t.Output}
	if err := f.index(ctx, t.Source, t.Output); err != nil {
		r.Error = err.Error()
		indexFailed.Inc(ctx, 1)
		failed(r)
		return
	}
	indexWritten.Inc(ctx, 1)
	written(r)
}

func (f *indexFn) index(ctx context.Context, src, out string) error {
	opts, err := f.Config.Options()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	n, err := hostConcurrency(f.Concurrency)
	if err != nil {
		return err
	}
	opts = append(opts, index.WithSourceOptions(source.WithClient(workerClient(f.InFlight)), source.WithConcurrency(n)))
	return index.WriteFile(ctx, src, out, opts...)
}

// WriteManifest writes the results to name as JSON Lines sorted by source,
// atomically, on one worker.
func WriteManifest(s beam.Scope, name string, results ...beam.PCollection) {
	s = s.Scope("lindi.WriteManifest")
	all := beam.Flatten(s, results...)
	grouped := beam.GroupByKey(s, beam.AddFixedKey(s, all))
	beam.ParDo0(s, &manifestFn{Name: name}, grouped)
}

type manifestFn struct {
	Name string
}

func (f *manifestFn) ProcessElement(ctx context.Context, _ int, results func(*Result) bool) error {
	var all []Result
	var r Result
	for results(&r) {
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b Result) int { return strings.Compare(a.Source, b.Source) })
	entries := make([]index.ManifestEntry, len(all))
	for i, r := range all {
		entries[i] = r.entry()
	}
	if err := os.MkdirAll(filepath.Dir(f.Name), 0o755); err != nil {
		return err
	}
	return index.WriteManifest(f.Name, entries)
}

// writeAtomic writes data to name atomically (atomicfile.WriteFile: synced,
// renamed over name, mode 0666 less the umask), making its directory.
func writeAtomic(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(name, data); err != nil {
		return fmt.Errorf("lindibeam: write %s: %w", name, err)
	}
	return nil
}
