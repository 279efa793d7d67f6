// Package driver is the seam between the h5 API and the container formats.
//
// Each format (a LINDI JSON file, a Zarr v2 store, an HDF5 file, …) is a
// Driver in a package of its own under internal/driver. A driver recognises
// its format (Sniff) and opens it into a tree of Groups and Datasets whose
// data the engine reads through the Locators the driver provides. The h5
// package loops over its list of drivers (h5/drivers.go, the one place that
// names the formats, in the order they are tried) and never names a format
// elsewhere.
//
// To add a container format: write a package under internal/driver that
// implements Driver, and add it to the list in h5/drivers.go.
package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/zarrmeta"
)

// ErrFormat is wrapped by errors for metadata that cannot be understood. It
// is the value of h5.ErrFormat, where users test for it.
var ErrFormat = errors.New("h5: malformed metadata")

// ErrNotMine is returned (wrapped) by Open when the input turns out not to be
// in the driver's format after all, so that the next candidate is tried.
var ErrNotMine = errors.New("not in this format")

// ErrNeedsHDF5 is wrapped by errors for datasets kept only in an HDF5 file
// (LINDI's _EXTERNAL_ARRAY_LINK) when that file cannot be read. It is the
// value of h5.ErrNeedsHDF5.
var ErrNeedsHDF5 = errors.New("h5: dataset is stored in an HDF5 file")

// Match is how sure a driver is that an input is in its format.
type Match int

// The answers of Sniff.
const (
	No    Match = iota // not this format
	Maybe              // possibly: try to open it when no driver says Yes
	Yes                // this format
)

// Driver reads one container format.
type Driver interface {
	// Name names the format, as h5.File.Format reports it ("LINDI JSON").
	Name() string
	// Sniff tells whether the input is in the driver's format, from its name
	// and, when needed, its first bytes (Input.Head).
	Sniff(ctx context.Context, in *Input) (Match, error)
	// Open reads the input's object tree and returns its root group. The
	// tree may be partly Pending: its nodes are then loaded on first use.
	Open(ctx context.Context, env *Env, in *Input) (*Group, error)
}

// Env is what a file gives its driver: the byte sources it reads through, the
// codecs chunks are decoded with, and a memo for what the file opens once
// (an HDF5 file named by several _EXTERNAL_ARRAY_LINKs).
type Env struct {
	// Pool opens the file's byte sources.
	Pool *source.Pool
	// Codecs builds the codec pipelines of the file's datasets.
	Codecs *codecs.Registry
	// HDF5CacheBytes bounds the metadata cache of each HDF5 file opened; 0
	// means the hdf5 package's default.
	HDF5CacheBytes int64
	// MaxMetadataBytes bounds the size of one metadata document (a LINDI
	// JSON file, a .zarray, .zattrs or .zmetadata); 0 means
	// DefaultMaxMetadataBytes.
	MaxMetadataBytes int64
	// FollowOutside lets a Zarr directory follow symbolic links that lead
	// out of it.
	FollowOutside bool
	// HDF5 reads the HDF5 datasets that LINDI's _EXTERNAL_ARRAY_LINK names
	// (ArrayLink); h5 sets the HDF5 driver. Without it such datasets
	// read as an ErrNeedsHDF5 error.
	HDF5 DatasetOpener

	mu   sync.Mutex
	memo map[string]any
}

// DefaultMaxMetadataBytes is the default of Env.MaxMetadataBytes: larger
// than the LINDI files of the largest NWB files on DANDI, small enough that
// parsing one (several times its size in memory) cannot exhaust a machine.
const DefaultMaxMetadataBytes = 256 << 20

// MetadataLimit returns MaxMetadataBytes, or its default.
func (e *Env) MetadataLimit() int64 {
	if e.MaxMetadataBytes > 0 {
		return e.MaxMetadataBytes
	}
	return DefaultMaxMetadataBytes
}

// Memo returns the value stored under key, calling open to make it the first
// time. A failure is not remembered: the next call tries again.
func (e *Env) Memo(key string, open func() (any, error)) (any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.memo[key]; ok {
		return v, nil
	}
	v, err := open()
	if err != nil {
		return nil, err
	}
	if e.memo == nil {
		e.memo = map[string]any{}
	}
	e.memo[key] = v
	return v, nil
}

// Ref is an object reference, in attribute values and in the items of
// reference datasets: the absolute path of the object it points at.
type Ref struct {
	Path string
}

// RegionRef is a dataset region reference: the dataset's path and the
// elements selected, as hyperslab blocks (first and last coordinates,
// inclusive) or points; All for the whole dataset, nothing for none.
type RegionRef struct {
	Path   string
	All    bool
	Blocks [][2][]uint64
	Points [][]uint64
}

// Time is a numpy datetime64 or timedelta64 (Delta) attribute value: a
// count of Unit ("s", "ms", "D", …), numpy's NaT being math.MinInt64.
type Time struct {
	Count int64
	Unit  string
	Delta bool
}

// LinkKind tells what a link in a group points at.
type LinkKind int

// The kinds of link.
const (
	HardLink     LinkKind = iota // the member itself (Node)
	SoftLink                     // a path in the same file (Target)
	ExternalLink                 // a path (Target) in another file (File)
)

// Link is one member of a group.
type Link struct {
	Name   string
	Kind   LinkKind
	Target string // the path a soft or external link points at
	File   string // the file an external link points into
	Node   Node   // the target of a hard link: *Group, *Dataset or *Pending
}

// Node is a *Group, a *Dataset, a *Datatype, or a *Pending that loads one
// of them.
type Node interface{ node() }

// Group is a group as a driver opened it.
type Group struct {
	// Addr identifies the group within its file when it can be reached by
	// several hard links (an HDF5 object header address); 0 otherwise.
	Addr uint64
	// Attrs holds the attribute values: nil, bool, int64, uint64, float64,
	// string, []byte, Ref, Time, slices of those, or []any for nested or mixed
	// lists. An attribute that cannot be decoded is an error value.
	Attrs map[string]any
	// Links are the group's members known when it was opened.
	Links []Link
	// Finder, when set, looks up members not in Links: a store that cannot
	// be listed (Zarr over HTTP without .zmetadata) learns its members path
	// by path.
	Finder Finder
	// Unlisted, when set, is why the group's members cannot be listed (a
	// Zarr store over plain HTTP without consolidated metadata): Links
	// then hold only what Finder found.
	Unlisted error
	// Complete, when set, reads the attributes and links of a group that
	// was opened lazily: until it is called Attrs and Links are empty and
	// Finder looks members up one at a time, which costs less when a path
	// only passes through the group (in an HDF5 group with a symbol table,
	// one B-tree node a level instead of every node, and no attribute that
	// refers to objects elsewhere in the file). h5 calls it before it hands
	// the group to a user.
	Complete func(ctx context.Context) (attrs map[string]any, links []Link, err error)
	// Document, set on the root group of a file that has one, returns the
	// whole file as a LINDI JSON document whose refs are absolute (local
	// paths or URLs), so that a LINDI file made from it reads the same
	// bytes wherever it is: the document of a LINDI file with its relative
	// refs and container members resolved, or an HDF5 file's index.
	Document func(ctx context.Context) ([]byte, error)
}

// Finder finds a member of a group of a store that cannot be listed.
type Finder interface {
	// Find looks up the member name of the group at path; ok is false when
	// there is none.
	Find(ctx context.Context, path, name string) (l Link, ok bool, err error)
}

func (*Group) node() {}

// Layout is how a dataset's elements are stored.
type Layout int

// The storage layouts, as HDF5 names them; every Zarr array is Chunked.
const (
	Chunked    Layout = iota // in chunks, each located by the chunk index or key
	Contiguous               // in one byte range of the file
	Compact                  // inside the dataset's metadata
	Virtual                  // mapped from other datasets (HDF5's virtual datasets)
)

// String names the layout as h5py does: "chunked", "contiguous", "compact",
// "virtual".
func (l Layout) String() string {
	switch l {
	case Chunked:
		return "chunked"
	case Contiguous:
		return "contiguous"
	case Compact:
		return "compact"
	case Virtual:
		return "virtual"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// Dataset is a dataset as a driver opened it.
type Dataset struct {
	// Attrs holds the attribute values (see Group.Attrs).
	Attrs map[string]any
	// Shape is the shape users see (empty for a scalar).
	Shape []int
	// DType is the element type as stored.
	DType zarrmeta.DType
	// Chunks is the chunk shape; nil for a contiguous or compact dataset.
	Chunks []int
	// Layout is how the elements are stored.
	Layout Layout
	// Fill is the value unwritten elements read as.
	Fill zarrmeta.Fill
	// Codecs lists the ids of the codecs a chunk passes through, in the order
	// they were applied when writing.
	Codecs []string
	// Scalar is set for a dataset of shape ().
	Scalar bool
	// Null is set for a dataset with a null dataspace (HDF5's H5S_NULL,
	// h5py's Empty): no shape and no elements. Shape is then [0], which
	// reads as no elements.
	Null bool
	// MaxShape is the shape the dataset may grow to, -1 for an unlimited
	// dimension; nil when the format does not record one (Zarr).
	MaxShape []int
	// Filters is an HDF5 dataset's filter pipeline with its options; nil
	// for other formats, whose Codecs say what there is.
	Filters []Filter
	// Enum maps the names of an enumerated type to their values; nil for
	// other dtypes.
	Enum map[string]int64
	// Strings is set for a dataset of strings (h5py's string_info): their
	// encoding and fixed length. Nil for other datasets, and for object
	// arrays whose elements the format does not type (LINDI, Zarr).
	Strings *StringInfo
	// Ref is the kind of reference the elements are; NoRef for other
	// datasets and for untyped object arrays (NoRefs).
	Ref RefKind
	// NamedType is the path of the committed (named) datatype the
	// dataset's elements are, as h5py's get_type().committed(); "" for a
	// type of its own, and for formats with no committed types.
	NamedType string
	// Type is the elements' type as HDF5 describes it; nil for formats
	// that store no HDF5 type.
	Type *Type
	// Err says why the dataset cannot be read; Storage is then nil.
	Err error
	// Storage gives the engine's view of the stored elements.
	Storage Storage
}

func (*Dataset) node() {}

// Datatype is an HDF5 committed (named) datatype: an object of its own that
// holds a type (h5py's h5py.Datatype), with attributes and no data.
type Datatype struct {
	// Attrs holds the attribute values (see Group.Attrs).
	Attrs map[string]any
	// DType is the type's numpy dtype; Err says why there is none.
	DType zarrmeta.DType
	// Enum maps the names of an enumerated type to their values; nil for
	// other types (and for h5py's bool enum).
	Enum map[string]int64
	// Err says why the type has no numpy dtype.
	Err error
	// Type is the type as HDF5 describes it.
	Type *Type
}

func (*Datatype) node() {}

// StringInfo says how a dataset's strings are stored.
type StringInfo struct {
	Encoding string // "utf-8" or "ascii"
	Length   int    // bytes per string; 0 for variable-length strings
}

// RefKind is the kind of reference a dataset's elements are.
type RefKind uint8

// The kinds of reference a dataset may hold.
const (
	NoRefs RefKind = iota
	ObjectRefs
	RegionRefs
)

// Filter is one filter of an HDF5 dataset's pipeline.
type Filter struct {
	ID      int      // the HDF5 filter ID
	Name    string   // the name the file gives the filter, often ""
	Options []uint32 // the filter's client data
}

// Storage gives a dataset's stored form, reading what it needs (a chunk
// index, an external HDF5 file) on first use. It is safe for concurrent use.
type Storage interface {
	Stored(ctx context.Context) (*Stored, error)
}

// Stored is a dataset's elements as the engine reads them.
type Stored struct {
	// Array is the chunked array the engine reads. For a scalar it has shape [1].
	Array *engine.Chunked
	// Items, when set, turns what the engine read into the items of the
	// result (variable-length strings, references, JSON values).
	Items Items
}

// Items turns stored elements into Go values: strings, []byte, int64,
// uint64, float64, bool, Ref, nil or []any (a compound row).
type Items interface {
	// Items converts raw, the fixed-size stored elements of a read (nil for
	// an object array), or objs, the items of an object array (converted in
	// place). It returns the items or, for rows of a compound dtype whose
	// fields all have a fixed size, the packed elements in the dtype's byte
	// order (data).
	Items(ctx context.Context, raw []byte, objs []any) (items []any, data []byte, err error)
}

// Fixed is a Storage that was built at open time.
type Fixed Stored

// Stored returns s.
func (s *Fixed) Stored(context.Context) (*Stored, error) { return (*Stored)(s), nil }

// Input is what Open was asked to open, with its first bytes read on demand.
type Input struct {
	// Name is the local path or URL.
	Name string
	// URL is set when Name is an http(s) URL.
	URL bool
	// Dir is set for a local directory.
	Dir bool
	// Base is the location relative names in the file (refs, links) resolve
	// against: Name for a named file; for bytes given without a name
	// (NewSourceInput) the location the caller gave, or "" for none, in
	// which case the file may name absolute URLs only.
	Base string
	// Source is set for bytes the caller gave (NewSourceInput): drivers
	// read them from it, never from a file called Name.
	Source source.Source

	env      *Env
	headOnce sync.Once
	head     []byte
	headErr  error
}

// NewInput describes name to the drivers, which read through env.
func NewInput(env *Env, name string, isURL, isDir bool) *Input {
	return &Input{Name: name, URL: isURL, Dir: isDir, Base: name, env: env}
}

// NewSourceInput describes bytes the caller already has: src is added to
// env's pool under its name, so that drivers read it as any named file, and
// relative names resolve against base ("" for none).
func NewSourceInput(env *Env, src source.Source, base string) (*Input, error) {
	if err := env.Pool.Add(src.Name(), src); err != nil {
		return nil, err
	}
	return &Input{Name: src.Name(), Base: base, Source: src, env: env}, nil
}

// JSONURL reports whether the input is a URL whose path ends in ".json": a
// LINDI JSON file, which drivers judge by its name alone, since reading its
// first bytes would cost a round trip.
func (in *Input) JSONURL() bool { return in.urlSuffix(".json") }

// StoreURL reports whether the input is a URL whose path ends in ".zarr"
// (or ".zarr/"): a Zarr store, v2 or v3, which drivers of single files
// pass over by its name, so that opening it costs no request for first
// bytes it does not have.
func (in *Input) StoreURL() bool {
	return in.urlSuffix(".zarr") || in.urlSuffix(".zarr/")
}

// urlSuffix reports whether the input is a URL whose path ends in suffix
// (any case).
func (in *Input) urlSuffix(suffix string) bool {
	if !in.URL {
		return false
	}
	u, err := url.Parse(in.Name)
	return err == nil && strings.HasSuffix(strings.ToLower(u.Path), suffix)
}

// HeadSize is how many bytes Head reads: one page of the HDF5 driver's
// metadata cache for a remote file, so that when the source caches ranges
// (the default for a URL) the HDF5 driver's first read is the sniffing read,
// not a second round trip. It is also the speculative first read of a remote
// HDF5 file, which in an NWB file holds the superblock, the root group and
// the first objects written.
const HeadSize = 256 << 10

// SniffHead is Head as Sniff wants it: a URL that names nothing (404) has
// no first bytes and no error, so that the drivers that would read it say No
// and a last resort (a Zarr store's root) gets its turn.
func (in *Input) SniffHead(ctx context.Context) ([]byte, error) {
	head, err := in.Head(ctx)
	if err != nil && in.URL && NotFound(err) {
		return nil, nil
	}
	return head, err
}

// Head returns the first HeadSize bytes of a file (fewer for a shorter file), read
// once and shared by every driver that asks.
func (in *Input) Head(ctx context.Context) ([]byte, error) {
	if in.Dir {
		return nil, nil
	}
	in.headOnce.Do(func() {
		src, err := in.env.Pool.Open(ctx, in.Name)
		if err != nil {
			in.headErr = err
			return
		}
		buf := make([]byte, HeadSize)
		n, err := src.ReadAt(ctx, buf, 0)
		if err != nil && n < len(buf) && !isEOF(err) {
			in.headErr = err
			return
		}
		in.head = buf[:n]
	})
	return in.head, in.headErr
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// NotFound reports whether err says that a file, URL or key does not exist.
func NotFound(err error) bool {
	var he *source.HTTPError
	return errors.Is(err, fs.ErrNotExist) || errors.As(err, &he) && he.Status == http.StatusNotFound
}

// JoinPath joins an HDF5-style path ("/" for the root) and a member name.
func JoinPath(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// JoinKey joins a store key ("" for the root) and a name.
func JoinKey(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
