package index

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/zarrmeta"
)

// attrs converts an object's attributes as lindi's h5_to_zarr_attr does.
// Where Python lindi refuses an attribute h5py reads, it is kept in the
// form this module's readers read back (Python lindi cannot read these): a
// null dataspace (h5py.Empty) as JSON null, a compound element as a JSON
// object of its members ({"myMajor": 1, …}; a list of them for a simple
// dataspace), an opaque value (h5py's datetime64 and timedelta64 too) as a
// zarrmeta.Opaque list, which Python lindi reads as an object array of
// strings. Attributes this reader cannot decode (region references, time
// types) are left out.
func (b *builder) attrs(ctx context.Context, obj hdf5.Object) (map[string]any, error) {
	list, err := obj.Attrs(ctx)
	if err != nil {
		return nil, fmt.Errorf("index: %s: attributes: %w", obj.Path(), err)
	}
	out := map[string]any{}
	for _, a := range list {
		if a.Err != nil {
			continue
		}
		if a.Space.Kind == hdf5.SpaceNull {
			out[a.Name] = nil
			continue
		}
		v, ok, err := b.attrValue(ctx, a)
		if err != nil {
			return nil, fmt.Errorf("index: %s: attribute %s: %w", obj.Path(), a.Name, err)
		}
		if ok {
			out[a.Name] = v
		}
	}
	return out, nil
}

func (b *builder) attrValue(ctx context.Context, a *hdf5.Attribute) (any, bool, error) {
	if a.Type.Class == hdf5.ClassOpaque {
		v, err := opaqueAttr(a)
		return v, err == nil, err
	}
	if a.Shape == nil { // a scalar
		return b.scalar(ctx, a.Value)
	}
	flat, ok, err := b.elements(ctx, a.Value)
	if !ok || err != nil {
		return nil, false, err
	}
	dims := make([]int, len(a.Shape))
	n := 1
	for i, d := range a.Shape {
		dims[i] = int(d)
		n *= dims[i]
	}
	if n != len(flat) {
		return nil, false, nil
	}
	return nest(flat, dims), true, nil
}

// opaqueAttr writes an opaque attribute as zarrmeta.Opaque says: its
// numpy dtype (|V n, or the datetime64 or timedelta64 of h5py's tag) and its
// elements, bytes or int64 counts as package hdf5 decodes them.
func opaqueAttr(a *hdf5.Attribute) (any, error) {
	descr, err := a.Type.NumpyDescr()
	if err != nil {
		return nil, err
	}
	raw, _ := json.Marshal(descr)
	dt, err := zarrmeta.ParseDType(raw)
	if err != nil {
		return nil, err
	}
	o := zarrmeta.Opaque{DType: dt}
	switch v := a.Value.(type) {
	case []byte, int64:
		o.Items = []any{v}
	case [][]byte:
		o.Items = boxed(v)
	case []int64:
		o.Items = boxed(v)
	default:
		return nil, fmt.Errorf("opaque value %T", a.Value)
	}
	if a.Shape != nil {
		o.Shape = make([]int, len(a.Shape))
		for i, d := range a.Shape {
			o.Shape[i] = int(d)
		}
	}
	return o.JSON()
}

// scalar converts one decoded value; ok is false for what lindi refuses.
func (b *builder) scalar(ctx context.Context, v any) (any, bool, error) {
	switch v := v.(type) {
	case int64, uint64, bool, string:
		return v, true, nil
	case float64:
		return finite(v), true, nil
	case hdf5.ObjectRef:
		r, err := b.reference(ctx, v)
		return r, err == nil, err
	case map[string]any:
		return b.record(ctx, v)
	case []int64, []uint64, []float64, []bool, []string, []hdf5.ObjectRef:
		return b.elements(ctx, v) // an array member of a compound
	}
	return nil, false, nil
}

// record converts a compound element: an object of its members, each as
// scalar converts it.
func (b *builder) record(ctx context.Context, m map[string]any) (any, bool, error) {
	out := make(map[string]any, len(m))
	for k, x := range m {
		v, ok, err := b.scalar(ctx, x)
		if err != nil || !ok {
			return nil, false, err
		}
		out[k] = v
	}
	return out, true, nil
}

// elements converts the flat slice of a simple dataspace's values, each as
// scalar converts it.
func (b *builder) elements(ctx context.Context, v any) ([]any, bool, error) {
	var items []any
	switch v := v.(type) {
	case []int64:
		items = boxed(v)
	case []uint64:
		items = boxed(v)
	case []float64:
		items = boxed(v)
	case []bool:
		items = boxed(v)
	case []string:
		items = boxed(v)
	case []hdf5.ObjectRef:
		items = boxed(v)
	case []map[string]any:
		items = boxed(v)
	default:
		return nil, false, nil
	}
	for i, x := range items {
		s, ok, err := b.scalar(ctx, x)
		if err != nil || !ok {
			return nil, false, err
		}
		items[i] = s
	}
	return items, true, nil
}

// boxed returns the elements of v as a slice of any.
func boxed[T any](v []T) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

// nest shapes flat into nested lists of the given dimensions.
func nest(flat []any, dims []int) any {
	if len(dims) <= 1 {
		return flat
	}
	step := len(flat) / max(dims[0], 1)
	out := make([]any, dims[0])
	for i := range out {
		out[i] = nest(flat[i*step:(i+1)*step], dims[1:])
	}
	return out
}

// reference is an object reference as lindi writes it.
func (b *builder) reference(ctx context.Context, r hdf5.ObjectRef) (map[string]any, error) {
	path := r.Path
	if path == "" {
		p, err := b.f.PathOf(ctx, r.Addr)
		if err != nil {
			return nil, err
		}
		path = p
	}
	id, err := b.objectID(ctx, path)
	if err != nil {
		return nil, err
	}
	return map[string]any{"_REFERENCE": map[string]any{
		"object_id": id, "path": path, "source": ".", "source_object_id": b.rootID,
	}}, nil
}
