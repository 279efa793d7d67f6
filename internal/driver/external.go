package driver

import (
	"context"
	"fmt"
	"sync"

	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/zarrmeta"
)

// DatasetOpener reads one dataset of a file in its format (the HDF5
// driver's): the dataset at dataset in the file name, opened through env,
// as the dataset at path of the file that links to it.
type DatasetOpener interface {
	OpenDataset(ctx context.Context, env *Env, name, dataset, path string) (*Dataset, error)
}

// ArrayLink is the storage of a LINDI _EXTERNAL_ARRAY_LINK dataset
// (which the unified Zarr v3 convention keeps): its data is a dataset of an
// HDF5 file, opened on first use through the Env's HDF5. A failure (a
// cancelled context, say) is not kept: the next read tries again.
type ArrayLink struct {
	env  *Env
	link zarrmeta.ExternalArrayLink
	path string
	// resolve turns the link's url into the file's path or URL; nil where
	// the link cannot be resolved (outside a LINDI file).
	resolve func(string) (string, error)

	mu sync.Mutex
	st *Stored
}

// NewArrayLink returns the storage of the dataset at path whose data is
// link's, its url resolved by resolve.
func NewArrayLink(env *Env, link zarrmeta.ExternalArrayLink, path string, resolve func(string) (string, error)) *ArrayLink {
	return &ArrayLink{env: env, link: link, path: path, resolve: resolve}
}

// Stored opens the linked dataset, once.
func (e *ArrayLink) Stored(ctx context.Context) (*Stored, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st != nil {
		return e.st, nil
	}
	const attr = zarrmeta.AttrExternalArrayLink
	if e.link.LinkType != "hdf5_dataset" {
		return nil, fmt.Errorf("%w: %s of type %q", ErrFormat, attr, e.link.LinkType)
	}
	if e.resolve == nil {
		return nil, fmt.Errorf("%w: %s outside a LINDI file", ErrFormat, attr)
	}
	url, err := e.resolve(e.link.URL)
	if err != nil {
		return nil, fmt.Errorf("%w: %s url %q: %v", ErrFormat, attr, e.link.URL, err)
	}
	if e.env.HDF5 == nil {
		return nil, fmt.Errorf("%w %s: no HDF5 driver to read it", ErrNeedsHDF5, source.Redact(url))
	}
	d, err := e.env.HDF5.OpenDataset(ctx, e.env, url, e.link.Name, e.path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrNeedsHDF5, source.Redact(url), err)
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
