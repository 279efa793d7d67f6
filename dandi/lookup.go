package dandi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Lookup returns the one asset address names, through Default
// (Client.Lookup).
func Lookup(ctx context.Context, address string, opts ...Option) (Asset, error) {
	return defaultClient.Lookup(ctx, address, opts...)
}

// Lookup returns the one asset address names (by path or ID), with its
// metadata (ContentURL, EncodingFormat) when it is a Zarr asset or known by
// ID alone. An asset the client listed before (Assets) costs no request. A
// missing dandiset, version or asset fails with ErrNotFound naming it; a
// dandiset the API refuses, with ErrUnauthorized naming the key's
// environment variable.
func (cl *Client) Lookup(ctx context.Context, address string, opts ...Option) (Asset, error) {
	c, err := cl.config(nil, opts)
	if err != nil {
		return Asset{}, err
	}
	a, err := c.reg.parse(address)
	if err != nil {
		return Asset{}, err
	}
	if a.IsFolder() {
		return Asset{}, fmt.Errorf("dandi: %s names a folder, not an asset", a)
	}
	return c.lookup(ctx, a)
}

func (c *config) lookup(ctx context.Context, a Address) (Asset, error) {
	var as Asset
	if a.AssetID != "" {
		as = Asset{ID: a.AssetID, Instance: a.Instance, APIURL: a.APIURL, Dandiset: a.Dandiset, Version: a.Version}
		if err := c.metadata(ctx, &as); err != nil {
			return Asset{}, c.explain(ctx, a, err)
		}
		return as, nil
	}
	if v, ok := c.cache.listed.Load(c.listedKey(a)); ok {
		as = v.(Asset)
	} else {
		var err error
		if as, err = c.byPath(ctx, a); err != nil {
			return Asset{}, err
		}
	}
	if as.IsZarr() && as.ContentURL == nil {
		if err := c.metadata(ctx, &as); err != nil {
			return Asset{}, c.explain(ctx, a, err)
		}
	}
	return as, nil
}

// byPath finds the asset at a.Path among those the archive's path filter
// gives, the assets whose path starts with it.
func (c *config) byPath(ctx context.Context, a Address) (Asset, error) {
	var found *Asset
	var ferr error
	whole := *c // the listing of one path, whatever glob or shard the caller keeps
	whole.glob, whole.globText, whole.shard, whole.shards = nil, "", 0, 1
	whole.list(ctx, a, lookupPageSize, false, func(as Asset, err error) bool {
		if err != nil {
			ferr = err
			return false
		}
		if as.Path == a.Path {
			found = &as
			return false
		}
		return true
	})
	switch {
	case ferr != nil:
		return Asset{}, ferr
	case found == nil:
		return Asset{}, fmt.Errorf("%w: %s has no asset %s", ErrNotFound, a.where(), a.Path)
	}
	return *found, nil
}

// lookupPageSize is the page size of the listing that finds one path: the
// asset comes first among those its path is a prefix of.
const lookupPageSize = 20

// assetMeta is the part of an asset's metadata read here.
type assetMeta struct {
	ID             string    `json:"identifier"`
	Path           string    `json:"path"`
	ContentSize    int64     `json:"contentSize"`
	ContentURL     []string  `json:"contentUrl"`
	EncodingFormat string    `json:"encodingFormat"`
	DateModified   time.Time `json:"dateModified"`
}

// metadata reads the asset's metadata into as: from the version's assets
// when the dandiset is known, else from the instance's assets.
func (c *config) metadata(ctx context.Context, as *Asset) error {
	inst, _ := c.reg.byName(as.Instance)
	u := as.APIURL + "/assets/" + as.ID + "/"
	if as.Dandiset != "" {
		u = as.APIURL + "/dandisets/" + as.Dandiset + "/versions/" + as.Version + "/assets/" + as.ID + "/"
	}
	b, err := c.get(ctx, inst, u)
	if err != nil {
		return err
	}
	m, err := decodeMeta(b, as.ID)
	if err != nil {
		return err
	}
	as.ContentURL, as.EncodingFormat = m.ContentURL, m.EncodingFormat
	if as.Path == "" {
		as.Path, as.Size, as.Modified = m.Path, m.ContentSize, m.DateModified
	}
	if as.Blob == "" && as.Zarr == "" {
		as.Blob, as.Zarr = storeIDs(m)
	}
	return nil
}

func decodeMeta(b []byte, id string) (*assetMeta, error) {
	var m assetMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: asset %s metadata: %v", ErrResponse, id, err)
	}
	if m.ID != "" && m.ID != id {
		return nil, fmt.Errorf("%w: asset %s metadata is asset %s's", ErrResponse, id, m.ID)
	}
	if err := checkPath(m.Path); err != nil || m.ContentSize < 0 {
		return nil, fmt.Errorf("%w: asset %s metadata: bad path or size", ErrResponse, id)
	}
	for _, u := range m.ContentURL {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			return nil, fmt.Errorf("%w: asset %s metadata: contentUrl %q is not an http(s) URL", ErrResponse, id, u)
		}
	}
	return &m, nil
}

// storeIDs reads the blob or Zarr ID from the S3 URL of contentUrl
// (…/blobs/abc/def/ID or …/zarr/ID/).
func storeIDs(m *assetMeta) (blob, zarr string) {
	for _, u := range m.ContentURL {
		p, err := url.Parse(u)
		if err != nil {
			continue
		}
		seg := strings.Split(strings.Trim(p.Path, "/"), "/")
		switch {
		case len(seg) >= 2 && seg[len(seg)-2] == "zarr":
			return "", seg[len(seg)-1]
		case len(seg) >= 4 && seg[len(seg)-4] == "blobs":
			return seg[len(seg)-1], ""
		}
	}
	return "", ""
}

// s3URL is the asset's contentUrl that is not on the instance's API.
func (as Asset) s3URL() string {
	for _, u := range as.ContentURL {
		if !strings.HasPrefix(u, as.APIURL+"/") {
			return u
		}
	}
	return ""
}

// explain turns an API failure about a into an error that names what was
// missing or refused, in one line.
func (c *config) explain(ctx context.Context, a Address, err error) error {
	var se *statusError
	if !errors.As(err, &se) {
		return fmt.Errorf("dandi: %s: %w", a.whereOrID(), err)
	}
	switch se.status {
	case 401, 403:
		return c.refused(a, se.status)
	case 404:
		if a.Dandiset == "" {
			return fmt.Errorf("%w: no asset %s on %s", ErrNotFound, a.AssetID, a.Instance)
		}
		inst, _ := c.reg.byName(a.Instance)
		_, derr := c.get(ctx, inst, a.APIURL+"/dandisets/"+a.Dandiset+"/")
		var de *statusError
		switch {
		case errors.As(derr, &de) && de.status == 404:
			return fmt.Errorf("%w: no dandiset %s on %s", ErrNotFound, a.Dandiset, a.Instance)
		case errors.As(derr, &de) && (de.status == 401 || de.status == 403):
			return c.refused(a, de.status)
		case derr != nil:
			return fmt.Errorf("dandi: %s: %w", a.where(), derr)
		case a.AssetID != "":
			return fmt.Errorf("%w: %s has no asset %s", ErrNotFound, a.where(), a.AssetID)
		}
		return fmt.Errorf("%w: dandiset %s on %s has no version %s", ErrNotFound, a.Dandiset, a.Instance, a.Version)
	}
	return fmt.Errorf("dandi: %s: %w", a.whereOrID(), err)
}

func (c *config) refused(a Address, status int) error {
	env := KeyEnv(a.Instance)
	what := "dandiset " + a.Dandiset
	if a.Dandiset == "" {
		what = "asset " + a.AssetID
	}
	if c.key(a.Instance) != "" {
		return fmt.Errorf("%w: %s on %s (HTTP %d): the API key given (%s) has no access to it", ErrUnauthorized, what, a.Instance, status, env)
	}
	return fmt.Errorf("%w: %s on %s (HTTP %d) is embargoed or private: set %s to an API key with access", ErrUnauthorized, what, a.Instance, status, env)
}

func (a Address) whereOrID() string {
	if a.Dandiset == "" {
		return "asset " + a.AssetID + " on " + a.Instance
	}
	return a.where()
}
