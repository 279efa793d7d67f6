package hdf5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/hdf5/internal/fileio"
	"github.com/lindigo/lindi/io/source"
)

// File is an open HDF5 file. It is safe for concurrent use by multiple
// goroutines; its caches (object headers, the address-to-path map) are
// filled lazily under locks.
type File struct {
	r      *fileio.Reader
	sb     *superblock
	codecs *codecs.Registry // builds the datasets' filter pipelines

	headers     *fileio.Memo[uint64, *objectHeader]
	links       *fileio.Memo[uint64, []Link] // sorted links of groups, by header address
	collections *fileio.Memo[uint64, collection]
	sohm        map[uint16]uint64 // message type → shared message heap

	refs refPaths // object address → path, as far as searched
}

// maxCachedHeaders bounds the object header cache; past it headers are
// parsed again on each use (they still come from the page cache).
const maxCachedHeaders = 1 << 16

// Open reads the superblock of the HDF5 file src and the root group's
// object header. Metadata is read through a page cache over src, so
// opening a remote file costs a few requests. Open fails with ErrNotHDF5
// when src has no HDF5 signature.
func Open(ctx context.Context, src source.Source, opts ...Option) (*File, error) {
	o := defaultOptions()
	if err := o.apply(opts); err != nil {
		return nil, err
	}
	base, err := fileio.New(ctx, src, fileio.WithPageSize(o.pageSize), fileio.WithCacheBytes(o.cacheBytes), fileio.WithPrefix(o.prefix))
	if err != nil {
		return nil, err
	}
	sb, err := findSuperblock(ctx, base)
	if err != nil {
		return nil, err
	}
	// The library refuses a file shorter than its end-of-file address (an
	// absolute offset), and so do we: a truncated download fails here, not
	// deep in a read.
	if !fileio.IsUndefined(sb.eof) && sb.eof > uint64(base.Size()) {
		return nil, fmt.Errorf("hdf5: %s: %w: truncated file of %d bytes, the superblock says %d",
			src.Name(), ErrFormat, base.Size(), sb.eof)
	}
	r, err := base.WithSizes(sb.sizes)
	if err != nil {
		return nil, fmt.Errorf("hdf5: %s: %w", src.Name(), err)
	}
	f := &File{r: r, sb: sb, codecs: o.codecs, headers: fileio.NewMemo[uint64, *objectHeader](maxCachedHeaders),
		links: fileio.NewMemo[uint64, []Link](maxCachedHeaders), collections: fileio.NewMemo[uint64, collection](maxCollections),
		sohm: make(map[uint16]uint64)}
	if err := f.loadSOHM(ctx); err != nil {
		return nil, fmt.Errorf("hdf5: %s: %w", src.Name(), err)
	}
	root, err := f.header(ctx, sb.rootAddr)
	if err != nil {
		return nil, fmt.Errorf("hdf5: %s: root group: %w", src.Name(), err)
	}
	if k := kindOf(root); k != KindGroup {
		return nil, fmt.Errorf("hdf5: %s: %w: root object is a %s", src.Name(), ErrFormat, k)
	}
	return f, nil
}

// Name returns the name of the file's source.
func (f *File) Name() string { return f.r.Name() }

// Source returns the source the file reads from, for reading the raw data
// a Locator locates (its offsets are offsets in Source).
func (f *File) Source() source.Source { return f.r.Source() }

// Cached returns the n bytes at absolute offset off (a Chunk's Off and Len)
// when the metadata cache holds them, without I/O: small raw data next to
// the metadata that describes it arrives with it. The slice is shared and
// must not be modified.
func (f *File) Cached(off, n int64) ([]byte, bool) { return f.r.Cached(off, n) }

// Base returns the absolute file offset that HDF5 addresses (such as
// Addr of an object) are relative to; usually 0. A Locator's offsets
// already include it.
func (f *File) Base() uint64 { return f.sb.sizes.Base }

// SuperblockVersion returns the version of the file's superblock (0 to 3).
func (f *File) SuperblockVersion() int { return f.sb.version }

// Root returns the root group.
func (f *File) Root() *Group {
	return &Group{f: f, path: "/", addr: f.sb.rootAddr}
}

// header returns the parsed object header at addr, from the cache when
// it was read before.
func (f *File) header(ctx context.Context, addr uint64) (*objectHeader, error) {
	if h, ok := f.headers.Get(addr); ok {
		return h, nil
	}
	h, err := readObjectHeader(ctx, f.r, addr)
	if err != nil {
		return nil, err
	}
	f.headers.Put(addr, h)
	return h, nil
}

// maxSharedDepth bounds chains of shared messages.
const maxSharedDepth = 4

// body returns the body of m, fetching it from the object header it is
// shared from when m is a shared message.
func (f *File) body(ctx context.Context, m message) ([]byte, error) {
	for range maxSharedDepth {
		if m.flags&msgFlagShared == 0 {
			return m.body, nil
		}
		addr, heapID, err := f.sharedAddr(m)
		if err != nil {
			return nil, err
		}
		if heapID != nil {
			return f.sohmMessage(ctx, m.typ, heapID)
		}
		h, err := f.header(ctx, addr)
		if err != nil {
			return nil, fmt.Errorf("shared message type %#x: %w", m.typ, err)
		}
		target, ok := h.first(m.typ)
		if !ok {
			return nil, fmt.Errorf("%w: object at %d shares no message of type %#x", ErrFormat, addr, m.typ)
		}
		m = target
	}
	return nil, fmt.Errorf("%w: shared messages nest deeper than %d", ErrFormat, maxSharedDepth)
}

// sharedAddr decodes a shared message pointer: the address of the object
// header holding the message, or the ID of the message in the shared
// object header message heap.
func (f *File) sharedAddr(m message) (addr uint64, heapID []byte, err error) {
	d := fileio.NewDecoder(m.body, f.r.Sizes())
	version, typ := d.Uint8(), d.Uint8()
	switch {
	case version == 1:
		d.Skip(6)
	case version == 2:
	case version == 3 && typ == 2:
	case version == 3 && typ == 1:
		heapID = d.Bytes(8)
	default:
		return 0, nil, fmt.Errorf("%w: shared message version %d type %d", ErrFormat, version, typ)
	}
	if heapID == nil {
		addr = d.Offset()
	}
	if err := d.Err(); err != nil {
		return 0, nil, fmt.Errorf("shared message: %w", err)
	}
	return addr, heapID, nil
}
