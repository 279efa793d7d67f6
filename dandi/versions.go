package dandi

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Version is a version of a dandiset, as the API lists it
// (/dandisets/ID/versions/, dandi-archive's VersionSerializer).
type Version struct {
	Version    string    // "draft" or a published version such as "0.230101.1200"
	Name       string    // the dandiset's title in that version
	AssetCount int64     // assets in the version
	Size       int64     // their bytes
	Status     string    // "Published" for a published version; "Valid", "Pending", … for the draft
	Created    time.Time // a published version: when it was published
	Modified   time.Time
}

// Versions returns the versions of the dandiset address names, through
// Default (Client.Versions).
func Versions(ctx context.Context, address string, opts ...Option) ([]Version, error) {
	return defaultClient.Versions(ctx, address, opts...)
}

// Versions returns the versions of the dandiset address names (the version
// and path of the address do not matter), oldest first as the API orders
// them: the draft (created with the dandiset) and then the published
// versions. A missing dandiset fails with ErrNotFound, one the API refuses
// with ErrUnauthorized, an answer not in the API's shape (a listing that
// loops included) with ErrResponse.
func (cl *Client) Versions(ctx context.Context, address string, opts ...Option) ([]Version, error) {
	c, err := cl.config(nil, opts)
	if err != nil {
		return nil, err
	}
	a, err := c.reg.parse(address)
	if err != nil {
		return nil, err
	}
	if a.Dandiset == "" {
		return nil, fmt.Errorf("dandi: %s names no dandiset", a)
	}
	inst, _ := c.reg.byName(a.Instance)
	pages := pager{apiURL: a.APIURL}
	var out []Version
	for next := a.APIURL + "/dandisets/" + a.Dandiset + "/versions/?order=created"; next != ""; {
		b, err := c.get(ctx, inst, next)
		if err != nil {
			return nil, c.explainDandiset(ctx, a, err)
		}
		p, err := decodeVersions(b)
		if err == nil {
			next, err = pages.follow(next, *p.Count, len(p.Results), p.Next)
		}
		if err != nil {
			return nil, fmt.Errorf("dandi: versions of dandiset %s on %s: %w", a.Dandiset, a.Instance, err)
		}
		for _, v := range p.Results {
			out = append(out, Version(v))
		}
	}
	return out, nil
}

// explainDandiset says what an API failure about a's dandiset means.
func (c *config) explainDandiset(ctx context.Context, a Address, err error) error {
	var se *statusError
	if errors.As(err, &se) && se.status == 404 {
		return fmt.Errorf("%w: no dandiset %s on %s", ErrNotFound, a.Dandiset, a.Instance)
	}
	return c.explain(ctx, a, err)
}

type versionEntry struct {
	Version    string    `json:"version"`
	Name       string    `json:"name"`
	AssetCount int64     `json:"asset_count"`
	Size       int64     `json:"size"`
	Status     string    `json:"status"`
	Created    time.Time `json:"created"`
	Modified   time.Time `json:"modified"`
}

// decodeVersions decodes a page of the versions listing and checks its
// shape: every version "draft" or a published version's ID, no negative
// count or size.
func decodeVersions(b []byte) (*page[versionEntry], error) {
	return decodeListing(b, "versions", func(v versionEntry) error {
		if !isVersion(v.Version) {
			return fmt.Errorf("%q is not a version", v.Version)
		}
		if v.AssetCount < 0 || v.Size < 0 {
			return fmt.Errorf("version %s has a negative asset count or size", v.Version)
		}
		return nil
	})
}
