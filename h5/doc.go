// Package h5 is the h5py-like API of lindi-go: open a LINDI JSON file, a Zarr v2
// store or an HDF5 file, walk its groups, and read numpy-style selections of its
// datasets as typed Go slices or gonum matrices.
//
//	f, err := h5.Open(ctx, "sub-01.nwb.lindi.json")
//	defer f.Close()
//	ds, err := f.Dataset("acquisition/ElectricalSeries/data")
//	sel, err := selection.Parse("0:30000, ::4")
//	a, err := h5.Read[int16](ctx, ds, sel)
//
// Open reads the whole object tree (groups, links, dataset metadata and
// attributes), so navigation needs no context and does no I/O; reads take a
// context and fetch and decode the chunks they touch concurrently (see package
// internal/engine).
//
// A File and everything reached from it are safe for concurrent use. Errors wrap
// the sentinels below (ErrNotFound, ErrNotDataset, …) or the errors of the layers
// underneath (store, codecs, io/source); decide with errors.Is and errors.As.
package h5
