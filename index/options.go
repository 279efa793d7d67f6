package index

import (
	"fmt"
	"github.com/lindigo/lindi/internal/engine"

	"github.com/lindigo/lindi/io/source"
)

// Defaults, as Python lindi's LindiH5ZarrStoreOpts has them.
const (
	// DefaultChunkThreshold is the number of chunks above which a dataset
	// becomes an _EXTERNAL_ARRAY_LINK.
	DefaultChunkThreshold = 1000
	// DefaultSplitBytes is the size of the chunks a large contiguous
	// dataset is split into.
	DefaultSplitBytes = 20_000_000
	// inlineElements: numeric datasets of fewer elements are inlined.
	inlineElements = 1000
	// templateMin: a URL named this many times becomes a template.
	templateMin = 5
)

// Option configures Build and WriteFile.
type Option func(*options) error

type options struct {
	threshold   int // 0: list every chunk
	splitBytes  int64
	concurrency int
	url         string
	tool        string
	relative    bool
	source      []source.Option
	files       engine.FileOpener // opens virtual datasets' source files; nil: sourceFiles
}

func newOptions(opts []Option) (*options, error) {
	o := &options{threshold: DefaultChunkThreshold, splitBytes: DefaultSplitBytes, concurrency: 128, tool: "lindi-go"}
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// AllChunks lists the chunks of every dataset, however many, instead of
// linking datasets of more than DefaultChunkThreshold chunks to the HDF5 file.
func AllChunks() Option {
	return func(o *options) error { o.threshold = 0; return nil }
}

// WithChunkThreshold sets the number of chunks above which a dataset becomes
// an _EXTERNAL_ARRAY_LINK; n must be positive.
func WithChunkThreshold(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("index: WithChunkThreshold(%d): must be positive", n)
		}
		o.threshold = n
		return nil
	}
}

// WithConcurrency sets how many datasets have their chunk indexes read at
// once (default 128); n must be positive.
func WithConcurrency(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("index: WithConcurrency(%d): must be positive", n)
		}
		o.concurrency = n
		return nil
	}
}

// WithURL sets the URL or path the refs name for the HDF5 file (default: the
// name it was opened from; in WriteFile, see RelativeRefs). A relative path
// ("./x.h5") is resolved by lindi-go against the location of the JSON file,
// not by Python lindi.
func WithURL(u string) Option {
	return func(o *options) error {
		if u == "" {
			return fmt.Errorf("index: WithURL(\"\"): empty")
		}
		o.url = u
		return nil
	}
}

// RelativeRefs makes WriteFile name a local source that lies in the output's
// directory "./NAME", so that the two can move together; a source elsewhere
// is still named by its absolute path. Readers must resolve "./NAME" against
// the JSON's location: lindi-go does, Python lindi (0.4.5) does not (it
// resolves "./" only inside a .lindi.tar or .lindi.d and fails to read such
// a .lindi.json). Without it WriteFile names a local source by its absolute
// path, which both read. Build ignores it.
func RelativeRefs() Option {
	return func(o *options) error { o.relative = true; return nil }
}

// WithTool names the program recorded in generationMetadata (default
// "lindi-go").
func WithTool(name string) Option {
	return func(o *options) error { o.tool = name; return nil }
}

// WithSourceOptions passes opts to source.Open when WriteFile opens its
// source (an HTTP client bounding the requests in flight, a retry policy, …)
// and when Build opens the source files of a virtual dataset.
func WithSourceOptions(opts ...source.Option) Option {
	return func(o *options) error { o.source = append(o.source, opts...); return nil }
}

// WithFileOpener makes Build open the HDF5 files the mappings of a virtual
// dataset name through open (the HDF5 driver's sources and their guards),
// so that a small virtual dataset is inlined with its values, as lindi
// inlines it. Without it they open through source.Open with the
// WithSourceOptions options, resolved against the file's name as LINDI
// refs are.
func WithFileOpener(open engine.FileOpener) Option {
	return func(o *options) error { o.files = open; return nil }
}
