package h5grove

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

// filterIDs are the HDF5 filter ids and names of the codecs HDF5 knows.
var filterIDs = map[string]struct {
	id   int
	name string
}{
	"gzip": {1, "deflate"}, "zlib": {1, "deflate"}, "deflate": {1, "deflate"},
	"shuffle": {2, "shuffle"}, "fletcher32": {3, "fletcher32"}, "szip": {4, "szip"},
	"nbit": {5, "nbit"}, "scaleoffset": {6, "scaleoffset"}, "bz2": {307, "bzip2"},
	"lzf": {32000, "lzf"}, "blosc": {32001, "blosc"}, "lz4": {32004, "lz4"}, "zstd": {32015, "zstd"},
}

// meta answers /meta: the entity's metadata, a group's with its children's.
func (s *Server) meta(ctx context.Context, w http.ResponseWriter, req *request) error {
	e, _, err := target(ctx, req)
	if err != nil {
		return err
	}
	m, err := metadata(ctx, req, e, true)
	if err != nil {
		return err
	}
	return writeJSON(w, m)
}

// metadata describes e as h5grove does; a group lists its children (each
// described without children) when children is set.
func metadata(ctx context.Context, req *request, e entity, children bool) (map[string]any, error) {
	m := map[string]any{"name": e.name(), "kind": "other"}
	switch o := e.obj.(type) {
	case nil:
		switch e.link.Kind {
		case h5.SoftLink:
			m["kind"], m["target_path"] = "soft_link", e.link.Target
		case h5.ExternalLink:
			m["kind"], m["target_path"], m["target_file"] = "external_link", e.link.Target, e.link.File
		}
		return m, nil
	case *h5.Group:
		m["kind"], m["attributes"] = "group", attrsMeta(o.Attrs())
		if !children {
			return m, nil
		}
		kids := []any{}
		for _, l := range o.Links() {
			c, err := lookup(ctx, req, childPath(e.path, l.Name), onlyValid)
			if err != nil {
				return nil, err
			}
			cm, err := metadata(ctx, req, c, false)
			if err != nil {
				return nil, err
			}
			kids = append(kids, cm)
		}
		m["children"] = kids
	case *h5.Datatype:
		m["kind"], m["attributes"], m["type"] = "datatype", attrsMeta(o.Attrs()), namedTypeMeta(o)
		if t := o.Type(); t != nil {
			m["type"] = hdf5TypeMeta(t)
		}
	case *h5.Dataset:
		m["kind"], m["attributes"] = "dataset", attrsMeta(o.Attrs())
		m["shape"], m["chunks"], m["filters"] = o.Shape(), o.Chunks(), filtersOf(o)
		if t := o.Type(); t != nil {
			m["type"] = hdf5TypeMeta(t)
		} else {
			m["type"] = datasetTypeMeta(ctx, o)
		}
	}
	return m, nil
}

// attrsMeta lists an object's attributes (name, shape, type) in name order;
// one h5 cannot decode is left out.
func attrsMeta(a h5.Attrs) []any {
	out := []any{}
	for _, name := range a.Names() {
		if t := a.Type(name); t != nil {
			shape, _ := a.Shape(name)
			out = append(out, map[string]any{"name": name, "shape": shape, "type": hdf5TypeMeta(t)})
			continue
		}
		v, err := a.Get(name)
		if err != nil {
			continue
		}
		t, err := valueTypeMeta(v)
		if err != nil {
			continue
		}
		out = append(out, map[string]any{"name": name, "shape": valueShape(v), "type": t})
	}
	return out
}

// filtersOf lists a dataset's codecs as HDF5 filters ({id, name}), nil for
// none; a codec HDF5 has no id for has id 0.
func filtersOf(d *h5.Dataset) []any {
	if p := d.Filters().Pipeline; p != nil {
		out := make([]any, len(p))
		for i, f := range p {
			out[i] = map[string]any{"id": f.ID, "name": f.Name}
		}
		return out
	}
	ids := d.Codecs()
	if len(ids) == 0 {
		return nil
	}
	out := make([]any, len(ids))
	for i, c := range ids {
		f, ok := filterIDs[c]
		if !ok {
			f.name = c
		}
		out[i] = map[string]any{"id": f.id, "name": f.name}
	}
	return out
}

// attr answers /attr: the values of the entity's attributes, or of those
// attr_keys names.
func (s *Server) attr(ctx context.Context, w http.ResponseWriter, req *request) error {
	e, _, err := target(ctx, req)
	if err != nil {
		return err
	}
	if e.obj == nil {
		return fmt.Errorf("%w: %s is not a resolved entity", errKind, e.path)
	}
	attrs := e.obj.Attrs()
	names := req.q["attr_keys"]
	if !req.q.has("attr_keys") {
		names = attrs.Names()
	}
	out := make(map[string]any, len(names))
	for _, name := range names {
		v, err := attrs.Get(name)
		if errors.Is(err, h5.ErrNotFound) {
			return fmt.Errorf("%w: no attribute %q at %s", errPath, name, e.path)
		}
		if err != nil {
			if req.q.has("attr_keys") {
				return fmt.Errorf("attribute %q at %s: %w", name, e.path, err)
			}
			continue
		}
		out[name] = jsonTypedAttr(v, attrs.Type(name), true)
	}
	return writeJSON(w, out)
}

// jsonAttr turns an attribute value into what encoding/json writes as
// h5grove does: references as strings, NaN and infinities as null.
func jsonAttr(v any) any { return zarrmeta.MapJSON(v, jsonAttrLeaf) }

// jsonAttrLeaf encodes the values jsonAttr replaces.
func jsonAttrLeaf(v any) (any, bool) {
	switch v := v.(type) {
	case float64:
		return jsonFloat(v), true
	case []float64:
		out := make([]any, len(v))
		for i, f := range v {
			out[i] = jsonFloat(f)
		}
		return out, true
	case h5.Reference:
		return refString(v), true
	case h5.RegionReference:
		return regionString(v), true
	case h5.Datetime:
		return datetimeJSON(v), true
	case []h5.Datetime:
		out := make([]any, len(v))
		for i, d := range v {
			out[i] = datetimeJSON(d)
		}
		return out, true
	case []h5.Reference:
		out := make([]string, len(v))
		for i, r := range v {
			out[i] = refString(r)
		}
		return out, true
	}
	return v, false
}

// refString is what h5grove sends for an object reference: h5py's str of
// it, which names no target.
func refString(r h5.Reference) string {
	if r.Path == "" {
		return "<HDF5 object reference (null)>"
	}
	return "<HDF5 object reference>"
}

// jsonTypedAttr is jsonAttr of an attribute whose HDF5 type t is known
// (nil when not): as h5py's numpy values go through orjson, a compound
// element is the list of its members' values in order (numpy's tolist),
// and a 4-byte float, when short is set (not in a compound, whose members
// tolist makes Python floats), is written as the shortest decimal that
// reads back as that float32.
func jsonTypedAttr(v any, t *h5.Type, short bool) any {
	for t != nil && t.Class == h5.ClassArray {
		t = t.Base
	}
	if t == nil {
		return jsonAttr(v)
	}
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonTypedAttr(e, t, short)
		}
		return out
	case map[string]any:
		if t.Class != h5.ClassCompound {
			break
		}
		out := make([]any, len(t.Members))
		for i, m := range t.Members {
			out[i] = jsonTypedAttr(x[m.Name], m.Type, false)
		}
		return out
	case float64:
		if short && t.Class == h5.ClassFloat && t.Size == 4 {
			return float32JSON(x)
		}
	case []float64:
		if short && t.Class == h5.ClassFloat && t.Size == 4 {
			out := make([]any, len(x))
			for i, f := range x {
				out[i] = float32JSON(f)
			}
			return out
		}
	}
	return jsonAttr(v)
}

// float32JSON is f, a float32's value, as the shortest decimal that reads
// back as that float32 (orjson's writing of numpy's float32); nil (null)
// for NaN and the infinities.
func float32JSON(f float64) any {
	if jsonFloat(f) == nil {
		return nil
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 32))
}

// regionString is what h5grove sends for a region reference (h5py's str).
func regionString(r h5.RegionReference) string {
	if r.Path == "" {
		return "<HDF5 region reference (null>" // sic: h5py's text
	}
	return "<HDF5 region reference>"
}

// jsonFloat is f, or nil (null) where JSON has no number, as orjson writes it.
func jsonFloat(f float64) any {
	if f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308 {
		return nil
	}
	return f
}

// paths answers /paths: the path of the group and of every entity below it,
// depth first in name order, as HDF5's link visit gives them.
func (s *Server) paths(ctx context.Context, w http.ResponseWriter, req *request) error {
	e, mode, err := target(ctx, req)
	if err != nil {
		return err
	}
	g, ok := e.obj.(*h5.Group)
	if !ok {
		return fmt.Errorf("%w: %s is not a group", errKind, e.path)
	}
	out := []string{e.path}
	prefix := e.path
	err = g.Walk(ctx, func(p string, l h5.Link, obj h5.Object, err error) error {
		if err != nil && mode == allLinks {
			return fmt.Errorf("%w: Cannot resolve link at %s of %s", errLink, p, req.name)
		}
		out = append(out, childPath(prefix, relTo(g.Path(), p)))
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, out)
}

// relTo is p relative to the group path base.
func relTo(base, p string) string {
	if base == "/" {
		return p[1:]
	}
	return p[len(base)+1:]
}

// writeJSON writes v as the JSON answer.
func writeJSON(w http.ResponseWriter, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	_, err = w.Write(b)
	return err
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
