package hdf5

import (
	"encoding/binary"
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
		d.Filters = append(d.Filters, driver.Filter{ID: int(f.ID), Options: f.Options})
	}
	d.Enum = enumMembers(hd.Datatype())
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

// enumMembers maps the names of an enum datatype to their values; nil for
// other datatypes and for h5py's bool enum, which reads as bool.
func enumMembers(t *hdf5.Datatype) map[string]int64 {
	if t.Class != hdf5.ClassEnum || t.IsBool() || t.Base == nil || t.Base.Size > 8 {
		return nil
	}
	out := make(map[string]int64, len(t.Members))
	for _, m := range t.Members {
		if len(m.Value) != int(t.Base.Size) {
			return nil
		}
		var buf [8]byte
		var v uint64
		if t.Base.BigEndian {
			copy(buf[8-len(m.Value):], m.Value)
			v = binary.BigEndian.Uint64(buf[:])
		} else {
			copy(buf[:], m.Value)
			v = binary.LittleEndian.Uint64(buf[:])
		}
		if shift := 64 - 8*uint(len(m.Value)); t.Base.Signed {
			out[m.Name] = int64(v<<shift) >> shift
		} else {
			out[m.Name] = int64(v)
		}
	}
	return out
}
