package h5

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/io/source"
)

// File is an open file: the root of a tree of groups and datasets.
type File struct {
	name     string
	base     string // where relative names resolve: name, or "" for bytes with no location
	format   string
	root     *Group
	tree     *tree
	env      *driver.Env
	fetcher  *fetch.Fetcher
	workers  int
	maxRead  int64
	progress func(done, total int)
	// ext holds the files external links opened.
	ext *externals
	// ed changes the file when it was opened for writing; nil otherwise.
	ed driver.Editor
	// docFn gives the file's LINDI document (Document); nil for none.
	docFn func(context.Context) ([]byte, error)
	// writeErr is the first write that failed part way (failIf).
	failMu   sync.Mutex
	writeErr error
}

// Option configures Open.
type Option func(*options) error

type options struct {
	workers     int
	concurrency int
	cacheBytes  int64 // -1: the default
	metaBytes   int64
	maxRead     int64
	maxMeta     int64
	outside     bool
	progress    func(done, total int)
	codecs      *codecs.Registry
	sourceOpts  []source.Option
	diskDir     string // "" for LINDI_CACHE_DIR's
	diskBytes   int64
	diskOff     bool
	replace     bool // WithReplace
	root        *os.Root
	localOnly   bool
}

// CacheDirEnv names the environment variable that turns the disk cache on
// (WithDiskCache) for every file opened without that option.
const CacheDirEnv = "LINDI_CACHE_DIR"

// WithDiskCache keeps the byte ranges read from remote files (http(s),
// s3) in the directory dir, bounded at maxBytes (source.DefaultDiskCacheBytes
// when 0), so that later processes read them from disk: each then asks the
// server once per file whether it changed (by ETag or size). Several
// processes may share dir. Without this option the directory named by
// LINDI_CACHE_DIR, if set, is used; WithDiskCache("", 0) turns that off.
func WithDiskCache(dir string, maxBytes int64) Option {
	return func(o *options) error {
		if maxBytes < 0 {
			return fmt.Errorf("h5: WithDiskCache(%q, %d): capacity must not be negative", dir, maxBytes)
		}
		o.diskDir, o.diskBytes, o.diskOff = dir, maxBytes, dir == ""
		return nil
	}
}

// WithCacheBytes bounds the cache of byte ranges the file fetches at n bytes;
// 0 turns caching off. By default a file read over http(s) caches up to
// source.DefaultCacheBytes, and a local file is not cached (the operating
// system does).
func WithCacheBytes(n int64) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("h5: WithCacheBytes(%d): must not be negative", n)
		}
		o.cacheBytes = n
		return nil
	}
}

// WithMetadataCacheBytes bounds the memory of the metadata page cache of each
// HDF5 file read (object headers, B-trees, heaps); the default is the hdf5
// package's. n must be positive.
func WithMetadataCacheBytes(n int64) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("h5: WithMetadataCacheBytes(%d): must be positive", n)
		}
		o.metaBytes = n
		return nil
	}
}

// DefaultMaxMetadataBytes is the default of WithMaxMetadataBytes.
const DefaultMaxMetadataBytes = driver.DefaultMaxMetadataBytes

// WithMaxMetadataBytes bounds the size of one metadata document the file
// reads (a LINDI JSON file, a Zarr .zarray, .zattrs or .zmetadata) at n
// bytes (default DefaultMaxMetadataBytes); a larger one fails with
// ErrFormat before it is read. n must be positive.
func WithMaxMetadataBytes(n int64) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("h5: WithMaxMetadataBytes(%d): must be positive", n)
		}
		o.maxMeta = n
		return nil
	}
}

// WithOutsideSymlinks lets a Zarr directory store follow symbolic links that
// lead out of its directory, which are refused by default (a store received
// from someone else could otherwise link a chunk to any file of the reader's).
func WithOutsideSymlinks() Option {
	return func(o *options) error {
		o.outside = true
		return nil
	}
}

// WithProgress makes every read of the file call fn after each chunk it
// decodes, with the chunks done so far and the chunks the read touches. fn is
// called from several goroutines at once and must be quick.
func WithProgress(fn func(done, total int)) Option {
	return func(o *options) error {
		o.progress = fn
		return nil
	}
}

// WithWorkers sets how many goroutines decode chunks during a read (default
// GOMAXPROCS). n must be positive.
func WithWorkers(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("h5: WithWorkers(%d): must be positive", n)
		}
		o.workers = n
		return nil
	}
}

// WithConcurrency fixes how many byte-range requests a read may have in
// flight, and how many run at once against each host, at n (default:
// LINDI_CONCURRENCY, else "auto": each host's limit adapts to what its
// server takes; see source.WithConcurrency). n must be positive.
func WithConcurrency(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("h5: WithConcurrency(%d): must be positive", n)
		}
		o.concurrency = n
		return nil
	}
}

// WithCodecs decodes the file's chunks with the codecs of r instead of the
// built-in ones (codecs.NewRegistry returns the built-ins, to extend).
func WithCodecs(r *codecs.Registry) Option {
	return func(o *options) error {
		if r == nil {
			return errors.New("h5: WithCodecs(nil)")
		}
		o.codecs = r
		return nil
	}
}

// WithSourceOptions passes options (HTTP client, retries, timeouts, URL
// resolution) to the byte sources the file reads through. Caching is set by
// WithCacheBytes, which overrides a source.WithCache given here.
func WithSourceOptions(opts ...source.Option) Option {
	return func(o *options) error {
		o.sourceOpts = append(o.sourceOpts, opts...)
		return nil
	}
}

// pool opens the byte sources of the file called name.
func (o *options) pool(name string) (*source.Pool, error) {
	opts := o.sourceOpts
	if o.concurrency > 0 {
		// Open as many connections ahead as reads will use (unless the
		// caller's source options say otherwise).
		opts = append([]source.Option{source.WithWarmConns(o.concurrency), source.WithConcurrency(o.concurrency)}, opts...)
	}
	if dir := cmp.Or(o.diskDir, os.Getenv(CacheDirEnv)); dir != "" && !o.diskOff {
		d, err := source.NewDiskCache(dir, o.diskBytes)
		if err != nil {
			return nil, err
		}
		opts = append(slices.Clip(opts), source.WithDiskCache(d))
	}
	if o.cacheBytes > 0 || o.cacheBytes < 0 && isURL(name) {
		n := o.cacheBytes
		if n < 0 {
			n = source.DefaultCacheBytes
		}
		lru, err := source.NewLRU(n)
		if err != nil {
			return nil, err
		}
		opts = append(opts, source.WithCache(lru))
	}
	return source.NewPool(opts...)
}

// Open opens name, a local path or an http(s) URL of a LINDI JSON file, a
// LINDI tar (.lindi.tar) or directory (.lindi.d), a Zarr v2 store or an HDF5
// file; the format is told by content, not by name. It reads the object tree
// of a LINDI file (a remote .lindi.json in one request) or a Zarr store; of
// an HDF5 file it reads the superblock and the root group, and the rest as it
// is asked for.
//
// A name a registered source.Locator knows is opened where it locates it.
// A program that imports package dandi (for its effect, as image/png is
// imported: _ "github.com/lindigo/lindi/dandi") has DANDI's: a DANDI
// asset's address (dandi://dandi/000409@draft/sub-01/x.nwb, the archive's
// API and web URLs) opens the asset's blob or Zarr store, or its
// precomputed LINDI file when one is asked for (LINDI_PRECOMPUTED_LINDI,
// or a dandi.Client's WithPrecomputed given by source.WithLocator) and
// passes its checks; the file keeps name as its Name.
func Open(ctx context.Context, name string, opts ...Option) (*File, error) {
	loc, err := locate(ctx, name, opts)
	if err != nil {
		return nil, fmt.Errorf("h5: open %s: %w", source.Redact(name), err)
	}
	if len(loc.Options) > 0 {
		opts = append(slices.Clip(opts), WithSourceOptions(loc.Options...))
	}
	if loc.Content != nil {
		return openSource(ctx, source.NewBytes(name, loc.Content), loc.URL, opts)
	}
	f, err := newFile(name, loc.URL, opts)
	if err != nil {
		return nil, err
	}
	in, err := f.input()
	if err != nil {
		f.env.Pool.Close()
		return nil, fmt.Errorf("h5: open %s: %w", source.Redact(name), err)
	}
	return f.start(ctx, in, opts)
}

// newFile makes a File and its byte sources from the options.
func newFile(name, base string, opts []Option) (*File, error) {
	o := options{cacheBytes: -1, codecs: codecs.Builtin(), maxRead: DefaultMaxReadBytes()}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	pool, err := o.pool(base)
	if err != nil {
		return nil, fmt.Errorf("h5: open %s: %w", source.Redact(name), err)
	}
	f := &File{
		name: name, base: base, workers: o.workers, progress: o.progress, maxRead: o.maxRead,
		env: &driver.Env{
			Pool: pool, Codecs: o.codecs, HDF5CacheBytes: o.metaBytes,
			MaxMetadataBytes: o.maxMeta, FollowOutside: o.outside && o.root == nil, HDF5: hdf5Datasets,
		},
	}
	if o.concurrency > 0 {
		if f.fetcher, err = fetch.New(fetch.WithConcurrency(o.concurrency)); err != nil {
			pool.Close()
			return nil, fmt.Errorf("h5: open %s: %w", source.Redact(name), err)
		}
	}
	return f, nil
}

// start reads the tree of the file in describes.
func (f *File) start(ctx context.Context, in *driver.Input, opts []Option) (*File, error) {
	if err := f.open(ctx, in); err != nil {
		f.env.Pool.Close()
		return nil, fmt.Errorf("h5: open %s: %w", source.Redact(f.name), unprefixed{err})
	}
	f.ext = newExternals(f, opts)
	return f, nil
}

// readerName is the name of a file opened by OpenReaderAt, in errors and Stats.
const readerName = "io.ReaderAt"

// OpenReaderAt opens the size bytes of r, an HDF5 file or a LINDI JSON
// document (told by content), and reads its object tree, as Open does for a
// named file: the caller already holds the bytes (an S3 SDK object, a file
// in memory). r must be safe for concurrent use, as io.ReaderAt's contract
// says, and must not change while the File is open. The bytes have no
// location, so a LINDI document's refs and an HDF5 file's external links
// must be absolute URLs: they never reach local files.
func OpenReaderAt(ctx context.Context, r io.ReaderAt, size int64, opts ...Option) (*File, error) {
	src, err := source.NewReader(readerName, r, size)
	if err != nil {
		return nil, fmt.Errorf("h5: open %s: %w", readerName, err)
	}
	return openSource(ctx, src, "", opts)
}

// OpenRefs opens a parsed reference document: LINDI JSON or kerchunk refs
// as a Go value, as encoding/json decodes them. doc is either the whole
// document ({"version": 1, "refs": {…}, "templates": {…}, "gen": […]}) or
// its refs alone (keys such as ".zgroup" and "a/0.0"). Relative refs
// resolve against base, a local path or URL, as if the document were a file
// there; with base "" every ref must be an absolute URL. A document with a
// remote base, like one read over HTTP, never reaches local files.
func OpenRefs(ctx context.Context, doc map[string]any, base string, opts ...Option) (*File, error) {
	if _, ok := doc["refs"].(map[string]any); !ok {
		doc = map[string]any{"version": 1, "refs": doc}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%w: refs: %v", ErrFormat, err)
	}
	name := cmp.Or(base, "refs")
	return openSource(ctx, source.NewBytes(name, b), base, opts)
}

// openSource opens the bytes of src, whose relative names resolve against
// base.
func openSource(ctx context.Context, src source.Source, base string, opts []Option) (*File, error) {
	f, err := newFile(src.Name(), base, opts)
	if err != nil {
		return nil, err
	}
	in, err := driver.NewSourceInput(f.env, src, base)
	if err != nil {
		f.env.Pool.Close()
		return nil, fmt.Errorf("h5: open %s: %w", source.Redact(src.Name()), err)
	}
	return f.start(ctx, in, opts)
}

// open gives the file to the first driver sure of its format, or else tries
// those that might read it, in order. A driver that cannot tell (its Sniff
// failed: the file cannot be read, say) is passed over; its error is the
// answer when no driver takes the file. When the failure is the network's
// (no HTTP answer at all: refused, unreachable), no driver can read the
// file, and the error names the URL given rather than what a guessing
// driver would try next (a Zarr store's .zmetadata).
func (f *File) open(ctx context.Context, in *driver.Input) error {
	var maybe []driver.Driver
	var sniffErr error
	for _, d := range drivers {
		m, err := d.Sniff(ctx, in)
		switch {
		case err != nil:
			sniffErr = cmp.Or(sniffErr, err)
		case m == driver.Yes:
			return f.openWith(ctx, d, in)
		case m == driver.Maybe:
			maybe = append(maybe, d)
		}
	}
	var netErr *net.OpError
	if in.URL && errors.As(sniffErr, &netErr) {
		return sniffErr
	}
	if in.URL && len(maybe) > 1 {
		// Each guess costs round trips (a Zarr v2 store's .zmetadata and
		// .zgroup, a Zarr v3 store's zarr.json, a .lindi.d's lindi.json):
		// over the network they are made at once, and the first driver, in
		// order, that takes the file wins, as if they had been tried in turn.
		if done, err := f.openFirst(ctx, maybe, in); done {
			return err
		}
	} else {
		for _, d := range maybe {
			if err := f.openWith(ctx, d, in); !errors.Is(err, driver.ErrNotMine) {
				return err
			}
		}
	}
	if sniffErr != nil {
		return sniffErr
	}
	if _, err := in.Head(ctx); err != nil && driver.NotFound(err) {
		return err // a URL that answers 404 is missing, not malformed
	}
	return errUnknownFormat{}
}

// errUnknownFormat is the error for a file no driver takes (a text file, a
// directory that is no Zarr store): an ErrFormat.
type errUnknownFormat struct{}

func (errUnknownFormat) Error() string        { return "not an HDF5, LINDI or Zarr file" }
func (errUnknownFormat) Is(target error) bool { return target == ErrFormat }

// input describes the file, at its base, to the drivers. A name that is neither a URL nor
// an existing path is left to them (a driver may read other names).
func (f *File) input() (*driver.Input, error) {
	if isURL(f.base) {
		return driver.NewInput(f.env, f.base, true, false), nil
	}
	st, err := os.Stat(f.base)
	if errors.Is(err, fs.ErrNotExist) {
		return driver.NewInput(f.env, f.base, false, false), nil
	}
	if err != nil {
		return nil, err
	}
	return driver.NewInput(f.env, f.base, false, st.IsDir()), nil
}

func (f *File) openWith(ctx context.Context, d driver.Driver, in *driver.Input) error {
	root, err := d.Open(ctx, f.env, in)
	if err != nil {
		return err
	}
	return f.use(ctx, d, root)
}

// openFirst opens in with every driver of ds concurrently and keeps the
// first, in the order of ds, that does not say ErrNotMine; done is false when
// every one said it. The later drivers' opens are cancelled once an earlier
// one has answered.
func (f *File) openFirst(ctx context.Context, ds []driver.Driver, in *driver.Input) (done bool, err error) {
	type result struct {
		root *driver.Group
		err  error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]chan result, len(ds))
	for i, d := range ds {
		results[i] = make(chan result, 1)
		go func() {
			root, err := d.Open(ctx, f.env, in)
			results[i] <- result{root, err}
		}()
	}
	for i, d := range ds {
		r := <-results[i]
		if errors.Is(r.err, driver.ErrNotMine) {
			continue
		}
		if r.err != nil {
			return true, r.err
		}
		return true, f.use(ctx, d, r.root)
	}
	return false, nil
}

// use makes root, as driver d opened it, the file's tree.
func (f *File) use(ctx context.Context, d driver.Driver, root *driver.Group) error {
	f.format, f.docFn = d.Name(), root.Document
	f.tree = newTree(f)
	f.root = f.tree.group(root, "/")
	return f.root.completed(ctx)
}

// isURL reports whether name is a remote URL (http, https or s3) rather
// than a local path, by the rule the drivers and stores apply.
func isURL(name string) bool { return source.IsURL(name) }

// Name is the path or URL the file was opened from, with any password redacted.
func (f *File) Name() string { return source.Redact(f.name) }

// Format names the format the file was opened from: "LINDI JSON", "LINDI
// tar", "LINDI directory", "Zarr v2" or "HDF5".
func (f *File) Format() string { return f.format }

// Root returns the root group.
func (f *File) Root() *Group { return f.root }

// Get returns the object at the absolute path (leading "/" optional),
// following soft links (see Group.Get).
func (f *File) Get(ctx context.Context, path string) (Object, error) {
	return f.root.Get(ctx, "/"+strings.TrimPrefix(path, "/"))
}

// Group returns the group at path.
func (f *File) Group(ctx context.Context, path string) (*Group, error) {
	return f.root.Group(ctx, "/"+strings.TrimPrefix(path, "/"))
}

// Dataset returns the dataset at path.
func (f *File) Dataset(ctx context.Context, path string) (*Dataset, error) {
	return f.root.Dataset(ctx, "/"+strings.TrimPrefix(path, "/"))
}

// Deref returns the object a reference points at.
func (f *File) Deref(ctx context.Context, r Reference) (Object, error) { return f.Get(ctx, r.Path) }

// Stats returns the I/O statistics of every object the file has read from.
func (f *File) Stats() []source.NamedStats { return f.env.Pool.Stats() }

// Close releases the file's sources and those of the files its external
// links opened. Reads in progress fail.
//
// A file opened for writing is committed first (see Flush), then its lock
// released; the error says when the commit failed.
func (f *File) Close() error {
	var err error
	if f.ed != nil {
		err = f.closeWritable()
	}
	if f.ext != nil {
		f.ext.close()
	}
	return errors.Join(err, f.env.Pool.Close())
}
