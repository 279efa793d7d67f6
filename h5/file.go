package h5

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
)

// Kind is the format a File was opened from.
type Kind int

// The formats Open understands.
const (
	LINDIJSON Kind = iota + 1 // a LINDI JSON reference file
	Zarr                      // a Zarr v2 store: a directory, or a URL
	HDF5                      // an HDF5 file
)

// String names the format.
func (k Kind) String() string {
	switch k {
	case LINDIJSON:
		return "LINDI JSON"
	case Zarr:
		return "Zarr v2"
	case HDF5:
		return "HDF5"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// File is an open file: the root of a tree of groups and datasets.
type File struct {
	name     string
	kind     Kind
	root     *Group
	st       store.Store
	pool     *source.Pool
	fetcher  *fetch.Fetcher
	workers  int
	progress func(done, total int)

	mu   sync.Mutex
	hdf5 map[string]*hdf5.File // HDF5 files opened so far, by name

	// lazy is set for a store that cannot be listed (a Zarr store over HTTP
	// without .zmetadata): groups learn their members as paths are looked up.
	lazy bool
}

// Option configures Open.
type Option func(*options) error

type options struct {
	workers     int
	concurrency int
	cacheBytes  int64 // -1: the default
	progress    func(done, total int)
	sourceOpts  []source.Option
}

// WithCacheBytes bounds the cache of fetched byte ranges of a remote file at n
// bytes; 0 turns caching off. By default the ranges read from http(s) URLs
// are kept in one cache of source.DefaultCacheBytes shared by every file the
// process opens, and local files are not cached (the operating system does).
func WithCacheBytes(n int64) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("h5: WithCacheBytes(%d): must not be negative", n)
		}
		o.cacheBytes = n
		return nil
	}
}

// sharedCache is the default cache of remote byte ranges, for every File.
var sharedCache = sync.OnceValues(func() (*source.LRU, error) { return source.NewLRU(source.DefaultCacheBytes) })

// cacheOption returns the source option that caches the file's byte ranges, or nil.
func (o *options) cacheOption(name string) (source.Option, error) {
	switch {
	case o.cacheBytes == 0, o.cacheBytes < 0 && !store.IsURL(name):
		return nil, nil
	case o.cacheBytes < 0:
		lru, err := sharedCache()
		return source.WithCache(lru), err
	}
	lru, err := source.NewLRU(o.cacheBytes)
	return source.WithCache(lru), err
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

// WithConcurrency sets how many byte-range requests a read may have in flight
// (default: the process-wide limit of fetch.Default). n must be positive.
func WithConcurrency(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("h5: WithConcurrency(%d): must be positive", n)
		}
		o.concurrency = n
		return nil
	}
}

// WithSourceOptions passes options (HTTP client, retries, caching, URL
// resolution) to the byte sources the file reads through.
func WithSourceOptions(opts ...source.Option) Option {
	return func(o *options) error {
		o.sourceOpts = append(o.sourceOpts, opts...)
		return nil
	}
}

// hdf5Signature starts every HDF5 file (at offset 0, 512, 1024, …).
var hdf5Signature = []byte("\x89HDF\r\n\x1a\n")

// Open opens name, a local path or an http(s) URL of a LINDI JSON file, a Zarr
// v2 directory store or an HDF5 file, and reads its object tree.
func Open(ctx context.Context, name string, opts ...Option) (*File, error) {
	o := options{cacheBytes: -1}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	cache, err := o.cacheOption(name)
	if err != nil {
		return nil, fmt.Errorf("h5: open %s: %w", name, err)
	}
	pool, err := source.NewPool(append([]source.Option{cache}, o.sourceOpts...)...)
	if err != nil {
		return nil, fmt.Errorf("h5: open %s: %w", name, err)
	}
	f := &File{name: name, pool: pool, workers: o.workers, progress: o.progress}
	if o.concurrency > 0 {
		if f.fetcher, err = fetch.New(fetch.WithConcurrency(o.concurrency)); err != nil {
			pool.Close()
			return nil, fmt.Errorf("h5: open %s: %w", name, err)
		}
	}
	if err := f.open(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("h5: open %s: %w", name, err)
	}
	return f, nil
}

func (f *File) open(ctx context.Context) error {
	if !store.IsURL(f.name) {
		st, err := os.Stat(f.name)
		if err != nil {
			return err
		}
		if st.IsDir() {
			return f.openZarrDir(ctx)
		}
	}
	if store.IsURL(f.name) && isJSONURL(f.name) {
		return f.openLINDI(ctx) // saves the round trip that sniffing the format costs
	}
	head, err := f.head(ctx)
	switch {
	case err != nil && !(store.IsURL(f.name) && notFound(err)):
		return err
	case err != nil:
		// A URL that is no file may be the root of a Zarr store.
		return f.openZarrURL(ctx)
	case bytes.HasPrefix(head, hdf5Signature):
		return f.openHDF5(ctx)
	case bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("{")):
		return f.openLINDI(ctx)
	}
	// The HDF5 superblock may follow a user block (at 512, 1024, … bytes).
	err = f.openHDF5(ctx)
	switch {
	case !errors.Is(err, hdf5.ErrNotHDF5):
		return err
	case store.IsURL(f.name):
		return f.openZarrURL(ctx)
	}
	return fmt.Errorf("%w: not a LINDI JSON file, a Zarr directory or an HDF5 file", ErrFormat)
}

// openZarrURL opens a Zarr v2 store served over HTTP, with its consolidated
// metadata when it has .zmetadata.
func (f *File) openZarrURL(ctx context.Context) error {
	base := strings.TrimRight(f.name, "/")
	consolidated, err := f.readAll(ctx, base+"/.zmetadata")
	if err != nil && !notFound(err) {
		return err
	}
	st, err := store.NewRemote(base, consolidated)
	if err != nil {
		return err
	}
	f.st = st
	if _, err := f.meta(ctx, ".zgroup"); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w: not a LINDI JSON file, an HDF5 file or a Zarr group (no %s/.zgroup)", ErrFormat, base)
		}
		return err
	}
	f.kind = Zarr
	f.lazy = !st.Listable()
	return f.buildTree(ctx, st)
}

// isJSONURL reports whether a URL's path ends in ".json".
func isJSONURL(name string) bool {
	u, err := url.Parse(name)
	return err == nil && strings.HasSuffix(strings.ToLower(u.Path), ".json")
}

// notFound reports whether err says that an object does not exist.
func notFound(err error) bool {
	var he *source.HTTPError
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, store.ErrNotFound) || errors.As(err, &he) && he.Status == http.StatusNotFound
}

// head reads the first bytes of the file to tell its format.
func (f *File) head(ctx context.Context) ([]byte, error) {
	src, err := f.pool.Open(ctx, f.name)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 64)
	n, err := src.ReadAt(ctx, buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:n], nil
}

func (f *File) openZarrDir(ctx context.Context) error {
	st, err := store.OpenDir(f.name)
	if err != nil {
		return err
	}
	f.st = st
	if _, err := f.meta(ctx, ".zgroup"); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%w: a directory that is not a Zarr group (no .zgroup)", ErrFormat)
		}
		return err
	}
	f.kind = Zarr
	return f.buildTree(ctx, st)
}

func (f *File) openLINDI(ctx context.Context) error {
	data, err := f.readAll(ctx, f.name)
	if err != nil {
		return err
	}
	st, err := store.ParseLINDI(f.name, data)
	if err != nil {
		return err
	}
	f.kind = LINDIJSON
	return f.buildTree(ctx, st)
}

// maxMetadataSize caps the size of one metadata document (a LINDI JSON file).
const maxMetadataSize = 1 << 30

// readAll reads a whole object through the file's source pool.
func (f *File) readAll(ctx context.Context, name string) ([]byte, error) {
	return f.readMeta(ctx, name, 0, -1)
}

// readMeta reads n bytes at off of the object name (to its end when n < 0),
// a metadata document of bounded size. A local file is opened for the read
// alone (a Zarr directory holds one per group and array); a URL goes through
// the file's source pool.
func (f *File) readMeta(ctx context.Context, name string, off, n int64) ([]byte, error) {
	var src source.Source = chunkFile(name)
	if store.IsURL(name) {
		var err error
		if src, err = f.pool.Open(ctx, name); err != nil {
			return nil, err
		}
	}
	if n < 0 {
		size, err := src.Size(ctx)
		if err != nil {
			return nil, err
		}
		n = size - off
	}
	return readRange(ctx, src, off, n)
}

func readRange(ctx context.Context, src source.Source, off, n int64) ([]byte, error) {
	if n > maxMetadataSize {
		return nil, fmt.Errorf("%s: %d bytes is too large for a metadata file", src.Name(), n)
	}
	buf := make([]byte, n)
	got, err := src.ReadAt(ctx, buf, off)
	if got == len(buf) {
		return buf, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = fmt.Errorf("%s: %d bytes at %d: %w", src.Name(), n, off, io.ErrUnexpectedEOF)
	}
	return nil, err
}

// Name is the path or URL the file was opened from.
func (f *File) Name() string { return f.name }

// Kind is the format the file was opened from.
func (f *File) Kind() Kind { return f.kind }

// Root returns the root group.
func (f *File) Root() *Group { return f.root }

// Get returns the object at the absolute path (leading "/" optional), following soft links.
func (f *File) Get(path string) (Object, error) {
	return f.root.Get("/" + strings.TrimPrefix(path, "/"))
}

// Group returns the group at path.
func (f *File) Group(path string) (*Group, error) {
	return f.root.Group("/" + strings.TrimPrefix(path, "/"))
}

// Dataset returns the dataset at path.
func (f *File) Dataset(path string) (*Dataset, error) {
	return f.root.Dataset("/" + strings.TrimPrefix(path, "/"))
}

// Deref returns the object a reference points at.
func (f *File) Deref(r Reference) (Object, error) { return f.Get(r.Path) }

// Stats returns the I/O statistics of every object the file has read from.
func (f *File) Stats() []source.NamedStats { return f.pool.Stats() }

// Close releases the file's sources. Reads in progress fail.
func (f *File) Close() error { return f.pool.Close() }
