package zarr

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/zarrmeta"
)

// This file reads what hdmf-zarr (the NWB Zarr backend) adds to a Zarr v2
// store, so that an NWB file stored by it reads as its HDF5 form does:
//
//   - zarr_link, a list on a group of {"name", "path", "source"}: links,
//     soft when source is the store itself, external otherwise;
//   - zarr_dtype, on every array: "scalar" for a shape [1] array that is an
//     HDF5 scalar, "object" for an array of object references, a list of
//     {"name", "dtype"} for a compound;
//   - object references, {"source", "path", ...} as the items of a
//     zarr_dtype "object" array (or the reference fields of a compound) and
//     {"value": ..., "zarr_dtype": "object"} as attributes;
//   - the root's .specloc, the name of the group of cached specifications
//     (an object reference in HDF5).
//
// zarr_link and zarr_dtype are hdmf-zarr's bookkeeping, not attributes of
// the NWB object: they are not shown. None of this applies to LINDI files,
// whose own markers say the same things.

// The attributes hdmf-zarr reserves.
const (
	attrZarrLink  = "zarr_link"
	attrZarrDType = "zarr_dtype"
	attrSpecLoc   = ".specloc"
)

// hdmf reports whether the tree reads hdmf-zarr's attributes: any Zarr
// store, not a LINDI file.
func (t *tree) hdmf() bool { return t.lindi == nil }

// attrs converts the user attributes of the object at path.
func (t *tree) attrs(za zarrmeta.Attrs, objPath string) (map[string]any, error) {
	if !t.hdmf() {
		return t.userAttrs(za)
	}
	vals := make(map[string]any, za.Len())
	for _, name := range za.Names() {
		if name == attrZarrLink || name == attrZarrDType {
			continue
		}
		v, _ := za.Get(name)
		x, err := t.hdmfAttr(v)
		if err != nil {
			// One attribute that cannot be read is its error, not the object's.
			x = fmt.Errorf("%s: attribute %q: %w", objPath, name, err)
		}
		vals[name] = x
	}
	if s, ok := vals[attrSpecLoc].(string); ok && objPath == "/" && s != "" {
		vals[attrSpecLoc] = driver.Ref{Path: "/" + strings.Trim(s, "/")}
	}
	return vals, nil
}

// hdmfAttr converts one attribute value: a reference or list of references
// when it is {"value": ..., "zarr_dtype": "object"}, else as JSON.
func (t *tree) hdmfAttr(v any) (any, error) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 2 || m[attrZarrDType] == nil {
		return fromJSON(v)
	}
	val, ok := m["value"]
	if !ok {
		return fromJSON(v)
	}
	if dt, _ := m[attrZarrDType].(string); dt != "object" {
		return nil, fmt.Errorf("%w: attribute of zarr_dtype %v", driver.ErrFormat, m[attrZarrDType])
	}
	if list, ok := val.([]any); ok {
		out := make([]any, len(list))
		for i, x := range list {
			r, err := t.reference(x)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = r
		}
		return out, nil
	}
	return t.reference(val)
}

// reference converts an hdmf-zarr reference, {"source", "path", ...}, into
// a driver.Ref. A reference into another store cannot be an HDF5 object
// reference, and is an error.
func (t *tree) reference(v any) (driver.Ref, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return driver.Ref{}, fmt.Errorf("%w: reference %s is not an object", driver.ErrFormat, brief(v))
	}
	p, ok := m["path"].(string)
	if !ok || p == "" {
		return driver.Ref{}, fmt.Errorf("%w: reference %s has no string \"path\"", driver.ErrFormat, brief(v))
	}
	src, _ := m["source"].(string)
	if _, ext, err := t.linkFile(src); err != nil {
		return driver.Ref{}, fmt.Errorf("reference to %s: %w", p, err)
	} else if ext != "" {
		return driver.Ref{}, fmt.Errorf("%w: reference to %s in another store (%q) is not followed", driver.ErrFormat, p, src)
	}
	clean, err := storePath(p)
	if err != nil {
		return driver.Ref{}, fmt.Errorf("reference to %q: %w", p, err)
	}
	return driver.Ref{Path: clean}, nil
}

// storePath checks that p, a path from the store's root, stays in the
// store, and returns it absolute and clean.
func storePath(p string) (string, error) {
	// Each ".." must have a name to cancel: "/a/../../b" leaves the root.
	depth := 0
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return "", fmt.Errorf("%w: the path leaves the store", driver.ErrFormat)
			}
		default:
			depth++
		}
	}
	return path.Clean("/" + p), nil
}

// linkFile resolves the source of a link or reference, a store named
// relative to this one ("." for itself): ext is "" for this store, else
// the name of the other store as an external link's file name, relative to
// the directory (or URL) holding this store, as HDF5 external links are.
func (t *tree) linkFile(source string) (self bool, ext string, err error) {
	switch source {
	case "", ".", "./":
		return true, "", nil
	}
	if strings.ContainsRune(source, 0) {
		return false, "", fmt.Errorf("%w: source %q", driver.ErrFormat, source)
	}
	if strings.Contains(source, "://") || strings.HasPrefix(source, "/") {
		return false, source, nil // absolute: h5 decides what a store may reach
	}
	name := strings.TrimRight(t.name, "/")
	anchor := "."
	if name != "" && !strings.HasSuffix(t.name, "/") {
		anchor = path.Base(name)
	}
	rel := path.Join(anchor, source)
	if rel == path.Clean(anchor) {
		return true, "", nil
	}
	return false, rel, nil
}

// zarrLinks reads a group's zarr_link list into links.
func (t *tree) zarrLinks(za zarrmeta.Attrs, groupPath string) ([]driver.Link, error) {
	if !t.hdmf() {
		return nil, nil
	}
	v, ok := za.Get(attrZarrLink)
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: %w: zarr_link %s is not a list", groupPath, driver.ErrFormat, brief(v))
	}
	var links []driver.Link
	seen := map[string]bool{}
	for _, item := range list {
		m, _ := item.(map[string]any)
		name, _ := m["name"].(string)
		target, _ := m["path"].(string)
		source, _ := m["source"].(string)
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || target == "" || seen[name] {
			return nil, fmt.Errorf("%s: %w: zarr_link entry %s needs a new member name, a path and a source", groupPath, driver.ErrFormat, brief(item))
		}
		seen[name] = true
		self, ext, err := t.linkFile(source)
		if err != nil {
			return nil, fmt.Errorf("%s: zarr_link %q: %w", groupPath, name, err)
		}
		if self {
			clean, err := storePath(target)
			if err != nil {
				// Kept as stored: following it fails naming the link and the path.
				clean = target
			}
			links = append(links, driver.Link{Name: name, Kind: driver.SoftLink, Target: clean})
			continue
		}
		links = append(links, driver.Link{Name: name, Kind: driver.ExternalLink, Target: target, File: ext})
	}
	return links, nil
}

// zarrDType reads an array's zarr_dtype: its name, or the compound it
// describes.
func zarrDType(za zarrmeta.Attrs) (name string, compound *zarrmeta.DType, err error) {
	v, ok := za.Get(attrZarrDType)
	if !ok {
		return "", nil, nil
	}
	switch v := v.(type) {
	case string:
		return v, nil, nil
	case []any:
		pairs := make([]any, len(v))
		for i, f := range v {
			m, _ := f.(map[string]any)
			fname, _ := m["name"].(string)
			ftype, ok := m["dtype"].(string)
			if !ok {
				return "", nil, fmt.Errorf("%w: zarr_dtype field %s has no dtype name", driver.ErrFormat, brief(f))
			}
			pairs[i] = []any{fname, compoundFieldType(ftype)}
		}
		dt, err := zarrmeta.ParseCompoundDType(pairs)
		if err != nil {
			return "", nil, fmt.Errorf("%w: zarr_dtype: %w", driver.ErrFormat, err)
		}
		return "", &dt, nil
	}
	return "", nil, fmt.Errorf("%w: zarr_dtype %s", driver.ErrFormat, brief(v))
}

// compoundFieldType maps hdmf-zarr's name of a compound field's type to
// ParseCompoundDType's: "object" is a reference; text is a Python object.
func compoundFieldType(s string) string {
	switch s {
	case "object":
		return zarrmeta.ReferenceTypeName
	case "str", "text", "utf", "utf8", "utf-8", "ascii", "bytes", "isodatetime", "object_":
		return "object"
	case "float":
		return "float64"
	case "int":
		return "int64"
	case "bool_":
		return "bool"
	}
	return s
}

// hdmfItems turns the items of an hdmf-zarr object array into Go values:
// references (refs) or compound rows whose reference fields (refFields)
// become driver.Refs; numbers and strings as the JSON items are.
type hdmfItems struct {
	t         *tree
	path      string
	refs      bool
	refFields []bool // by field, for a compound
}

func (it hdmfItems) Items(_ context.Context, _ []byte, objs []any) ([]any, []byte, error) {
	for i, v := range objs {
		x, err := it.item(v)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: element %d: %w", it.path, i, err)
		}
		objs[i] = x
	}
	return objs, nil, nil
}

func (it hdmfItems) item(v any) (any, error) {
	if it.refs {
		return it.t.reference(v)
	}
	if it.refFields == nil {
		return fromJSON(v)
	}
	row, ok := v.([]any)
	if !ok {
		// hdmf-zarr writes rows as lists; a mapping by field name is read too.
		return nil, fmt.Errorf("%w: compound row %s is not a list", driver.ErrFormat, brief(v))
	}
	if len(row) != len(it.refFields) {
		return nil, fmt.Errorf("%w: compound row of %d values for %d fields", driver.ErrFormat, len(row), len(it.refFields))
	}
	out := make([]any, len(row))
	for j, x := range row {
		var err error
		if it.refFields[j] {
			out[j], err = it.t.reference(x)
		} else {
			out[j], err = fromJSON(x)
		}
		if err != nil {
			return nil, fmt.Errorf("field %d: %w", j, err)
		}
	}
	return out, nil
}

// brief shows a JSON value in an error, shortened.
func brief(v any) string {
	s := fmt.Sprintf("%v", v)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// textItems says how an hdmf-zarr string array's strings are stored, from
// its object codec, as HDF5's datatype says it: vlen-utf8 for text,
// vlen-bytes for ASCII (hdmf-zarr's isodatetime values, ASCII strings in
// HDF5), whose items then read as strings, as from HDF5. It returns the
// Items for vlen-bytes, nil otherwise.
func (t *tree) textItems(d *driver.Dataset, ids []string) driver.Items {
	if len(ids) == 0 {
		return nil
	}
	switch ids[0] {
	case "vlen-utf8":
		d.Strings = &driver.StringInfo{Encoding: "utf-8"}
	case "vlen-bytes":
		d.Strings = &driver.StringInfo{Encoding: "ascii"}
		return asciiItems{}
	}
	return nil
}

// asciiItems turns the []byte items of vlen-bytes into strings.
type asciiItems struct{}

func (asciiItems) Items(_ context.Context, _ []byte, objs []any) ([]any, []byte, error) {
	for i, v := range objs {
		if b, ok := v.([]byte); ok {
			objs[i] = string(b)
		}
	}
	return objs, nil, nil
}

// shapeBug reports whether a native compound array was written with
// hdmf-zarr's compound shape bug (hdmf-zarr issue #278, fixed by PR #280):
// a compound column of n rows stored with shape [n, fields], element [i][j]
// holding field j of row i in every field. zarr_dtype then names the same
// fields as the .zarray's dtype.
func shapeBug(meta *zarrmeta.ArrayMeta, compound *zarrmeta.DType) bool {
	dt := meta.DType
	if compound == nil || dt.Kind != zarrmeta.KindStruct || len(meta.Shape) != 2 || meta.Order != 'C' ||
		meta.Shape[1] != len(dt.Fields) || len(compound.Fields) != len(dt.Fields) {
		return false
	}
	for i, f := range dt.Fields {
		if f.Name != compound.Fields[i].Name || len(f.Shape) > 0 {
			return false
		}
	}
	return true
}

// rowsLocator undoes the compound shape bug: chunk i of the [n] array is
// assembled from the stored chunks (i, j), row r taking field k from stored
// element [r][k]. Its chunks are in memory, decoded: the array it serves
// has an empty pipeline.
type rowsLocator struct {
	key  *driver.KeyLocator
	meta *zarrmeta.ArrayMeta
	pipe *codecs.Pipeline
	path string
}

func (l *rowsLocator) Locate(ctx context.Context, coords []int) (engine.Chunk, error) {
	meta := l.meta
	dt := meta.DType
	c0, c1, size := meta.Chunks[0], meta.Chunks[1], dt.Size
	out := make([]byte, c0*size)
	for j := 0; j*c1 < len(dt.Fields); j++ {
		dec, err := l.chunk(ctx, []int{coords[0], j}, c0*c1*size)
		if err != nil {
			return engine.Chunk{}, fmt.Errorf("%s: chunk %d.%d: %w", l.path, coords[0], j, err)
		}
		for r := range c0 {
			for k := range c1 {
				col := j*c1 + k
				if col >= len(dt.Fields) {
					break
				}
				f := dt.Fields[col]
				el := dec[(r*c1+k)*size:]
				copy(out[r*size+f.Offset:r*size+f.Offset+f.DType.Size], el[f.Offset:f.Offset+f.DType.Size])
			}
		}
	}
	return engine.Chunk{Data: out}, nil
}

// chunk reads and decodes one stored chunk of n bytes; a missing one is
// the fill value.
func (l *rowsLocator) chunk(ctx context.Context, coords []int, n int) ([]byte, error) {
	ch, err := l.key.Locate(ctx, coords)
	if err != nil {
		return nil, err
	}
	if ch.Missing {
		fill := l.meta.Fill.Bytes
		out := make([]byte, 0, n)
		for len(fill) > 0 && len(out) < n {
			out = append(out, fill...)
		}
		return append(out, make([]byte, n-len(out))...)[:n], nil
	}
	raw := ch.Data
	if raw == nil {
		if ch.Len > int64(2*n+1<<16) { // more than any codec makes of n bytes
			return nil, fmt.Errorf("%w: %d stored bytes for %d", driver.ErrFormat, ch.Len, n)
		}
		raw = make([]byte, ch.Len)
		if got, err := ch.Src.ReadAt(ctx, raw, ch.Off); got != len(raw) {
			return nil, fmt.Errorf("reading %s: %w", ch.Src.Name(), err)
		}
	}
	dec, err := l.pipe.Decode(nil, raw, n)
	if err != nil {
		return nil, err
	}
	if len(dec) != n {
		return nil, fmt.Errorf("%w: %d bytes, want %d", driver.ErrFormat, len(dec), n)
	}
	return dec, nil
}
