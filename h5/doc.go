// Package h5 is the h5py-like API of lindi-go: open a LINDI file, a Zarr v2
// store or an HDF5 file (local or remote), walk its groups, and read
// numpy-style selections of datasets as typed Go values, read in parallel.
//
//	f, err := h5.Open(ctx, "sub-01.nwb.lindi.json")
//	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
//	a, err := h5.Read[float64](ctx, ds, sel) // converts; ReadExact[int16] does not
//
// Read[T]/As[T] convert, ReadExact[T]/AsExact[T] do not; an HDF5 file and its
// LINDI JSON give the same values of the same Go types. Open also takes
// s3:// URLs; OpenReaderAt and OpenRefs open what the caller already holds.
// See docs/DESIGN.md.
package h5
