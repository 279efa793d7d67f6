package hdf5

import (
	"context"
	"errors"
	"fmt"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/store"
)

// maxVirtualDepth bounds a chain of virtual datasets each a source of the
// next (a dataset mapped from itself would never end).
const maxVirtualDepth = 8

// virtual is the engine's view of a virtual dataset, whose sources open
// through the file's Env on first use.
func (s *storage) virtual(ctx context.Context) (*engine.Chunked, error) {
	if s.items != nil {
		return nil, fmt.Errorf("%w: virtual dataset %s of %s elements", hdf5.ErrUnsupported, s.path, s.hd.Datatype().Class)
	}
	return engine.Virtual(ctx, s.hd, s.dims, s.engineFill(), s.path, s.openSource)
}

// openSource opens the source dataset of one of the virtual dataset's
// mappings: in this file for ".", otherwise in the file the name resolves
// to against this file's location, by the rules LINDI refs follow (a
// remote file's sources are URLs; a local one's paths relative to its
// directory, or absolute), opened through the Env's sources and their
// guards. A file or dataset that does not exist is nil, read as fill, as
// HDF5 reads it.
func (s *storage) openSource(ctx context.Context, file, dataset string) (*engine.Chunked, error) {
	if s.depth >= maxVirtualDepth {
		return nil, fmt.Errorf("%w: more than %d virtual datasets mapped from one another", hdf5.ErrUnsupported, maxVirtualDepth)
	}
	hf, name := s.hf, s.name
	if file != "." {
		var err error
		if name, err = store.ResolveFrom(s.name, file); err != nil {
			return nil, fmt.Errorf("source file %q: %w", file, err)
		}
		if s.env == nil {
			return nil, fmt.Errorf("source file %q: no way to open it", file)
		}
		hf, err = open(ctx, s.env, name, nil)
		if driver.IsNotExist(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("source file %q: %w", file, err)
		}
	}
	hd, err := hf.Dataset(ctx, dataset)
	if errors.Is(err, hdf5.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return s.sourceArray(ctx, hf, hd, name)
}

// sourceArray is the engine's view of a virtual dataset's source, which
// must hold elements of the virtual dataset's type.
func (s *storage) sourceArray(ctx context.Context, hf *hdf5.File, hd *hdf5.Dataset, name string) (*engine.Chunked, error) {
	want, _ := s.hd.Datatype().NumpyDescr()
	if got, _ := hd.Datatype().NumpyDescr(); got != want {
		return nil, fmt.Errorf("%w: source %s of type %s for elements of type %s (no conversion)", hdf5.ErrUnsupported, hd.Path(), got, want)
	}
	src, err := newStorage(hf, hd, hd.Path())
	if err != nil {
		return nil, err
	}
	src.env, src.name, src.depth = s.env, name, s.depth+1
	st, err := src.Stored(ctx)
	if err != nil {
		return nil, err
	}
	return st.Array, nil
}
