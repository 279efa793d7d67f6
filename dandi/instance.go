package dandi

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/lindigo/lindi/io/source"
)

// Instance is a DANDI Archive server: its name (as dandi-cli spells it),
// the base URL of its REST API and of its web pages.
type Instance struct {
	Name string // "dandi", "dandi-sandbox", …
	API  string // "https://api.dandiarchive.org/api", without a trailing slash
	Web  string // "https://dandiarchive.org"; "" when it has none
}

// Instances returns the servers known by name, those of dandi-cli:
// "dandi" (also spelled "DANDI"), "dandi-sandbox", "dandi-staging" (the
// sandbox's former name), "linc", "ember" and
// "dandi-api-local-docker-tests" (the local instance of dandi-cli's
// tests). InstancesEnv and WithInstance add or move more. The slice is a
// copy.
func Instances() []Instance { return slices.Clone(instances[:]) }

// instances is the one table of instances; each one's key goes to its API
// host only.
var instances = [...]Instance{
	{"dandi", "https://api.dandiarchive.org/api", "https://dandiarchive.org"},
	{"dandi-sandbox", "https://api.sandbox.dandiarchive.org/api", "https://sandbox.dandiarchive.org"},
	{"dandi-staging", "https://api-staging.dandiarchive.org/api", "https://gui-staging.dandiarchive.org"},
	{"linc", "https://api.lincbrain.org/api", "https://lincbrain.org"},
	{"ember", "https://api-dandi.emberarchive.org/api", "https://dandi.emberarchive.org"},
	{"dandi-api-local-docker-tests", "http://localhost:8000/api", "http://localhost:8085"},
}

// InstancesEnv names the environment variable that adds instances, or
// points one at another API URL (a test server on this machine):
// "NAME=API_URL[,NAME=API_URL…]", as in
// "dandi-api-local-docker-tests=http://127.0.0.1:38123/api". An API URL
// must be https, or http to a loopback host; a public instance of Instances
// may only be moved to a loopback host, so that its key never goes
// anywhere else.
const InstancesEnv = "LINDI_DANDI_INSTANCES"

// KeyEnv returns the environment variable holding the API key of the
// instance called name, as dandi-cli names it: DANDI_API_KEY for "dandi",
// DANDI_SANDBOX_API_KEY for "dandi-sandbox" (and "dandi-staging", which
// also reads DANDI_STAGING_API_KEY), otherwise the name in upper case with
// "-" as "_", then "_API_KEY" (LINC_API_KEY).
func KeyEnv(name string) string {
	switch name = canonical(name); name {
	case "dandi":
		return "DANDI_API_KEY"
	case "dandi-staging":
		return "DANDI_SANDBOX_API_KEY"
	}
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + "_API_KEY"
}

// keyFromEnv returns the API key of the instance called name.
func keyFromEnv(name string) string {
	k := os.Getenv(KeyEnv(name))
	if k == "" && canonical(name) == "dandi-staging" {
		k = os.Getenv("DANDI_STAGING_API_KEY")
	}
	return k
}

// canonical is the name an instance is known by: "DANDI" is "dandi".
func canonical(name string) string {
	if name == "DANDI" {
		return "dandi"
	}
	return name
}

// registry is the instances an operation knows: Instances, then those of
// InstancesEnv and WithInstance, a later one replacing an earlier of the
// same name.
type registry []Instance

func defaultRegistry() (registry, error) {
	r := registry(Instances())
	env := os.Getenv(InstancesEnv)
	if env == "" {
		return r, nil
	}
	for item := range strings.SplitSeq(env, ",") {
		name, api, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("dandi: %s: %q is not NAME=API_URL", InstancesEnv, item)
		}
		if err := r.add(name, api); err != nil {
			return nil, fmt.Errorf("dandi: %s: %w", InstancesEnv, err)
		}
	}
	return r, nil
}

// add puts the instance name at api, after checking both.
func (r *registry) add(name, api string) error {
	inst, err := checkInstance(name, api)
	if err != nil {
		return err
	}
	r.put(inst)
	return nil
}

// put adds inst, or replaces the instance of its name.
func (r *registry) put(inst Instance) {
	for i, old := range *r {
		if old.Name == inst.Name {
			(*r)[i] = inst
			return
		}
	}
	*r = append(*r, inst)
}

func checkInstance(name, api string) (Instance, error) {
	name = canonical(name)
	if name == "" || strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "" {
		return Instance{}, fmt.Errorf("instance name %q: want letters, digits, '-', '_' and '.'", name)
	}
	u, err := url.Parse(api)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return Instance{}, fmt.Errorf("instance %q: API URL %q: not an http(s) URL without query or credentials", name, source.Redact(api))
	}
	loop := source.IsLoopback(u.Hostname())
	switch {
	case u.Scheme != "https" && !(u.Scheme == "http" && loop):
		return Instance{}, fmt.Errorf("instance %s: API URL %q: must be https, or http to a loopback host", name, api)
	case !loop && name != "dandi-api-local-docker-tests" && isPublic(name):
		return Instance{}, fmt.Errorf("instance %s: a public instance may only be moved to a loopback host, not %q", name, u.Host)
	}
	return Instance{Name: name, API: strings.TrimSuffix(api, "/")}, nil
}

func isPublic(name string) bool {
	return slices.ContainsFunc(instances[:], func(i Instance) bool { return i.Name == name })
}

// byName returns the instance called name.
func (r registry) byName(name string) (Instance, bool) {
	name = canonical(name)
	i := slices.IndexFunc(r, func(i Instance) bool { return i.Name == name })
	if i < 0 {
		return Instance{}, false
	}
	return r[i], true
}

// byAPIHost returns the instance whose API URL is on u's scheme and host
// and is a prefix of u's path, with the rest of the path.
func (r registry) byAPI(u *url.URL) (Instance, string, bool) {
	for _, inst := range r {
		a, err := url.Parse(inst.API)
		if err != nil || a.Scheme != u.Scheme || !strings.EqualFold(a.Host, u.Host) {
			continue
		}
		if rest, ok := strings.CutPrefix(u.Path, a.Path+"/"); ok {
			return inst, rest, true
		}
	}
	return Instance{}, "", false
}

// byWeb returns the instance whose web pages are on u's host.
func (r registry) byWeb(u *url.URL) (Instance, bool) {
	for _, inst := range r {
		w, err := url.Parse(inst.Web)
		if inst.Web != "" && err == nil && strings.EqualFold(w.Host, u.Host) {
			return inst, true
		}
	}
	return Instance{}, false
}
