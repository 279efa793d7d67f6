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
// ReadPoints picks scattered elements (as do selection.Vindex and
// selection.MaskND in any read), IterChunks and Blocks iterate.
// OpenReaderAt opens bytes the caller holds and OpenRefs a parsed reference
// document; Open also takes s3:// URLs, and WithDiskCache (or
// LINDI_CACHE_DIR) keeps fetched ranges for later processes.
// Dataset.StringInfo and RefKind tell strings from references. An HDF5
// file and its LINDI JSON give the same values of the same Go types (see
// Attrs and Dataset.Fill); soft and external links are followed. Open reads the object tree, so navigation does no I/O
// except in a store that cannot be listed, and reads fetch and decode the
// chunks they touch concurrently. Each container format is a driver under
// internal/driver. A read whose result would exceed the read limit
// (WithMaxReadBytes) fails with ErrTooLarge before allocating. A File is safe
// for concurrent use; errors wrap the sentinels below or those of the layers
// underneath.
package h5
