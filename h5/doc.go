// Package h5 is the h5py-like API of lindi-go: open a LINDI JSON file, a Zarr v2
// store or an HDF5 file, walk its groups, and read numpy-style selections of its
// datasets as typed Go slices or gonum matrices.
//
//	f, err := h5.Open(ctx, "sub-01.nwb.lindi.json")
//	defer f.Close()
//	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
//	sel, err := selection.Parse("0:30000, ::4")
//	a, err := h5.Read[float64](ctx, ds, sel) // converts; ReadExact[int16] does not
//
// One way each: Dataset.Read gives the elements as stored (an Array tagged
// with its dtype); Read[T] and As[T] give them as Go values of T, converting
// numbers to any Number type and reading strings and references; ReadExact[T]
// and AsExact[T] give numbers without conversion, sharing the read's memory.
// Dense and Vec view float64 results as gonum matrices and vectors.
//
// Open reads the object tree (groups, links, dataset metadata and
// attributes), so navigation does no I/O, except where a store cannot be
// listed (a Zarr store over HTTP without .zmetadata); lookups take a context
// for that case. Reads fetch and decode the chunks they touch concurrently
// (see package internal/engine).
//
// Each container format is a driver under internal/driver; h5 never names a
// format. A File and everything reached from it are safe for concurrent use.
// Errors wrap the sentinels below (ErrNotFound, ErrNotDataset, …) or the
// errors of the layers underneath (codecs, io/source); decide with errors.Is
// and errors.As.
package h5
