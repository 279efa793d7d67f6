package dandi

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lindigo/lindi/io/source"
)

// ErrFolder reports a dandiset or folder address given where one asset is
// needed (to open it): list it with Assets instead.
var ErrFolder = errors.New("dandi: a dandiset or folder, not an asset")

// The package registers Default's locator: importing it (for its effect
// alone, as image/png is) makes h5.Open, nwb.Open and source.Locate open
// DANDI addresses.
func init() { source.RegisterLocator(defaultClient.Locate) }

// Locate is the client's source.Locator: it locates dandi:// addresses and
// the URLs of known instances' APIs and web sites that ParseAddress reads,
// with the client's options over those of lc (its HTTP client, retry
// policy, timeout; Original turns the precomputed service off). Other URLs
// of an API host (and unreadable ones) are left to be read as they are.
// Give it to source.WithLocator to open addresses through a client other
// than Default.
func (c *Client) Locate(ctx context.Context, name string, lc source.LocateConfig) (source.Location, bool, error) {
	scheme, _ := source.Scheme(name)
	if scheme != "dandi" && scheme != "http" && scheme != "https" {
		return source.Location{}, false, nil
	}
	pre := []Option{func(c *config) error { c.warn = lc.Warn; return nil }}
	if lc.Retry.MaxAttempts > 0 {
		pre = append(pre, WithRetry(lc.Retry))
	}
	if lc.Timeout > 0 {
		pre = append(pre, WithTimeout(lc.Timeout))
	}
	if lc.Client != nil {
		pre = append(pre, WithHTTPClient(lc.Client))
	}
	var post []Option
	if lc.Original {
		post = append(post, WithPrecomputed(""))
	}
	cfg, err := c.config(pre, post)
	if err != nil {
		if scheme == "dandi" {
			return source.Location{}, false, err
		}
		// A bad InstancesEnv fails DANDI addresses, not every URL.
		return source.Location{}, false, nil
	}
	a, err := cfg.reg.parse(name)
	if err != nil {
		if scheme == "dandi" {
			return source.Location{}, false, err
		}
		return source.Location{}, false, nil
	}
	loc, err := cfg.locate(ctx, a, name)
	return loc, true, err
}

func (c *config) locate(ctx context.Context, a Address, name string) (source.Location, error) {
	if a.IsFolder() {
		return source.Location{}, fmt.Errorf("%w: %s (list its assets with lindi ls or dandi.Assets)", ErrFolder, a)
	}
	res := source.WithResolver(c.resolver())
	if a.AssetID != "" && a.Dandiset == "" && strings.HasSuffix(strings.TrimSuffix(name, "/"), "/download") {
		// A download URL reads as it always has: no lookup first.
		return source.Location{URL: a.APIURL + "/assets/" + a.AssetID + "/download/", Options: []source.Option{res}}, nil
	}
	as, err := c.lookup(ctx, a)
	if err != nil {
		return source.Location{}, err
	}
	if as.IsZarr() {
		u := as.s3URL()
		if u == "" {
			return source.Location{}, fmt.Errorf("%w: Zarr asset %s has no S3 contentUrl", ErrResponse, a)
		}
		return source.Location{URL: u, Options: []source.Option{res}}, nil
	}
	loc := source.Location{URL: as.DownloadURL(), Options: []source.Option{res}}
	base, err := c.precomputedBase()
	if err != nil || base == "" || as.Dandiset == "" {
		return loc, err
	}
	doc, pu, why := c.precomputedDoc(ctx, base, &as)
	if why != "" {
		if c.warn != nil {
			c.warn(fmt.Sprintf("dandi: precomputed LINDI file of %s not used (%s): reading the HDF5 file", as.Address(), why))
		}
		return loc, nil
	}
	return source.Location{URL: pu, Content: doc, Options: loc.Options}, nil
}
