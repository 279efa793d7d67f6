// Package h5 is the h5py-like API of lindi-go: open a LINDI JSON file, a Zarr
// v2 store or an HDF5 file, walk its groups, and read numpy-style selections
// of its datasets as typed Go slices or gonum matrices.
//
//	f, err := h5.Open(ctx, "sub-01.nwb.lindi.json")
//	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
//	sel, err := selection.Parse("0:30000, ::4")
//	a, err := h5.Read[float64](ctx, ds, sel) // converts; ReadExact[int16] does not
//
// Read[T] and As[T] convert (numbers, complex numbers, strings, references);
// ReadExact[T] and AsExact[T] do not; ReadInto reads into a caller's buffer,
// ReadPoints picks scattered elements, IterChunks and Blocks iterate. An HDF5
// file and its LINDI JSON give the same values of the same Go types (see
// Attrs and Dataset.Fill); soft and external links are followed. Open reads
// the tree of a LINDI file or a Zarr store at once; an HDF5 file is opened
// lazily: Get reads only the objects on the path asked for, and Walk reads a
// level at a time, concurrently. A Group or Dataset, once returned, answers
// Members and Attrs without I/O. Reads fetch and decode the chunks they touch
// concurrently; one whose result would exceed the read limit
// (WithMaxReadBytes) fails with ErrTooLarge before allocating. Each container
// format is a driver under internal/driver. A File is safe for concurrent
// use; errors wrap the sentinels below or those of the layers underneath.
package h5
