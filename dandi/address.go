package dandi

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/lindigo/lindi/io/source"
)

// Address names a DANDI dandiset, a folder or an asset of one of its
// versions, or an asset by its ID alone.
type Address struct {
	Instance string // the instance's name: "dandi", "dandi-sandbox", …
	APIURL   string // the instance's API URL, without a trailing slash
	Dandiset string // six digits; "" for an asset known by ID alone
	Version  string // "draft" or a published version such as "0.230101.1200"; "" with Dandiset ""
	Path     string // an asset path, a folder ending in "/", or "" for the whole dandiset
	AssetID  string // the asset's ID when the address gives it, else ""
}

// DefaultVersion is the version an address without one names.
const DefaultVersion = "draft"

// ParseAddress parses the DANDI addresses of dandi-cli and the archive's
// web pages, with the instances of Instances and InstancesEnv:
//
//	dandi://INSTANCE/DANDISET[@VERSION][/PATH]
//	https://API/dandisets/ID/[versions/VERSION/[assets/[ASSET_ID/|?path=PATH]]]
//	https://API/assets/ASSET_ID/[download/]
//	https://WEB/dandiset/ID[/VERSION][/files?location=FOLDER]
//
// where API is an instance's API URL and WEB its web site. Anything else
// (another host or scheme, a malformed dandiset ID or version, a path with
// "." or ".." or empty segments) is an error saying what was wrong.
func ParseAddress(s string) (Address, error) {
	r, err := defaultRegistry()
	if err != nil {
		return Address{}, err
	}
	return r.parse(s)
}

func (r registry) parse(s string) (Address, error) {
	a, err := r.parseAny(s)
	if err != nil {
		return Address{}, fmt.Errorf("dandi: address %q: %w", source.Redact(s), err)
	}
	return a, nil
}

func (r registry) parseAny(s string) (Address, error) {
	scheme, _ := source.Scheme(s)
	switch scheme {
	case "dandi":
		rest, ok := strings.CutPrefix(s[len("dandi:"):], "//")
		if !ok {
			return Address{}, fmt.Errorf("want dandi://INSTANCE/DANDISET[@VERSION][/PATH]")
		}
		return r.parseDandi(rest)
	case "http", "https":
		u, err := url.Parse(s)
		if err != nil {
			return Address{}, err
		}
		if inst, rest, ok := r.byAPI(u); ok {
			return parseAPI(inst, rest, u.Query())
		}
		if inst, ok := r.byWeb(u); ok {
			return parseWeb(inst, u)
		}
		return Address{}, fmt.Errorf("%q is not the API or web site of a known DANDI instance", u.Host)
	}
	return Address{}, fmt.Errorf("not a dandi:// address or a DANDI URL")
}

func (r registry) parseDandi(s string) (Address, error) {
	if strings.ContainsRune(s, 0) {
		return Address{}, fmt.Errorf("NUL in address")
	}
	name, rest, _ := strings.Cut(s, "/")
	inst, ok := r.byName(name)
	if !ok {
		return Address{}, fmt.Errorf("unknown instance %q (known: %s)", name, r.names())
	}
	ds, path, _ := strings.Cut(rest, "/")
	id, version, hasVersion := strings.Cut(ds, "@")
	if !hasVersion {
		version = DefaultVersion
	}
	a := Address{Instance: inst.Name, APIURL: inst.API, Dandiset: id, Version: version, Path: path}
	return a, a.check()
}

func (r registry) names() string {
	var b strings.Builder
	for i, inst := range r {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(inst.Name)
	}
	return b.String()
}

// parseAPI reads the path of an API URL after the instance's API URL.
func parseAPI(inst Instance, rest string, q url.Values) (Address, error) {
	seg := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	a := Address{Instance: inst.Name, APIURL: inst.API}
	switch {
	case len(seg) >= 2 && len(seg) <= 3 && seg[0] == "assets" && (len(seg) == 2 || seg[2] == "download"):
		a.AssetID = seg[1]
		return a, checkAssetID(a.AssetID)
	case seg[0] != "dandisets" || len(seg) < 2:
		return a, fmt.Errorf("API path %q names no dandiset or asset", "/"+rest)
	}
	a.Dandiset, a.Version = seg[1], DefaultVersion
	switch {
	case len(seg) == 2:
	case len(seg) >= 4 && seg[2] == "versions":
		a.Version = seg[3]
		switch {
		case len(seg) == 4:
		case len(seg) == 5 && seg[4] == "assets":
			a.Path = q.Get("path")
		case len(seg) >= 6 && len(seg) <= 7 && seg[4] == "assets" && (len(seg) == 6 || seg[6] == "download"):
			a.AssetID = seg[5]
			if err := checkAssetID(a.AssetID); err != nil {
				return a, err
			}
		default:
			return a, fmt.Errorf("API path %q is not a version's assets", "/"+rest)
		}
	default:
		return a, fmt.Errorf("API path %q is not a dandiset's version", "/"+rest)
	}
	return a, a.check()
}

// parseWeb reads a web page's URL: /dandiset/ID[/VERSION][/files?location=F]
// (or the same after "#", the web site's former routing).
func parseWeb(inst Instance, u *url.URL) (Address, error) {
	p, q := u.Path, u.Query()
	if strings.HasPrefix(u.Fragment, "/dandiset/") && (p == "" || p == "/") {
		f, err := url.Parse(u.Fragment)
		if err != nil {
			return Address{}, err
		}
		p, q = f.Path, f.Query()
	}
	seg := strings.Split(strings.Trim(p, "/"), "/")
	if len(seg) < 2 || seg[0] != "dandiset" {
		return Address{}, fmt.Errorf("web page %q is not a dandiset's", p)
	}
	a := Address{Instance: inst.Name, APIURL: inst.API, Dandiset: seg[1], Version: DefaultVersion}
	seg = seg[2:]
	if len(seg) > 0 && seg[0] != "files" {
		a.Version, seg = seg[0], seg[1:]
	}
	switch {
	case len(seg) == 1 && seg[0] == "files":
		if loc := strings.Trim(q.Get("location"), "/"); loc != "" {
			a.Path = loc + "/"
		}
	case len(seg) != 0:
		return Address{}, fmt.Errorf("web page %q is not a dandiset's files", p)
	}
	return a, a.check()
}

// check validates the dandiset ID, version and path.
func (a Address) check() error {
	if !isDandisetID(a.Dandiset) {
		return fmt.Errorf("dandiset ID %q: want six digits", a.Dandiset)
	}
	if !isVersion(a.Version) {
		return fmt.Errorf("version %q: want %q or a published version such as 0.230101.1200", a.Version, DefaultVersion)
	}
	return checkPath(a.Path)
}

func isDandisetID(s string) bool {
	return len(s) >= 6 && len(s) <= 12 && digits(s)
}

func digits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// isVersion reports a version dandi-archive makes: draft or
// MAJOR.YYMMDD.HHMM.
func isVersion(s string) bool {
	if s == DefaultVersion {
		return true
	}
	p := strings.Split(s, ".")
	return len(p) == 3 && digits(p[0]) && len(p[0]) <= 9 && len(p[1]) == 6 && digits(p[1]) && len(p[2]) == 4 && digits(p[2])
}

func checkPath(p string) error {
	if p == "" {
		return nil
	}
	if strings.HasPrefix(p, "/") {
		return fmt.Errorf("path %q: must not start with /", p)
	}
	for seg := range strings.SplitSeq(strings.TrimSuffix(p, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("path %q: empty, . or .. segment", p)
		}
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f || c == '\uFFFD' {
			return fmt.Errorf("path %q: control character or invalid UTF-8", p)
		}
	}
	return nil
}

// checkAssetID accepts the UUIDs the archive gives assets.
func checkAssetID(id string) error {
	if len(id) != 36 {
		return fmt.Errorf("asset ID %q: not a UUID", id)
	}
	for i, c := range []byte(id) {
		hex := '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
		if i == 8 || i == 13 || i == 18 || i == 23 {
			hex = c == '-'
		}
		if !hex {
			return fmt.Errorf("asset ID %q: not a UUID", id)
		}
	}
	return nil
}

// IsFolder reports whether a names a whole dandiset or a folder of one
// (Path "" or ending in "/"), not one asset.
func (a Address) IsFolder() bool {
	return a.AssetID == "" && (a.Path == "" || strings.HasSuffix(a.Path, "/"))
}

// String is the canonical form of a: dandi://INSTANCE/DANDISET@VERSION[/PATH],
// or for an asset known by ID alone its API URL (API/assets/ASSET_ID/).
func (a Address) String() string {
	if a.Dandiset == "" {
		return a.APIURL + "/assets/" + a.AssetID + "/"
	}
	s := "dandi://" + a.Instance + "/" + a.Dandiset + "@" + a.Version
	if a.Path != "" {
		s += "/" + a.Path
	}
	if a.AssetID != "" && a.Path == "" {
		s = a.APIURL + "/dandisets/" + a.Dandiset + "/versions/" + a.Version + "/assets/" + a.AssetID + "/"
	}
	return s
}

// versionURL is the API URL of a's version, ending in "/".
func (a Address) versionURL() string {
	return a.APIURL + "/dandisets/" + a.Dandiset + "/versions/" + a.Version + "/"
}

// where names a's dandiset and version in messages: "dandiset 000409@draft".
func (a Address) where() string {
	return "dandiset " + a.Dandiset + "@" + a.Version + " on " + a.Instance
}
