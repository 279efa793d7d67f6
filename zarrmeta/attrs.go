package zarrmeta

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// The LINDI marker attributes. Attrs hides them from Names and Get.
const (
	AttrScalar            = "_SCALAR"
	AttrSoftLink          = "_SOFT_LINK"
	AttrReference         = "_REFERENCE"
	AttrCompoundDType     = "_COMPOUND_DTYPE"
	AttrExternalArrayLink = "_EXTERNAL_ARRAY_LINK"
	// AttrEmpty is this module's marker of an HDF5 dataset with a null
	// dataspace (h5py.Empty), written on an array of shape [0]. Python
	// lindi has no such form (it cannot index these datasets) and shows
	// the marker as a user attribute.
	AttrEmpty = "_EMPTY"
	// AttrDatatype is this module's marker of an HDF5 committed datatype
	// (h5py.Datatype), written on a group with no members; its value is a
	// CommittedType. Python lindi reads such a group as an empty group
	// and cannot read the marker (it refuses objects as attributes).
	AttrDatatype = "_DATATYPE"
	// AttrOpaque is the first item of the list that holds an Opaque
	// attribute value (not a key of .zattrs).
	AttrOpaque = "_OPAQUE"
)

// IsMarker reports whether name is a marker of LINDI's (LindiH5pyAttributes'
// list) or of this module's (AttrEmpty, AttrDatatype) rather than a user
// attribute; other names starting with "_", such as xarray's
// _ARRAY_DIMENSIONS, are user attributes.
func IsMarker(name string) bool {
	switch name {
	case AttrScalar, AttrSoftLink, AttrReference, AttrCompoundDType, AttrExternalArrayLink, AttrEmpty, AttrDatatype:
		return true
	}
	return false
}

// Attrs is the content of a .zattrs document: user attributes as decoded
// JSON (see DecodeJSON) and the LINDI markers, validated when parsed. The
// zero value holds no attributes.
type Attrs struct {
	values   map[string]any
	scalar   bool
	empty    bool
	softLink string
	hasLink  bool
	external *ExternalArrayLink
	compound *DType
	datatype *CommittedType
}

// ParseAttrs parses a .zattrs document, a JSON object. It tolerates bare
// NaN, Infinity and -Infinity tokens (decoded as float64). It validates the
// LINDI markers: _SCALAR and _EMPTY must be booleans, _SOFT_LINK an object with a
// string "path", _EXTERNAL_ARRAY_LINK, _COMPOUND_DTYPE and _DATATYPE as
// described by ParseExternalArrayLink, ParseCompoundDType and
// ParseCommittedType.
func ParseAttrs(b []byte) (Attrs, error) {
	v, err := DecodeJSON(b)
	if err != nil {
		return Attrs{}, fmt.Errorf("%w: %w", ErrAttrs, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return Attrs{}, fmt.Errorf("%w: %s is not an object", ErrAttrs, jsonText(v))
	}
	a := Attrs{values: m}
	if err := a.parseMarkers(); err != nil {
		return Attrs{}, fmt.Errorf("%w: %w", ErrAttrs, err)
	}
	return a, nil
}

func (a *Attrs) parseMarkers() error {
	if v, ok := a.values[AttrScalar]; ok {
		t, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%s %s is not a boolean", AttrScalar, jsonText(v))
		}
		a.scalar = t
	}
	if v, ok := a.values[AttrEmpty]; ok {
		t, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%s %s is not a boolean", AttrEmpty, jsonText(v))
		}
		a.empty = t
	}
	if v, ok := a.values[AttrSoftLink]; ok {
		m, _ := v.(map[string]any)
		p, ok := m["path"].(string)
		if !ok || p == "" {
			return fmt.Errorf("%s %s has no string \"path\"", AttrSoftLink, jsonText(v))
		}
		a.softLink, a.hasLink = p, true
	}
	if v, ok := a.values[AttrExternalArrayLink]; ok {
		l, err := ParseExternalArrayLink(v)
		if err != nil {
			return err
		}
		a.external = &l
	}
	if v, ok := a.values[AttrCompoundDType]; ok {
		d, err := ParseCompoundDType(v)
		if err != nil {
			return err
		}
		a.compound = &d
	}
	if v, ok := a.values[AttrDatatype]; ok {
		c, err := ParseCommittedType(v)
		if err != nil {
			return err
		}
		a.datatype = &c
	}
	return nil
}

// Names returns the names of the user attributes, sorted, without the
// LINDI markers.
func (a Attrs) Names() []string {
	names := make([]string, 0, len(a.values))
	for k := range a.values {
		if !IsMarker(k) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// Get returns the user attribute called name as decoded JSON. LINDI
// markers are not user attributes: Get reports false for them. The value
// is shared with a, not copied: do not modify it.
func (a Attrs) Get(name string) (any, bool) {
	if IsMarker(name) {
		return nil, false
	}
	v, ok := a.values[name]
	return v, ok
}

// Len returns the number of user attributes.
func (a Attrs) Len() int {
	n := 0
	for k := range a.values {
		if !IsMarker(k) {
			n++
		}
	}
	return n
}

// Scalar reports LINDI's _SCALAR marker: the shape [1] array is an HDF5
// scalar dataset, to be read as shape ().
func (a Attrs) Scalar() bool { return a.scalar }

// Empty reports the _EMPTY marker (AttrEmpty): the shape [0] array is an
// HDF5 dataset with a null dataspace, which has no shape and no elements.
func (a Attrs) Empty() bool { return a.empty }

// SoftLink returns the target path of LINDI's _SOFT_LINK marker, which
// turns a group into an HDF5 soft link. The path is as stored, usually
// absolute ("/general/devices/probe").
func (a Attrs) SoftLink() (string, bool) { return a.softLink, a.hasLink }

// ExternalArrayLink returns LINDI's _EXTERNAL_ARRAY_LINK marker: the
// array's data lives in an HDF5 dataset, not in chunk references.
func (a Attrs) ExternalArrayLink() (ExternalArrayLink, bool) {
	if a.external == nil {
		return ExternalArrayLink{}, false
	}
	return *a.external, true
}

// CompoundDType returns the struct dtype given by LINDI's _COMPOUND_DTYPE
// marker: the object array's JSON items are rows of these fields.
func (a Attrs) CompoundDType() (DType, bool) {
	if a.compound == nil {
		return DType{}, false
	}
	return *a.compound, true
}

// Datatype returns the committed datatype given by the _DATATYPE marker
// (AttrDatatype): the group stands for an HDF5 committed datatype.
func (a Attrs) Datatype() (CommittedType, bool) {
	if a.datatype == nil {
		return CommittedType{}, false
	}
	return *a.datatype, true
}

// MarshalJSON returns the attributes, markers included, as a JSON object
// with sorted keys. Non-finite floats are written as the strings "NaN",
// "Infinity" and "-Infinity", as LINDI stores them.
func (a Attrs) MarshalJSON() ([]byte, error) {
	if a.values == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(finite(a.values))
}

// finite copies v replacing non-finite floats by their LINDI spellings.
func finite(v any) any {
	return MapJSON(v, func(x any) (any, bool) {
		if f, ok := x.(float64); ok {
			if s := NonFiniteName(f); s != "" {
				return s, true
			}
		}
		return x, false
	})
}

// NonFiniteName gives the spelling numpy's and LINDI's JSON use for a
// non-finite float: "NaN", "Infinity" or "-Infinity"; "" for a finite f.
func NonFiniteName(f float64) string {
	switch {
	case f != f:
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return ""
}

// ParseGroup validates a .zgroup document: a JSON object whose zarr_format
// is 2.
func ParseGroup(b []byte) error {
	var g struct {
		ZarrFormat *int `json:"zarr_format"`
	}
	if err := json.Unmarshal(quoteNonFinite(b), &g); err != nil {
		return fmt.Errorf("%w: %v", ErrGroup, err)
	}
	if g.ZarrFormat == nil || *g.ZarrFormat != 2 {
		return fmt.Errorf("%w: zarr_format must be 2", ErrGroup)
	}
	return nil
}
