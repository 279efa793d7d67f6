package hdf5

import (
	"math"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/internal/driver"
)

// describeMore fills in what h5py shows of a dataset beyond its shape and
// dtype: maxshape, the filters with their options, an enum's names.
func describeMore(d *driver.Dataset, hd *hdf5.Dataset) {
	if hd.Space().Kind == hdf5.SpaceSimple {
		for i, m := range hd.MaxShape() {
			switch {
			case m == hdf5.Unlimited:
				d.MaxShape = append(d.MaxShape, -1)
			case m > math.MaxInt32*1024:
				d.MaxShape = append(d.MaxShape, d.Shape[i])
			default:
				d.MaxShape = append(d.MaxShape, int(m))
			}
		}
	}
	for _, f := range hd.Filters() {
		d.Filters = append(d.Filters, driver.Filter{ID: int(f.ID), Name: f.Name, Options: f.Options})
	}
	d.Type = typeOf(hd.Datatype())
	d.Enum = hd.Datatype().EnumValues()
	d.Strings, d.Ref = special(hd.Datatype())
}

// special tells strings and references apart, as h5py's check_string_dtype
// and check_ref_dtype do: by the HDF5 datatype class.
func special(t *hdf5.Datatype) (*driver.StringInfo, driver.RefKind) {
	enc := "ascii"
	if t.Charset == hdf5.CharsetUTF8 {
		enc = "utf-8"
	}
	switch {
	case t.Class == hdf5.ClassString:
		return &driver.StringInfo{Encoding: enc, Length: int(t.Size)}, driver.NoRefs
	case t.Class == hdf5.ClassVlen && t.VlenString:
		return &driver.StringInfo{Encoding: enc}, driver.NoRefs
	case t.Class == hdf5.ClassReference && t.Ref == hdf5.RefRegion:
		return nil, driver.RegionRefs
	case t.Class == hdf5.ClassReference:
		return nil, driver.ObjectRefs
	}
	return nil, driver.NoRefs
}
