package zarrmeta

import (
	"fmt"
)

// LINDIRef is a LINDI object reference, stored as
// {"_REFERENCE": {"object_id", "path", "source", "source_object_id"}} in
// attributes and in the items of object datasets.
type LINDIRef struct {
	// Path is the path of the target object within the file.
	Path string
	// Source is the file holding the target; "." means this file.
	Source string
	// ObjectID is the target's object_id attribute, "" when null.
	ObjectID string
	// SourceObjectID is the object_id of the referencing file, "" when
	// null.
	SourceObjectID string
}

// AsReference recognises a LINDI reference in a decoded JSON value (a
// map[string]any with a "_REFERENCE" key, as LINDI tests). It returns
// false and no error for any other value, and an error wrapping
// ErrReference when the _REFERENCE object is malformed: not an object, no
// string "path", or a field that is neither a string nor null.
func AsReference(v any) (LINDIRef, bool, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return LINDIRef{}, false, nil
	}
	raw, ok := m[AttrReference]
	if !ok {
		return LINDIRef{}, false, nil
	}
	r, ok := raw.(map[string]any)
	if !ok {
		return LINDIRef{}, true, fmt.Errorf("%w: %s is not an object", ErrReference, jsonText(raw))
	}
	var ref LINDIRef
	for _, f := range []struct {
		key string
		dst *string
	}{{"path", &ref.Path}, {"source", &ref.Source}, {"object_id", &ref.ObjectID}, {"source_object_id", &ref.SourceObjectID}} {
		switch s := r[f.key].(type) {
		case string:
			*f.dst = s
		case nil:
		default:
			return LINDIRef{}, true, fmt.Errorf("%w: %q is %s, not a string", ErrReference, f.key, jsonText(s))
		}
	}
	if ref.Path == "" {
		return LINDIRef{}, true, fmt.Errorf("%w: %s has no \"path\"", ErrReference, jsonText(raw))
	}
	return ref, true, nil
}

// ExternalArrayLink is LINDI's _EXTERNAL_ARRAY_LINK marker: the array has
// no chunk references and its data is dataset Name of the HDF5 file at URL.
type ExternalArrayLink struct {
	// LinkType is the kind of link; only "hdf5_dataset" exists.
	LinkType string
	// URL locates the HDF5 file: a URL or a path, possibly relative
	// ("./file.h5") to the LINDI file.
	URL string
	// Name is the path of the dataset within the HDF5 file.
	Name string
}

// ParseExternalArrayLink validates the decoded JSON value of an
// _EXTERNAL_ARRAY_LINK attribute: an object whose link_type is
// "hdf5_dataset" and whose url and name are non-empty strings.
func ParseExternalArrayLink(v any) (ExternalArrayLink, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return ExternalArrayLink{}, fmt.Errorf("%s %s is not an object", AttrExternalArrayLink, jsonText(v))
	}
	var l ExternalArrayLink
	for _, f := range []struct {
		key string
		dst *string
	}{{"link_type", &l.LinkType}, {"url", &l.URL}, {"name", &l.Name}} {
		s, ok := m[f.key].(string)
		if !ok || s == "" {
			return ExternalArrayLink{}, fmt.Errorf("%s %s has no string %q", AttrExternalArrayLink, jsonText(v), f.key)
		}
		*f.dst = s
	}
	if l.LinkType != "hdf5_dataset" {
		return ExternalArrayLink{}, fmt.Errorf("%s link_type %q is not supported (only \"hdf5_dataset\")", AttrExternalArrayLink, l.LinkType)
	}
	return l, nil
}

// compoundNames maps the numpy type names LINDI writes in _COMPOUND_DTYPE
// (str(numpy.dtype)) to typestrs in native order.
var compoundNames = map[string]string{
	"bool": "|b1", "int8": "|i1", "uint8": "|u1",
	"int16": "=i2", "int32": "=i4", "int64": "=i8",
	"uint16": "=u2", "uint32": "=u4", "uint64": "=u8",
	"float16": "=f2", "float32": "=f4", "float64": "=f8",
	"complex64": "=c8", "complex128": "=c16", "object": "|O",
}

// ReferenceTypeName is the type name LINDI writes in _COMPOUND_DTYPE for a
// field holding object references.
const ReferenceTypeName = "<REFERENCE>"

// ParseCompoundDType converts the decoded JSON value of a _COMPOUND_DTYPE
// attribute, a list of [name, type] pairs such as
// [["x", "int32"], ["y", "float64"], ["ref", "<REFERENCE>"]], to a struct
// DType with packed fields. Types are numpy names ("int32", "float64",
// "bool", in native byte order), numpy typestrs ("<f8", "|S10"), or
// ReferenceTypeName, which gives a KindReference field of size 8; "object"
// (numpy's name for Python objects such as variable-length strings) gives a
// KindObject field.
func ParseCompoundDType(v any) (DType, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return DType{}, fmt.Errorf("%s %s is not a non-empty list", AttrCompoundDType, jsonText(v))
	}
	d := DType{Kind: KindStruct}
	seen := map[string]bool{}
	for _, item := range list {
		pair, ok := item.([]any)
		if !ok || len(pair) != 2 {
			return DType{}, fmt.Errorf("%s entry %s is not [name, type]", AttrCompoundDType, jsonText(item))
		}
		name, ok1 := pair[0].(string)
		typ, ok2 := pair[1].(string)
		if !ok1 || !ok2 || name == "" || seen[name] {
			return DType{}, fmt.Errorf("%s entry %s needs a new name and a type name", AttrCompoundDType, jsonText(item))
		}
		seen[name] = true
		ft, err := compoundType(typ)
		if err != nil {
			return DType{}, fmt.Errorf("%s field %q: %w", AttrCompoundDType, name, err)
		}
		d.Fields = append(d.Fields, Field{Name: name, DType: ft, Offset: d.Size})
		if d.Size += ft.Size; d.Size > maxItemSize {
			return DType{}, fmt.Errorf("%s is larger than %d bytes", AttrCompoundDType, maxItemSize)
		}
	}
	return d, nil
}

func compoundType(name string) (DType, error) {
	if name == ReferenceTypeName {
		return DType{Kind: KindReference, Size: 8}, nil
	}
	if s, ok := compoundNames[name]; ok {
		name = s
	}
	return parseTypestr(name)
}
