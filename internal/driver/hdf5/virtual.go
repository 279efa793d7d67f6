package hdf5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
)

// virtual is the engine's view of a virtual dataset, whose sources open
// through the file's Env on first use.
func (s *storage) virtual(ctx context.Context) (*engine.Chunked, error) {
	if s.items != nil {
		return nil, fmt.Errorf("%w: virtual dataset %s of %s elements", hdf5.ErrUnsupported, s.path, s.hd.Datatype().Class)
	}
	return engine.Virtual(ctx, s.hd, s.dims, s.engineFill(), s.path, engine.HDF5Sources(s.hd, s.name, envOpener(s.env)))
}

// envOpener opens the source files of virtual datasets through env: file
// resolved against from by the rules LINDI refs follow (a remote file's
// sources are URLs; a local one's paths relative to its directory, or
// absolute), opened once per file through the Env's sources and their
// guards (a root, local-only). A file that does not exist is nil, read as
// fill, as HDF5 reads it.
func envOpener(env *driver.Env) engine.FileOpener {
	return func(ctx context.Context, from, file string) (*hdf5.File, string, error) {
		name, err := store.ResolveFrom(from, file)
		if err != nil {
			return nil, "", fmt.Errorf("source file %q: %w", file, err)
		}
		if env == nil {
			return nil, "", fmt.Errorf("source file %q: no sources to open it through", file)
		}
		hf, err := open(ctx, env, name, nil)
		if source.IsNotExist(err) {
			return nil, "", nil
		}
		if err != nil {
			return nil, "", fmt.Errorf("source file %q: %w", file, err)
		}
		return hf, name, nil
	}
}
