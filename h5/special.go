package h5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// StringInfo says how a dataset's strings are stored, as h5py's string_info
// does.
type StringInfo struct {
	// Encoding is "utf-8" or "ascii".
	Encoding string
	// Length is the fixed length of each string in bytes; 0 for
	// variable-length strings (h5py's None).
	Length int
}

// RefKind is the kind of reference a dataset holds, as h5py's
// check_ref_dtype tells it.
type RefKind uint8

// The kinds of reference: NoRef for a dataset of anything else.
const (
	NoRef     RefKind = RefKind(driver.NoRefs)
	ObjectRef RefKind = RefKind(driver.ObjectRefs) // elements are Reference
	RegionRef RefKind = RefKind(driver.RegionRefs) // elements are RegionReference
)

// String names the kind: "none", "object" or "region".
func (k RefKind) String() string {
	switch k {
	case ObjectRef:
		return "object"
	case RegionRef:
		return "region"
	}
	return "none"
}

// StringInfo reports whether the dataset holds strings and how they are
// stored, as h5py's check_string_dtype does: ok is false for references,
// numbers and anything else, although strings and references share the
// dtype |O. HDF5 says which by its datatype; a LINDI or Zarr object array
// says nothing, so its first element is read to tell (as Python lindi does):
// that costs a read unless the chunk is inline.
func (d *Dataset) StringInfo(ctx context.Context) (info StringInfo, ok bool, err error) {
	s, _, err := d.special(ctx)
	if err != nil || s == nil {
		return StringInfo{}, false, err
	}
	return StringInfo{Encoding: s.Encoding, Length: s.Length}, true, nil
}

// RefKind reports whether the dataset holds object or region references,
// as h5py's check_ref_dtype does, telling an untyped object array's
// elements apart as StringInfo does.
func (d *Dataset) RefKind(ctx context.Context) (RefKind, error) {
	_, k, err := d.special(ctx)
	return RefKind(k), err
}

// special gives what the driver knows or, for an untyped object array, what
// its first element shows.
func (d *Dataset) special(ctx context.Context) (*driver.StringInfo, driver.RefKind, error) {
	dd := d.d
	if dd.Strings != nil || dd.Ref != driver.NoRefs || dd.DType.Kind != zarrmeta.KindObject || d.Size() == 0 {
		return dd.Strings, dd.Ref, nil
	}
	sel := make(selection.Selection, len(d.Shape()))
	for i := range sel {
		sel[i] = selection.Index(0)
	}
	a, err := d.Read(ctx, sel)
	if err != nil {
		return nil, driver.NoRefs, fmt.Errorf("h5: element type of %s: %w", d.path, err)
	}
	if len(a.Objects) != 1 {
		return nil, driver.NoRefs, nil
	}
	switch a.Objects[0].(type) {
	case string:
		return &driver.StringInfo{Encoding: "utf-8"}, driver.NoRefs, nil
	case []byte:
		return &driver.StringInfo{Encoding: "ascii"}, driver.NoRefs, nil
	case Reference:
		return nil, driver.ObjectRefs, nil
	case RegionReference:
		return nil, driver.RegionRefs, nil
	}
	return nil, driver.NoRefs, nil
}
