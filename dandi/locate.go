package dandi

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/lindigo/lindi/io/source"
)

// ErrFolder reports a dandiset or folder address given where one asset is
// needed (to open it): list it with Assets instead.
var ErrFolder = errors.New("dandi: a dandiset or folder, not an asset")

// PrecomputedEnv names the environment variable with the base URL of a
// service of precomputed LINDI files of DANDI assets, such as
// https://lindi.neurosift.org (whose files are at
// BASE/dandi/dandisets/ID/assets/ASSET_ID/nwb.lindi.json). Unset, none is
// used; source.WithPrecomputed overrides it.
const PrecomputedEnv = "LINDI_PRECOMPUTED_LINDI"

func init() { source.RegisterLocator(locate) }

// locate is the source.Locator of DANDI addresses: dandi:// addresses and
// the URLs of known instances' APIs and web sites that ParseAddress reads.
// Other URLs of an API host (and unreadable ones) are left to be read as
// they are, as before DANDI addresses existed.
func locate(ctx context.Context, name string, lc source.LocateConfig) (source.Location, bool, error) {
	scheme, _ := source.Scheme(name)
	if scheme != "dandi" && scheme != "http" && scheme != "https" {
		return source.Location{}, false, nil
	}
	opts := []Option{WithRetry(lc.Retry)}
	if lc.Client != nil {
		opts = append(opts, WithClient(lc.Client))
	}
	c, err := newConfig(opts)
	if err != nil {
		if scheme == "dandi" {
			return source.Location{}, false, err
		}
		// A bad InstancesEnv fails DANDI addresses, not every URL.
		return source.Location{}, false, nil
	}
	a, err := c.reg.parse(name)
	if err != nil {
		if scheme == "dandi" {
			return source.Location{}, false, err
		}
		return source.Location{}, false, nil
	}
	loc, err := c.locate(ctx, a, name, lc)
	return loc, true, err
}

func (c *config) locate(ctx context.Context, a Address, name string, lc source.LocateConfig) (source.Location, error) {
	if a.IsFolder() {
		return source.Location{}, fmt.Errorf("%w: %s (list its assets with lindi ls or dandi.Assets)", ErrFolder, a)
	}
	res := source.WithResolver((&source.DANDI{Keys: c.hostKeys(), Client: lc.Client, Loopback: true}).Resolve)
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
	base, err := precomputedBase(lc.Precomputed)
	if err != nil || base == "" || as.Dandiset == "" {
		return loc, err
	}
	doc, pu, why := c.precomputed(ctx, base, &as)
	if why != "" {
		if lc.Warn != nil {
			lc.Warn(fmt.Sprintf("dandi: precomputed LINDI file of %s not used (%s): reading the HDF5 file", as.Address(), why))
		}
		return loc, nil
	}
	return source.Location{URL: pu, Content: doc, Options: loc.Options}, nil
}

// precomputedBase returns the service's base URL: set, or else the
// environment's, "" for none.
func precomputedBase(set string) (string, error) {
	switch set {
	case source.Off:
		return "", nil
	case "":
		env := os.Getenv(PrecomputedEnv)
		if env == "" {
			return "", nil
		}
		u, err := url.Parse(env)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("dandi: %s=%q: not an http(s) URL", PrecomputedEnv, source.Redact(env))
		}
		return strings.TrimSuffix(env, "/"), nil
	}
	return strings.TrimSuffix(set, "/"), nil
}

// hostKeys maps each instance's API host to its key, for source.DANDI.
func (c *config) hostKeys() map[string]string {
	m := map[string]string{}
	for _, inst := range c.reg {
		u, err := url.Parse(inst.API)
		if err != nil {
			continue
		}
		if _, ok := m[u.Host]; !ok || m[u.Host] == "" {
			m[u.Host] = c.key(inst.Name)
		}
	}
	return m
}
