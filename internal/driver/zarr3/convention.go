package zarr3

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/zarrmeta"
)

// The unified Zarr v3 convention of hdmf-zarr (≥ 0.14) and zarrshadow puts
// what Zarr lacks in reserved attributes: links in a group's _LINKS, object
// references as {"_REFERENCE": {"source", "path"}} attribute values and as
// the target paths of string arrays marked _DTYPE "object_reference", and
// reference fields of struct arrays in _REFERENCE_FIELDS; LINDI's
// _EXTERNAL_ARRAY_LINK names an HDF5 dataset holding an array's data (a
// relative url resolves against the store's root).
const (
	attrLinks     = "_LINKS"
	attrDType     = "_DTYPE"
	attrScalar    = "_SCALAR"
	attrReference = "_REFERENCE"
	refDType      = "object_reference"
)

// attrs converts decoded JSON attributes into driver attribute values:
// _REFERENCE objects into driver.Refs; the reserved _LINKS, _DTYPE,
// _REFERENCE_FIELDS, _EXTERNAL_ARRAY_LINK and _SCALAR are not attributes.
// A malformed reference is the attribute's value as an error. Non-finite
// floats are read as zarr-python writes them (bare NaN and Infinity tokens,
// which hdmf-zarr writes too since it stopped writing them as strings) and,
// in a node that registers it, as the non-finite-attributes convention
// writes them (nonfinite.go); a string "NaN" elsewhere is a string.
func attrs(m map[string]any) map[string]any {
	m = decodeNonFinite(m)
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k == attrLinks || k == attrDType || k == attrRefFields || k == attrExternal || k == attrScalar {
			continue
		}
		x, err := references(v)
		if err != nil {
			out[k] = fmt.Errorf("attribute %q: %w", k, err)
			continue
		}
		out[k] = x
	}
	return out
}

// specLoc turns the root's .specloc, the plain path of the group of
// cached specifications in the unified convention ("specifications"), into
// the reference it is in HDF5, so that the store reads as its HDF5 twin.
func specLoc(a map[string]any) {
	if s, ok := a[".specloc"].(string); ok && strings.Trim(s, "/") != "" {
		a[".specloc"] = driver.Ref{Path: "/" + strings.Trim(s, "/")}
	}
}

// references turns the _REFERENCE objects in v (itself or in its lists)
// into driver.Refs.
func references(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		r, ok := v[attrReference]
		if !ok || len(v) != 1 {
			return v, nil
		}
		m, _ := r.(map[string]any)
		p, ok := m["path"].(string)
		if !ok || !strings.HasPrefix(p, "/") {
			return nil, fmt.Errorf("%w: %s %v has no absolute \"path\"", driver.ErrFormat, attrReference, r)
		}
		if s, ok := m["source"]; ok && s != "." && s != nil {
			return nil, fmt.Errorf("%w: %s into another file (source %v) is not supported", driver.ErrFormat, attrReference, s)
		}
		return driver.Ref{Path: p}, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			var err error
			if out[i], err = references(x); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// links reads a group's _LINKS: soft links for a source of ".", external
// links to the Zarr store source (relative to this store's root) otherwise.
func (t *tree) links(m map[string]any) ([]driver.Link, error) {
	raw, ok := m[attrLinks]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a list", driver.ErrFormat, attrLinks)
	}
	var out []driver.Link
	for i, x := range list {
		e, _ := x.(map[string]any)
		name, _ := e["name"].(string)
		path, _ := e["path"].(string)
		src, _ := e["source"].(string)
		if name == "" || strings.ContainsAny(name, "/") || path == "" || src == "" {
			return nil, fmt.Errorf("%w: %s entry %d %v needs a name, a source and a path", driver.ErrFormat, attrLinks, i, x)
		}
		if src == "." {
			out = append(out, driver.Link{Name: name, Kind: driver.SoftLink, Target: "/" + strings.TrimPrefix(path, "/")})
			continue
		}
		file, err := t.resolve(src)
		if err != nil {
			return nil, fmt.Errorf("%w: %s entry %d: %v", driver.ErrFormat, attrLinks, i, err)
		}
		out = append(out, driver.Link{Name: name, Kind: driver.ExternalLink, Target: path, File: file})
	}
	return out, nil
}

// resolve resolves a source relative to the store's root; a remote store's
// must be a URL.
func (t *tree) resolve(src string) (string, error) {
	if t.refs != nil {
		return t.refs.Resolve(src)
	}
	if t.dir {
		if filepath.IsAbs(src) {
			return src, nil
		}
		return filepath.Join(t.root, filepath.FromSlash(src)), nil
	}
	base, err := url.Parse(t.root + "/")
	if err != nil {
		return "", err
	}
	ref, err := url.Parse(src)
	if err != nil {
		return "", err
	}
	out := strings.TrimRight(base.ResolveReference(ref).String(), "/")
	if !source.IsURL(out) {
		// A remote store never makes the reader open a local file.
		return "", fmt.Errorf("%q from a remote store is not an http(s) or s3 URL", src)
	}
	return out, nil
}

// addLinks adds a group's _LINKS to its members; a name both a member
// and a link is an error.
func (t *tree) addLinks(g *driver.Group, m map[string]any, path string) error {
	ls, err := t.links(m)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, l := range ls {
		for _, o := range g.Links {
			if o.Name == l.Name {
				return fmt.Errorf("%s: %w: %q is both a member and a link in %s", path, driver.ErrFormat, l.Name, attrLinks)
			}
		}
		g.Links = append(g.Links, l)
	}
	sort.Slice(g.Links, func(i, j int) bool { return g.Links[i].Name < g.Links[j].Name })
	return nil
}

// refItems turns the strings of an object_reference dataset into driver.Refs.
type refItems struct{}

func (refItems) Items(_ context.Context, _ []byte, objs []any) ([]any, []byte, error) {
	for i, v := range objs {
		p, ok := v.(string)
		if !ok || !strings.HasPrefix(p, "/") && p != "" {
			return nil, nil, fmt.Errorf("%w: element %d of an %s dataset is %v, not an absolute path", driver.ErrFormat, i, refDType, v)
		}
		if p == "" {
			objs[i] = nil // the fill of a string array: no reference
			continue
		}
		objs[i] = driver.Ref{Path: p}
	}
	return objs, nil, nil
}

// attrRefFields lists the fields of a struct array that hold references,
// stored as the target paths in fixed_length_utf32 strings.
const attrRefFields = "_REFERENCE_FIELDS"

// refFields reads _REFERENCE_FIELDS for a struct dtype as stored, and
// returns the dtype users see (those fields of the reference kind) with the
// Items that build its rows.
func refFields(m map[string]any, stored zarrmeta.DType) (zarrmeta.DType, driver.Items, error) {
	raw, ok := m[attrRefFields]
	if !ok {
		return stored, nil, nil
	}
	list, ok := raw.([]any)
	if !ok || stored.Kind != zarrmeta.KindStruct {
		return stored, nil, fmt.Errorf("%w: %s %v on a %s array", driver.ErrFormat, attrRefFields, raw, stored)
	}
	refs := map[string]bool{}
	for _, x := range list {
		name, _ := x.(string)
		f, ok := stored.Field(name)
		if !ok || f.DType.Kind != zarrmeta.KindUnicode {
			return stored, nil, fmt.Errorf("%w: %s names %v, not a string field of %s", driver.ErrFormat, attrRefFields, x, stored)
		}
		refs[name] = true
	}
	shown := zarrmeta.DType{Kind: zarrmeta.KindStruct}
	for _, f := range stored.Fields {
		switch f.DType.Kind {
		case zarrmeta.KindBool, zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat, zarrmeta.KindUnicode:
		default:
			return stored, nil, fmt.Errorf("%w: field %q of kind %s in a struct with reference fields", driver.ErrFormat, f.Name, f.DType.Kind)
		}
		if refs[f.Name] {
			f.DType = zarrmeta.DType{Kind: zarrmeta.KindReference, Size: 8}
		}
		f.Offset = shown.Size
		shown.Fields = append(shown.Fields, f)
		shown.Size += f.DType.Size
	}
	return shown, rowItems{stored: stored, refs: refs}, nil
}

// rowItems turns the stored elements of a struct array with reference
// fields into rows: one []any per element, a value per field.
type rowItems struct {
	stored zarrmeta.DType
	refs   map[string]bool
}

func (r rowItems) Items(_ context.Context, raw []byte, _ []any) ([]any, []byte, error) {
	size := r.stored.Size
	if size == 0 || len(raw)%size != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes of %s elements", driver.ErrFormat, len(raw), r.stored)
	}
	out := make([]any, len(raw)/size)
	for i := range out {
		row := make([]any, len(r.stored.Fields))
		for j, f := range r.stored.Fields {
			b := raw[i*size+f.Offset : i*size+f.Offset+f.DType.Size]
			v, err := fieldValue(b, f.DType)
			if err != nil {
				return nil, nil, fmt.Errorf("element %d field %q: %w", i, f.Name, err)
			}
			if r.refs[f.Name] {
				p := v.(string)
				switch {
				case p == "":
					v = nil
				case strings.HasPrefix(p, "/"):
					v = driver.Ref{Path: p}
				default:
					return nil, nil, fmt.Errorf("%w: element %d field %q: reference %q is not an absolute path", driver.ErrFormat, i, f.Name, p)
				}
			}
			row[j] = v
		}
		out[i] = row
	}
	return out, nil, nil
}

// fieldValue decodes one field of a stored element.
func fieldValue(b []byte, dt zarrmeta.DType) (any, error) {
	var order binary.ByteOrder = binary.LittleEndian
	if dt.Order == zarrmeta.BigEndian {
		order = binary.BigEndian
	}
	uint := func() uint64 {
		switch len(b) {
		case 1:
			return uint64(b[0])
		case 2:
			return uint64(order.Uint16(b))
		case 4:
			return uint64(order.Uint32(b))
		}
		return order.Uint64(b)
	}
	switch dt.Kind {
	case zarrmeta.KindBool:
		return b[0] != 0, nil
	case zarrmeta.KindUint:
		u := uint()
		if u > math.MaxInt64 {
			return u, nil
		}
		return int64(u), nil
	case zarrmeta.KindInt:
		shift := 64 - 8*len(b)
		return int64(uint()<<shift) >> shift, nil
	case zarrmeta.KindFloat:
		switch len(b) {
		case 2:
			return zarrmeta.Float16(uint16(uint())), nil
		case 4:
			return float64(math.Float32frombits(uint32(uint()))), nil
		}
		return math.Float64frombits(uint()), nil
	case zarrmeta.KindUnicode:
		var sb strings.Builder
		for i := 0; i+4 <= len(b); i += 4 {
			r := rune(order.Uint32(b[i:]))
			if !utf8.ValidRune(r) {
				return nil, fmt.Errorf("%w: invalid code point %#x", driver.ErrFormat, uint32(r))
			}
			sb.WriteRune(r)
		}
		return strings.TrimRight(sb.String(), "\x00"), nil
	}
	return nil, fmt.Errorf("%w: field kind %s", driver.ErrFormat, dt.Kind)
}

// attrExternal is LINDI's _EXTERNAL_ARRAY_LINK, which the convention keeps:
// the array has no chunks of its own, its data is a dataset of an HDF5 file.
const attrExternal = zarrmeta.AttrExternalArrayLink
