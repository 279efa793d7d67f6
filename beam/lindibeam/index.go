package lindibeam

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	register.DoFn4x0[context.Context, string, func(Result), func(Result)](&indexFn{})
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
	var e *string
	if r.Error != "" {
		e = &r.Error
	}
	return json.Marshal(struct {
		Source string  `json:"source"`
		Output string  `json:"output"`
		Error  *string `json:"error"`
	}{r.Source, r.Output, e})
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
}

// Index indexes each source of srcs (a PCollection of strings: local paths,
// http(s) or s3 URLs) into OutDir, one NAME.lindi.json per source named
// after its last path element, written atomically under that fixed name so
// that a retried bundle rewrites the same file (and leaves it as it was
// when only the creation date would change). It returns the results of the
// sources written and, as a side output, those that failed: a failure is
// reported, not a crash of the job.
func Index(s beam.Scope, opts IndexOptions, srcs beam.PCollection) (written, failed beam.PCollection) {
	s = s.Scope("lindi.Index")
	return beam.ParDo2(s, &indexFn{OutDir: opts.OutDir, Config: opts.Index, InFlight: opts.InFlight}, srcs)
}

// OutputName is the file name Index gives the output of src: the last
// element of its path (of its URL's path) plus ".lindi.json".
func OutputName(src string) string {
	return filepath.Base(index.DefaultOutput(src))
}

// indexFn indexes one source; its exported fields travel to the workers.
type indexFn struct {
	OutDir   string
	Config   index.Config
	InFlight int
}

var (
	indexWritten = beam.NewCounter("lindi", "index_written")
	indexFailed  = beam.NewCounter("lindi", "index_failed")
)

func (f *indexFn) ProcessElement(ctx context.Context, src string, written, failed func(Result)) {
	out := filepath.Join(f.OutDir, OutputName(src))
	r := Result{Source: src, Output: out}
	if err := f.index(ctx, src, out); err != nil {
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
	opts = append(opts, index.WithSourceOptions(source.WithClient(workerClient(f.InFlight))))
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
	var buf bytes.Buffer
	for _, r := range all {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf.Write(append(b, '\n'))
	}
	return writeAtomic(f.Name, buf.Bytes())
}

// writeAtomic writes data to a temporary file beside name, then renames it
// over name.
func writeAtomic(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+path.Base(filepath.ToSlash(name))+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("lindibeam: write %s: %w", name, err)
	}
	return nil
}
