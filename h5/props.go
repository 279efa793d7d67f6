package h5

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/lindigo/lindi/internal/engine"
)

// Unlimited is the MaxShape of a dimension that may grow without bound, as
// h5py's None in maxshape.
const Unlimited = -1

// MaxShape is the shape the dataset may be resized to, Unlimited for an
// unbounded dimension, as h5py's maxshape. LINDI and Zarr do not record
// one: their MaxShape is the shape. The slice is a copy.
func (d *Dataset) MaxShape() []int {
	if d.d.MaxShape != nil {
		return slices.Clone(d.d.MaxShape)
	}
	return d.Shape()
}

// NBytes is the size of the dataset's elements in memory, Size × the dtype's
// item size, as h5py's nbytes (a variable-length string counts 8 bytes, its
// object pointer in numpy).
func (d *Dataset) NBytes() int64 { return int64(d.Size()) * int64(d.d.DType.Size) }

// StoredSize is the size of the dataset's stored chunks, encoded, in bytes
// (chunks never written count 0): what the data takes on disk, to set
// beside NBytes. It reads no data: the sizes come from the HDF5 chunk
// index, the LINDI refs, or the files of a local Zarr store (a stat each).
// known is false where they cannot be had without a request per chunk: a
// remote Zarr store's objects, a sharded Zarr v3 array (its shard indexes).
func (d *Dataset) StoredSize(ctx context.Context) (n int64, known bool, err error) {
	if d.d.Err != nil {
		return 0, false, d.d.Err
	}
	st, err := d.d.Storage.Stored(ctx)
	if err != nil {
		return 0, false, err
	}
	if n, known, err = engine.StoredSize(ctx, st.Array); err != nil {
		return 0, false, fmt.Errorf("h5: stored size of %s: %w", d.Path(), unprefixed{err})
	}
	return n, known, nil
}

// Filters is a dataset's filter pipeline as h5py's Dataset properties name
// it.
type Filters struct {
	// Compression is "gzip", "lzf" or "szip" for the filters h5py names so,
	// the codec id ("blosc", "zstd", "bz2", …) for others, or "filter N" for
	// an HDF5 filter ID this package does not know; "" for none.
	Compression string
	// CompressionOpts are the compression filter's options: the level for
	// gzip, HDF5's client data for others; nil when the format does not
	// record them (Zarr and LINDI give the codec configuration instead).
	CompressionOpts []uint32
	// Shuffle, Fletcher32: whether the pipeline holds these filters.
	Shuffle, Fletcher32 bool
	// ScaleOffset is the scale-offset filter's scale factor, nil without
	// that filter.
	ScaleOffset *int
	// Pipeline is an HDF5 dataset's filter pipeline in order, as h5py's
	// dataset creation property list gives it (get_filter); nil for
	// formats with no HDF5 pipeline, whose Codecs say what there is.
	Pipeline []Filter
}

// Filter is one filter of an HDF5 dataset's pipeline.
type Filter struct {
	// ID is the HDF5 filter ID.
	ID int
	// Name is the name the file gives the filter or, for HDF5's own
	// filters (IDs 1 to 6), the name HDF5 gives them.
	Name string
}

// hdf5FilterNames are the names HDF5 gives its own filters.
var hdf5FilterNames = map[int]string{1: "deflate", 2: "shuffle", 3: "fletcher32", 4: "szip", 5: "nbit", 6: "scaleoffset"}

// hdf5Filters names HDF5's predefined and registered filter IDs.
var hdf5Filters = map[int]string{1: "gzip", 4: "szip", 5: "nbit", 32000: "lzf", 32001: "blosc",
	32004: "lz4", 32008: "bitshuffle", 32015: "zstd", 307: "bz2"}

// Filters describes the dataset's filter pipeline.
func (d *Dataset) Filters() Filters {
	var fs Filters
	if d.d.Filters == nil {
		for _, id := range d.d.Codecs {
			switch id {
			case "shuffle":
				fs.Shuffle = true
			case "fletcher32":
				fs.Fletcher32 = true
			case "zlib", "gzip":
				fs.Compression = "gzip"
			default:
				if fs.Compression == "" && id != "json2" && id != "vlen-utf8" && id != "vlen-bytes" {
					fs.Compression = id
				}
			}
		}
		return fs
	}
	for _, f := range d.d.Filters {
		name := f.Name
		if name == "" {
			name = hdf5FilterNames[f.ID]
		}
		fs.Pipeline = append(fs.Pipeline, Filter{ID: f.ID, Name: name})
		switch f.ID {
		case 2:
			fs.Shuffle = true
		case 3:
			fs.Fletcher32 = true
		case 6:
			v := 0
			if len(f.Options) > 1 {
				v = int(int32(f.Options[1]))
			}
			fs.ScaleOffset = &v
		default:
			if fs.Compression != "" {
				continue
			}
			fs.Compression = hdf5Filters[f.ID]
			if fs.Compression == "" {
				fs.Compression = "filter " + strconv.Itoa(f.ID)
			}
			fs.CompressionOpts = slices.Clone(f.Options)
		}
	}
	return fs
}

// Enum maps the names of the dataset's enumerated type to their values, as
// h5py.check_enum_dtype; nil when the dtype is not an enum (h5py's bool
// enum reads as bool and is not one). A read gives the values; EnumNames
// maps them to names. The map is a copy.
func (d *Dataset) Enum() map[string]int64 { return maps.Clone(d.d.Enum) }

// EnumNames maps enum values (from Read[int64] of an enum dataset) to their
// names in enum (from Dataset.Enum). A value without a name is an error
// naming it.
func EnumNames(values []int64, enum map[string]int64) ([]string, error) {
	names := make(map[int64]string, len(enum))
	for k, v := range enum {
		if old, ok := names[v]; !ok || k < old {
			names[v] = k
		}
	}
	out := make([]string, len(values))
	for i, v := range values {
		n, ok := names[v]
		if !ok {
			return nil, fmt.Errorf("%w: enum value %d (element %d) has no name", ErrType, v, i)
		}
		out[i] = n
	}
	return out, nil
}

// Dim is one dimension of a dataset as h5py's ds.dims[i] shows it: its label
// and the dimension-scale datasets attached to it.
type Dim struct {
	Label  string
	Scales []*Dataset
}

// Dims resolves the dataset's dimension scales: the DIMENSION_LABELS and
// DIMENSION_LIST attributes HDF5's dimension-scale API writes. It has one
// Dim per dimension, empty for a dataset without them; a reference that does
// not lead to a dataset is an error.
func (d *Dataset) Dims(ctx context.Context) ([]Dim, error) {
	dims := make([]Dim, len(d.d.Shape))
	if labels, err := d.Attrs().Strings("DIMENSION_LABELS"); err == nil {
		for i := range min(len(labels), len(dims)) {
			dims[i].Label = labels[i]
		}
	}
	v, err := d.Attrs().Get("DIMENSION_LIST")
	if err != nil {
		return dims, nil
	}
	lists, ok := v.([]any)
	if !ok || len(lists) != len(dims) {
		return nil, fmt.Errorf("%w: %s: DIMENSION_LIST is %T of %d, not one list per dimension", ErrFormat, d.path, v, len(lists))
	}
	for i, l := range lists {
		refs, ok := l.([]Reference)
		if !ok {
			if empty, isList := l.([]any); !isList || len(empty) > 0 {
				return nil, fmt.Errorf("%w: %s: DIMENSION_LIST[%d] is %T, not references", ErrFormat, d.path, i, l)
			}
		}
		for _, r := range refs {
			o, err := d.f.Deref(ctx, r)
			if err != nil {
				return nil, fmt.Errorf("h5: %s: dimension %d scale: %w", d.path, i, err)
			}
			s, ok := o.(*Dataset)
			if !ok {
				return nil, fmt.Errorf("%w: %s: dimension %d scale %s", ErrNotDataset, d.path, i, r.Path)
			}
			dims[i].Scales = append(dims[i].Scales, s)
		}
	}
	return dims, nil
}
