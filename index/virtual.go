package index

import (
	"context"
	"fmt"
	"sync"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
)

// virtualInlineBytes bounds the data of a virtual dataset the index
// inlines.
const virtualInlineBytes = 1 << 20

// virtual indexes a virtual dataset, which has no chunks of its own to
// ref: its elements are other datasets', mapped. One of 1000 numbers or
// more is refs to its sources' chunks where they are its chunks
// (virtualRefs); else one of numbers of up to virtualInlineBytes is
// inlined with its values, read from its sources (lindi inlines those of
// fewer than 1000 elements); another, or one whose sources cannot be read,
// is a link to itself in the HDF5 file (lindi writes a ref with no offset
// for it), which this module's reader reads, sources and all. (Python lindi reads such a link with h5py over a file
// object, which finds no source named relative to the file: it reads the
// fill value.)
func (d *dsIndex) virtual(ctx context.Context, t *hdf5.Datatype, numeric bool) error {
	if numeric && !d.scalar && d.n >= inlineElements {
		if ok, err := d.virtualRefs(ctx); ok || err != nil {
			return err
		}
	}
	if numeric && !d.scalar && d.n > 0 && d.n <= virtualInlineBytes/max(int(t.Size), 1) {
		if ok, err := d.inline(ctx, t); ok && err == nil {
			return nil
		}
		d.refs = nil
	}
	return d.external(ctx, false)
}

// sourceFiles opens the HDF5 files virtual datasets name, once each,
// through source.Open (or the WithFileOpener function), and closes them
// when the index is built.
type sourceFiles struct {
	custom func(ctx context.Context, from, file string) (*hdf5.File, string, error)
	opts   []source.Option

	mu    sync.Mutex
	files map[string]*hdf5.File
	srcs  []source.Source
}

func (s *sourceFiles) open(ctx context.Context, from, file string) (*hdf5.File, string, error) {
	if s.custom != nil {
		return s.custom(ctx, from, file)
	}
	name, err := store.ResolveFrom(from, file)
	if err != nil {
		return nil, "", fmt.Errorf("source file %q: %w", file, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.files[name]; ok {
		return f, name, nil
	}
	src, err := source.Open(ctx, name, s.opts...)
	if err == nil {
		s.srcs = append(s.srcs, src)
		var f *hdf5.File
		if f, err = hdf5.Open(ctx, src); err == nil {
			s.files[name] = f
			return f, name, nil
		}
	}
	if source.IsNotExist(err) {
		return nil, "", nil
	}
	return nil, "", fmt.Errorf("source file %q: %w", file, err)
}

// close closes the sources opened.
func (s *sourceFiles) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, src := range s.srcs {
		if c, ok := src.(interface{ Close() error }); ok {
			c.Close()
		}
	}
	s.srcs, s.files = nil, nil
}
