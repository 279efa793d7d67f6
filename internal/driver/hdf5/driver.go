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

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
)

// signature starts every HDF5 file (at offset 0, 512, 1024, …).
var signature = []byte("\x89HDF\r\n\x1a\n")

// Driver reads HDF5 files.
type Driver struct{}

func (Driver) Name() string { return "HDF5" }

// Sniff says Yes to the HDF5 signature at offset 0 and Maybe to any other
// file: its superblock may follow a user block (at 512, 1024, … bytes). A
// URL ending in .json is LINDI JSON's, without a look.
func (Driver) Sniff(ctx context.Context, in *driver.Input) (driver.Match, error) {
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

func (Driver) Open(ctx context.Context, env *driver.Env, in *driver.Input) (*driver.Group, error) {
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
	b := &builder{env: env, hf: hf, name: in.Name, groups: map[uint64]*driver.Group{}}
	root := b.group(hf.Root(), "/")
	url := in.Name
	if !store.IsURL(url) {
		if url, err = filepath.Abs(url); err != nil {
			return nil, err
		}
	}
	// The file's document is its index, its refs naming the file by url.
	root.Document = func(ctx context.Context) ([]byte, error) {
		return index.Build(ctx, hf, index.WithURL(url), index.WithFileOpener(envOpener(env)))
	}
	return root, nil
}

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

// OpenDataset reads the dataset at dataset in the HDF5 file name (opened
// once per file through env) as the dataset at path of the file that links
// to it: a driver.DatasetOpener, which h5 makes the Env's HDF5, so that the
// datasets LINDI's _EXTERNAL_ARRAY_LINK names read.
func (Driver) OpenDataset(ctx context.Context, env *driver.Env, name, dataset, path string) (*driver.Dataset, error) {
	hf, err := open(ctx, env, name, nil)
	if err != nil {
		return nil, err
	}
	hd, err := hf.Dataset(ctx, dataset)
	if err != nil {
		return nil, err
	}
	b := &builder{env: env, hf: hf, name: name}
	return b.dataset(ctx, hd, path, false)
}
