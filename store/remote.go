package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lindigo/lindi/io/source"
)

// Remote is a Zarr store served over HTTP or S3: key "a/.zarray" is the URL
// base + "/a/.zarray". With consolidated metadata (.zmetadata) every metadata
// key is answered from memory and the hierarchy can be listed; without, Get
// only builds URLs, whose absence shows when they are read, and List lists
// the store on S3 (WithLister) or else fails with ErrNotListable: plain HTTP
// has no directory listing.
type Remote struct {
	base   string
	name   string                     // base without its password, for errors
	meta   map[string]json.RawMessage // from .zmetadata; nil when not consolidated
	tree   map[string][]string
	lister Lister // lists a store with no consolidated metadata; nil for none
	// listErr is why a lister was given up (CheckList); nil otherwise.
	listErr error
	checkMu sync.Mutex
	checked bool
}

// Lister lists the "directory" at a URL: the names of the prefixes right
// under it. source.Pool's ListS3 does, for S3.
type Lister interface {
	ListS3(ctx context.Context, dir string) (source.Listing, error)
	IsS3Dir(dir string) bool
}

// ErrNotListable reports a remote store that has no consolidated metadata
// and whose server cannot list it.
var ErrNotListable = errors.New("cannot be listed")

// WithLister makes a store with no consolidated metadata list its members
// with l, when l can list its URL. It returns r.
func (r *Remote) WithLister(l Lister) *Remote {
	if r.meta == nil && l != nil && l.IsS3Dir(r.base+"/") {
		r.lister = l
	}
	return r
}

// NewRemote returns the store at base (an http(s) URL of the store's root).
// consolidated is the content of base/.zmetadata, or nil when the store has
// none.
func NewRemote(base string, consolidated []byte) (*Remote, error) {
	r := &Remote{base: strings.TrimRight(base, "/")}
	r.name = source.Redact(r.base)
	if consolidated == nil {
		return r, nil
	}
	var doc struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
		Format   int                        `json:"zarr_consolidated_format"`
	}
	if err := json.Unmarshal(sanitizeJSON(consolidated), &doc); err != nil {
		return nil, fmt.Errorf("%w: %s/.zmetadata: %v", ErrFormat, r.name, err)
	}
	if doc.Format != 1 || doc.Metadata == nil {
		return nil, fmt.Errorf("%w: %s/.zmetadata: zarr_consolidated_format %d with no metadata", ErrFormat, r.name, doc.Format)
	}
	r.meta, r.tree = doc.Metadata, childNodes(doc.Metadata)
	return r, nil
}

// Name returns the store's base URL, with any password redacted.
func (r *Remote) Name() string { return r.name }

// CheckList lists the root of a store that is to be listed (WithLister):
// when the server answers but not with a listing (an S3 stand-in that
// cannot list, a bucket that refuses anonymous listing), the store is
// looked up path by path instead, and ListError says why. Other failures
// (the network's, ctx's) are returned.
func (r *Remote) CheckList(ctx context.Context) error {
	r.checkMu.Lock()
	defer r.checkMu.Unlock()
	if r.lister == nil || r.checked {
		return nil
	}
	_, err := r.List(ctx, "")
	r.checked = err == nil
	var he *source.HTTPError
	if errors.Is(err, source.ErrProtocol) || errors.As(err, &he) && he.Status >= 400 && he.Status < 500 {
		r.lister, r.listErr = nil, err
		return nil
	}
	return err
}

// ListError reports why the store could not be listed on S3 (CheckList),
// nil if it was not tried or worked.
func (r *Remote) ListError() error { return r.listErr }

// Listable reports whether List knows the hierarchy: from consolidated
// metadata, or by listing the store on S3.
func (r *Remote) Listable() bool { return r.meta != nil || r.lister != nil }

// Consolidated reports whether the store has consolidated metadata.
func (r *Remote) Consolidated() bool { return r.meta != nil }

// Get locates key: in memory for consolidated metadata, else its URL.
func (r *Remote) Get(_ context.Context, key string) (Value, error) {
	if err := checkKey(key); err != nil {
		return Value{}, fmt.Errorf("store: %s: %w", r.name, err)
	}
	if r.meta != nil && isMetadataKey(key) {
		v, ok := r.meta[key]
		if !ok {
			return Value{}, fmt.Errorf("%w: %s: %q", ErrNotFound, r.name, key)
		}
		return Value{Data: v}, nil
	}
	return Value{URL: r.base + "/" + key, Len: -1}, nil
}

// List returns the child nodes of dir known from consolidated metadata, or
// else the prefixes under dir that listing the store finds, sorted (each
// may or may not be a node: the caller reads its metadata).
func (r *Remote) List(ctx context.Context, dir string) ([]string, error) {
	if r.meta != nil {
		return r.tree[dir], nil
	}
	if r.lister == nil {
		return nil, fmt.Errorf("store: %s: %w", r.name, ErrNotListable)
	}
	url := r.base + "/"
	if dir != "" {
		if err := checkKey(dir); err != nil {
			return nil, fmt.Errorf("store: %s: %w", r.name, err)
		}
		url += dir + "/"
	}
	l, err := r.lister.ListS3(ctx, url)
	if err != nil {
		return nil, err
	}
	names := slices.Clone(l.Dirs)
	slices.Sort(names)
	return names, nil
}

func isMetadataKey(key string) bool {
	_, name := splitKey(key)
	return name == ".zarray" || name == ".zgroup" || name == ".zattrs"
}

// checkKey refuses keys with empty, "." or ".." segments, which would leave the store.
func checkKey(key string) error {
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsRune(seg, '\\') {
			return fmt.Errorf("invalid key %q", key)
		}
	}
	return nil
}
