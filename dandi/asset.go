package dandi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	// ErrNotFound reports a dandiset, version, asset or folder the
	// instance does not have.
	ErrNotFound = errors.New("dandi: not found")
	// ErrUnauthorized reports a dandiset the API refused (HTTP 401 or 403):
	// embargoed, without a key that has access to it.
	ErrUnauthorized = errors.New("dandi: not authorized")
	// ErrResponse reports an API answer that is not in the API's shape.
	ErrResponse = errors.New("dandi: malformed API response")
)

// Asset is an asset of a dandiset version: a blob (an HDF5 file, most
// often NWB) or a Zarr store.
type Asset struct {
	ID       string // the asset ID, a UUID
	Path     string // its path in the dandiset ("sub-01/sub-01_ecephys.nwb")
	Size     int64
	Blob     string // the blob's ID, "" for a Zarr asset
	Zarr     string // the Zarr's ID, "" for a blob
	Created  time.Time
	Modified time.Time
	// Instance, Dandiset and Version say where the asset was listed;
	// Dandiset and Version are "" for an asset looked up by ID alone.
	Instance, Dandiset, Version string
	// APIURL is the instance's API URL.
	APIURL string
	// ContentURL and EncodingFormat come from the asset's metadata, when it
	// was read (Lookup reads it for a Zarr asset): its download and S3
	// URLs, and its media type ("application/x-nwb", "application/x-zarr").
	ContentURL     []string
	EncodingFormat string
}

// Address returns a dandi:// address of the asset that h5.Open and nwb.Open
// accept (for an asset known by ID alone, its API URL).
func (a Asset) Address() string {
	return a.address().String()
}

func (a Asset) address() Address {
	return Address{Instance: a.Instance, APIURL: a.APIURL, Dandiset: a.Dandiset, Version: a.Version, Path: a.Path, AssetID: a.idIfNoPath()}
}

func (a Asset) idIfNoPath() string {
	if a.Dandiset == "" || a.Path == "" {
		return a.ID
	}
	return ""
}

// DownloadURL is the API URL that redirects to the asset's bytes.
func (a Asset) DownloadURL() string {
	return a.APIURL + "/assets/" + a.ID + "/download/"
}

// IsZarr reports whether the asset is a Zarr store rather than a blob.
func (a Asset) IsZarr() bool {
	return a.Zarr != "" || a.EncodingFormat == "application/x-zarr"
}

// page is one page of a listing of T, as the API gives it.
type page[T any] struct {
	Count   *int    `json:"count"`
	Next    *string `json:"next"`
	Results []T     `json:"results"`
}

// decodeListing decodes a page of a listing of what and checks the shape
// every listing has: a count, not negative, and results; check checks each
// result.
func decodeListing[T any](b []byte, what string, check func(T) error) (*page[T], error) {
	var p page[T]
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrResponse, what, err)
	}
	if p.Count == nil || p.Results == nil || *p.Count < 0 {
		return nil, fmt.Errorf("%w: %s without count or results", ErrResponse, what)
	}
	for _, r := range p.Results {
		if err := check(r); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrResponse, what, err)
		}
	}
	return &p, nil
}

type listEntry struct {
	AssetID  string    `json:"asset_id"`
	Blob     *string   `json:"blob"`
	Zarr     *string   `json:"zarr"`
	Path     string    `json:"path"`
	Size     int64     `json:"size"`
	Created  time.Time `json:"created"`
	Modified time.Time `json:"modified"`
}

// decodePage decodes a page of the asset listing and checks its shape.
func decodePage(b []byte) (*page[listEntry], error) {
	return decodeListing(b, "asset list", func(r listEntry) error {
		if err := checkAssetID(r.AssetID); err != nil {
			return err
		}
		if err := checkPath(r.Path); err != nil || r.Path == "" || strings.HasSuffix(r.Path, "/") {
			return fmt.Errorf("asset %s has path %q", r.AssetID, r.Path)
		}
		if r.Size < 0 || (r.Blob == nil) == (r.Zarr == nil) {
			return fmt.Errorf("asset %s: negative size, or not one of blob and zarr", r.AssetID)
		}
		return nil
	})
}

func (e listEntry) asset(a Address) Asset {
	as := Asset{ID: e.AssetID, Path: e.Path, Size: e.Size, Created: e.Created, Modified: e.Modified,
		Instance: a.Instance, Dandiset: a.Dandiset, Version: a.Version, APIURL: a.APIURL}
	if e.Blob != nil {
		as.Blob = *e.Blob
	}
	if e.Zarr != nil {
		as.Zarr = *e.Zarr
	}
	return as
}

// listedKey keys listed: the instance's API URL (instances may move), the
// address and the key the listing was made with.
func (c *config) listedKey(a Address) string {
	return a.APIURL + "\x00" + a.String() + "\x00" + keyTag(c.key(a.Instance))
}

// defaultPageSize is how many assets a listing page asks for: the most
// the archive gives (it gives fewer if it caps lower).
const defaultPageSize = 1000

// Assets yields the assets an address names, through Default
// (Client.Assets).
func Assets(ctx context.Context, address string, opts ...Option) iter.Seq2[Asset, error] {
	return defaultClient.Assets(ctx, address, opts...)
}

// Assets yields the assets an address names, lazily, one listing page at a
// time (following the API's next links): every asset of a dandiset or a
// folder (in path order), or the one asset a path or ID names. With
// WithGlob only the assets whose path matches; with WithShard only those
// of one shard. It yields one error and stops when the address is
// malformed, the dandiset, version or folder is missing (ErrNotFound) or
// not readable without a key (ErrUnauthorized), or the listing is not in
// the API's shape (ErrResponse: a page that comes again, more assets or
// pages than the count it declares). Stopping the loop early makes no
// further request.
func (c *Client) Assets(ctx context.Context, address string, opts ...Option) iter.Seq2[Asset, error] {
	return func(yield func(Asset, error) bool) {
		cfg, err := c.config(nil, opts)
		if err != nil {
			yield(Asset{}, err)
			return
		}
		a, err := cfg.reg.parse(address)
		if err != nil {
			yield(Asset{}, err)
			return
		}
		if !a.IsFolder() {
			as, err := cfg.lookup(ctx, a)
			if err == nil && !cfg.keep(as.Path) {
				return
			}
			yield(as, err)
			return
		}
		cfg.list(ctx, a, cfg.pageSize, true, yield)
	}
}

// keep reports whether the glob and the shard keep path.
func (c *config) keep(path string) bool {
	return (c.glob == nil || c.glob.MatchString(path)) && shardOf(path, c.shards) == c.shard
}

// shardOf is the shard of n an asset path falls in: its FNV-1a hash
// modulo n.
func shardOf(path string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(path))
	return int(h.Sum64() % uint64(n))
}

// list yields the assets whose path starts with a.Path, n a page (0 for
// the default); with folder set, none is an error (a missing folder).
func (c *config) list(ctx context.Context, a Address, n int, folder bool, yield func(Asset, error) bool) {
	inst, _ := c.reg.byName(a.Instance)
	q := url.Values{"order": {"path"}, "page_size": {strconv.Itoa(cmp.Or(n, defaultPageSize))}}
	if a.Path != "" {
		q.Set("path", a.Path)
	}
	if c.glob != nil {
		q.Set("glob", c.globText)
	}
	pages := pager{first: a.versionURL() + "assets/?" + q.Encode(), apiURL: a.APIURL}
	seen := 0
	for next := pages.first; next != ""; {
		b, err := c.get(ctx, inst, next)
		if err != nil {
			yield(Asset{}, c.explain(ctx, a, err))
			return
		}
		p, err := decodePage(b)
		if err == nil {
			next, err = pages.follow(next, *p.Count, len(p.Results), p.Next)
		}
		if err != nil {
			yield(Asset{}, fmt.Errorf("dandi: %s: %w", a.where(), err))
			return
		}
		for _, e := range p.Results {
			if !strings.HasPrefix(e.Path, a.Path) || c.glob != nil && !c.glob.MatchString(e.Path) {
				continue // the archive's path filter ignores case; ours does not
			}
			as := e.asset(a)
			c.cache.listed.Store(c.listedKey(as.address()), as)
			seen++
			if shardOf(as.Path, c.shards) != c.shard {
				continue
			}
			if !yield(as, nil) {
				return
			}
		}
	}
	if seen == 0 && folder && a.Path != "" && c.glob == nil {
		yield(Asset{}, fmt.Errorf("%w: %s has no folder %s", ErrNotFound, a.where(), a.Path))
	}
}

// globRegexp translates the API's glob, where "*" matches any run of
// characters ("/" too) and "?" any one, into a regular expression matching
// whole paths, ignoring case as the archive does.
func globRegexp(pattern string) (*regexp.Regexp, error) {
	if pattern == "" || strings.ContainsAny(pattern, "[]") {
		return nil, fmt.Errorf("dandi: glob %q: want a non-empty pattern of * and ? (no [ ])", pattern)
	}
	var b strings.Builder
	b.WriteString("(?is)^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
