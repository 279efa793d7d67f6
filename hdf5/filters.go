package hdf5

import "slices"

// Filter is one filter of a dataset's pipeline, as the filter pipeline
// message names it.
type Filter struct {
	// ID is the HDF5 filter ID (1 deflate, 2 shuffle, 3 fletcher32, 4 szip,
	// 5 nbit, 6 scaleoffset, 32000 lzf, 32001 blosc, 32015 zstd, …).
	ID uint16
	// Name is the name the file gives the filter, often empty.
	Name string
	// Optional is set for a filter that chunks may skip.
	Optional bool
	// Options are the filter's client data values (deflate's level, …).
	Options []uint32
}

// Filters returns the dataset's filters in the order they were applied when
// writing; nil for a dataset without a pipeline. The slices are copies.
func (ds *Dataset) Filters() []Filter {
	var out []Filter
	for _, f := range ds.filters {
		out = append(out, Filter{ID: f.ID, Name: f.Name, Optional: f.Optional(), Options: slices.Clone(f.ClientData)})
	}
	return out
}
