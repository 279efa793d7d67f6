package lindibeam

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/io/source"
)

func init() {
	beam.RegisterType(reflect.TypeFor[Result]())
	register.DoFn4x0[context.Context, Asset, func(Result), func(Result)](&indexFn{})
	register.Function1x1(failedResult)
	register.Emitter1[Result]()
	register.DoFn3x1[context.Context, []byte, func(*Result) bool, error](&manifestFn{})
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
	// every worker sees (a shared file system on a cluster), or the URL of
	// a folder of a file system registered with Beam (gs://BUCKET/DIR,
	// s3://BUCKET/DIR, memfs://DIR).
	OutDir string
	// Shard, when set, keeps only the DANDI assets of one shard (see
	// ExpandShard).
	Shard Shard
	// Index is the options of each index.
	Index index.Config
	// InFlight bounds the HTTP requests in flight per worker process
	// (DefaultInFlight when 0).
	InFlight int
	// Concurrency is the requests in flight per host: a number, "auto",
	// or "" for the worker's LINDI_CONCURRENCY (else auto).
	Concurrency string
}

// Index indexes each source of srcs (a PCollection of strings, as
// ExpandAssets takes them: local paths, http(s) or s3 URLs, DANDI assets, or
// a dandiset or folder of one, which stands for its HDF5 NWB assets) into
// OutDir, one OutDir/NAME.lindi.json per asset (NAME its Asset.Name, so
// that distinct sources never share an output), written whole or not at
// all under that fixed name, so that a retried bundle rewrites the same
// file: locally to a temporary file renamed into place (left as it was
// when only the creation date would change), created 0666 less the umask;
// in an object store uploaded whole (WriteOutput). It
// returns the results of the assets written and, as a side output, those
// that failed (a dandiset that cannot be listed, sources that would share
// a name): a failure is reported, not a crash of the job. Index panics on
// an opts.Shard out of range.
func Index(s beam.Scope, opts IndexOptions, srcs beam.PCollection) (written, failed beam.PCollection) {
	s = s.Scope("lindi.Index")
	assets, unlisted := ExpandShard(s, opts.Shard, srcs)
	written, failed = beam.ParDo2(s, &indexFn{OutDir: opts.OutDir, Config: opts.Index, InFlight: opts.InFlight, Concurrency: opts.Concurrency}, beam.Reshuffle(s, assets))
	return written, beam.Flatten(s, beam.ParDo(s, failedResult, unlisted), failed)
}

// failedResult is the manifest's line of a failure.
func failedResult(f Failure) Result { return Result{Source: f.Source, Error: f.Error} }

// OutputName is the file name, relative to the output directory, Index
// gives the output of the asset named name (Asset.Name).
func OutputName(name string) string {
	return filepath.FromSlash(name) + ".lindi.json"
}

// outputPath is where Index writes the output of the asset named name in
// dir, a local directory or the URL of one.
func outputPath(dir, name string) string {
	if isLocal(dir) {
		return filepath.Join(dir, OutputName(name))
	}
	return strings.TrimSuffix(dir, "/") + "/" + name + ".lindi.json"
}

// indexFn indexes one file; its exported fields travel to the workers.
type indexFn struct {
	OutDir      string
	Config      index.Config
	InFlight    int
	Concurrency string
}

var (
	indexWritten = beam.NewCounter("lindi", "index_written")
	indexFailed  = beam.NewCounter("lindi", "index_failed")
)

func (f *indexFn) ProcessElement(ctx context.Context, a Asset, written, failed func(Result)) {
	r := Result{Source: a.Source, Output: outputPath(f.OutDir, a.Name)}
	if err := f.index(ctx, a.Source, r.Output); err != nil {
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
	n, err := hostConcurrency(f.Concurrency)
	if err != nil {
		return err
	}
	opts = append(opts, index.WithSourceOptions(source.WithClient(workerClient(f.InFlight)), source.WithConcurrency(n)))
	if isLocal(out) {
		if err := os.MkdirAll(filepath.Dir(out), 0o777); err != nil {
			return err
		}
		return index.WriteFile(ctx, src, out, opts...)
	}
	// Another file system: index to a local temporary, then upload it
	// whole. The refs name src as given when a URL, by its absolute path
	// when local.
	tmp, err := os.MkdirTemp("", "lindibeam-index-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	staged := filepath.Join(tmp, path.Base(out))
	if err := index.WriteFile(ctx, src, staged, opts...); err != nil {
		return err
	}
	doc, err := os.ReadFile(staged)
	if err != nil {
		return err
	}
	return WriteOutput(ctx, out, doc)
}

// WriteManifest writes the results to name (a local path, or a gs://, s3://
// or memfs:// URL) as JSON Lines sorted by source, whole or not at all
// (WriteOutput), on one worker; with no results the file is empty.
func WriteManifest(s beam.Scope, name string, results ...beam.PCollection) {
	s = s.Scope("lindi.WriteManifest")
	all := beam.Flatten(s, results...)
	beam.ParDo0(s, &manifestFn{Name: name}, beam.Impulse(s), beam.SideInput{Input: all})
}

type manifestFn struct {
	Name string
}

func (f *manifestFn) ProcessElement(ctx context.Context, _ []byte, results func(*Result) bool) error {
	var all []Result
	var r Result
	for results(&r) {
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b Result) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.Output, b.Output))
	})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range all {
		if err := enc.Encode(r.entry()); err != nil {
			return err
		}
	}
	return WriteOutput(ctx, f.Name, buf.Bytes())
}
