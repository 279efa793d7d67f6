// Package hdf5 is the driver of HDF5 files: it turns the objects package
// hdf5 reads into the driver's tree, and its datasets' chunk locators into
// the engine's.
package hdf5

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

func init() { driver.Register(hdf5Driver{}) }

// signature starts every HDF5 file (at offset 0, 512, 1024, …).
var signature = []byte("\x89HDF\r\n\x1a\n")

type hdf5Driver struct{}

func (hdf5Driver) Name() string { return "HDF5" }

// Sniff says Yes to the HDF5 signature at offset 0 and Maybe to any other
// file: its superblock may follow a user block (at 512, 1024, … bytes). A
// URL ending in .json is LINDI JSON's, without a look.
func (hdf5Driver) Sniff(ctx context.Context, in *driver.Input) (driver.Match, error) {
	if in.Dir || in.JSONURL() || in.StoreURL() {
		return driver.No, nil
	}
	head, err := in.SniffHead(ctx)
	switch {
	case err != nil:
		return driver.No, err
	case len(head) == 0: // no file at the URL, or an empty one
		return driver.No, nil
	case bytes.HasPrefix(head, signature):
		return driver.Yes, nil
	}
	return driver.Maybe, nil
}

func (hdf5Driver) Open(ctx context.Context, env *driver.Env, in *driver.Input) (*driver.Group, error) {
	head, err := in.Head(ctx)
	if err != nil {
		return nil, err
	}
	hf, err := open(ctx, env, in.Name, head)
	if errors.Is(err, hdf5.ErrNotHDF5) {
		return nil, fmt.Errorf("%w: %w", driver.ErrNotMine, err)
	}
	if err != nil {
		return nil, err
	}
	b := &builder{env: env, hf: hf, groups: map[uint64]*driver.Group{}}
	root := b.group(hf.Root(), "/")
	if Index != nil {
		url := in.Name
		if !store.IsURL(url) {
			if url, err = filepath.Abs(url); err != nil {
				return nil, err
			}
		}
		root.Document = func(ctx context.Context) ([]byte, error) { return Index(ctx, hf, url) }
	}
	return root, nil
}

// Index builds the LINDI JSON of an HDF5 file, its refs naming the file by
// url: set by package index, which is built on this one, from its init
// function (h5 imports it for that).
var Index func(ctx context.Context, f *hdf5.File, url string) ([]byte, error)

// open opens (once per file) the HDF5 file at name through the file's
// sources; head, when not nil, is its first bytes, already read.
func open(ctx context.Context, env *driver.Env, name string, head []byte) (*hdf5.File, error) {
	v, err := env.Memo("hdf5:"+name, func() (any, error) {
		src, err := env.Pool.Open(ctx, name)
		if err != nil {
			return nil, err
		}
		opts := []hdf5.Option{hdf5.WithCodecs(env.Codecs), hdf5.WithPrefix(head)}
		if store.IsURL(name) {
			opts = append(opts, hdf5.WithPageSize(remotePage))
		}
		if env.HDF5CacheBytes > 0 {
			opts = append(opts, hdf5.WithMetadataCacheBytes(env.HDF5CacheBytes))
		}
		return hdf5.Open(ctx, src, opts...)
	})
	if err != nil {
		return nil, err
	}
	return v.(*hdf5.File), nil
}

// remotePage is the metadata page size of a remote file. A writer such as
// h5py allocates a group's header, B-tree, heap and symbol nodes near one
// another, so a large page turns a chain of dependent reads into one: on the
// 120-series NWB file of the shared benchmark, one deep dataset took 7
// requests with 64 KiB pages and 5 with 256 KiB, each 2.6 ms longer at
// 100 MB/s against 20 ms or more of latency. It is the size of the sniffing
// read, so that the first page is the sniffing read (hdf5.WithPrefix).
const remotePage = driver.HeadSize

// ExternalLink is the storage of a LINDI _EXTERNAL_ARRAY_LINK dataset
// (which the unified Zarr v3 convention keeps): its data is a dataset of an
// HDF5 file, opened on first use. A failure (a cancelled context, say) is
// not kept: the next read tries again.
type ExternalLink struct {
	env  *driver.Env
	link zarrmeta.ExternalArrayLink
	path string
	// resolve turns the link's url into the file's path or URL; nil where
	// the link cannot be resolved (outside a LINDI file).
	resolve func(string) (string, error)

	mu sync.Mutex
	st *driver.Stored
}

// NewExternalLink returns the storage of the dataset at path whose data is
// link's, its url resolved by resolve.
func NewExternalLink(env *driver.Env, link zarrmeta.ExternalArrayLink, path string, resolve func(string) (string, error)) *ExternalLink {
	return &ExternalLink{env: env, link: link, path: path, resolve: resolve}
}

// Stored opens the linked dataset, once.
func (e *ExternalLink) Stored(ctx context.Context) (*driver.Stored, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st != nil {
		return e.st, nil
	}
	const attr = zarrmeta.AttrExternalArrayLink
	if e.link.LinkType != "hdf5_dataset" {
		return nil, fmt.Errorf("%w: %s of type %q", driver.ErrFormat, attr, e.link.LinkType)
	}
	if e.resolve == nil {
		return nil, fmt.Errorf("%w: %s outside a LINDI file", driver.ErrFormat, attr)
	}
	url, err := e.resolve(e.link.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: %s url %q: %v", driver.ErrFormat, attr, e.link.URL, err)
	}
	hf, err := open(ctx, e.env, url, nil)
	var d *driver.Dataset
	if err == nil {
		var hd *hdf5.Dataset
		if hd, err = hf.Dataset(ctx, e.link.Name); err == nil {
			b := &builder{env: e.env, hf: hf}
			d, err = b.dataset(ctx, hd, e.path, false)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", driver.ErrNeedsHDF5, source.Redact(url), err)
	}
	if d.Err != nil {
		return nil, d.Err
	}
	st, err := d.Storage.Stored(ctx)
	if err != nil {
		return nil, err
	}
	e.st = st
	return st, nil
}
