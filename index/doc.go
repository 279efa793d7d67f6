// Package index writes LINDI JSON (.lindi.json) for an HDF5 or NWB file, as
// Python lindi's LindiH5pyFile.from_hdf5_file(url).write_lindi_file(out)
// does, but reading the file's metadata with the parallel hdf5 reader.
//
// The output makes the same choices as lindi, so the refs' keys are the
// same: groups get .zgroup (and .zattrs when they have attributes), soft
// links become {"_SOFT_LINK": {"path": …}} groups, attributes are converted
// as lindi's h5_to_zarr_attr converts them (floats spelled as Python's json
// writes them, 30000.0 and not 30000, so that they read back as floats; NaN
// and ±Infinity as strings; object references as {"_REFERENCE": …}), the
// HDF5 filter pipeline becomes
// numcodecs filters (shuffle, zlib, zstd, blosc, fletcher32), large
// contiguous numeric datasets without filters are split into chunks of about
// 20 MB, scalars and datasets of strings, references, compounds and fewer
// than 1000 numbers are inlined, chunked datasets of more than 1000 chunks
// become _EXTERNAL_ARRAY_LINKs (unless AllChunks), and a URL that 5 or more
// refs name becomes a {{u1}} template.
//
// Inline chunks are stored as the shortest of their raw bytes and three
// blosc encodings (zstd with and without shuffle, lz4 as lindi writes them
// all), counted with the compressor's configuration: no inline chunk is
// larger than lindi's, and the cached NWB specification (scalar strings,
// UTF-32 as numpy's <U n) shrinks to a third of lindi's blosc-lz4.
//
// Where lindi would fail or write what does not read back, the index writes
// what reads correctly: a dataset whose filters have no
// numcodecs equivalent (lzf, szip, scale-offset, …), whose chunks skip
// filters, whose type lindi cannot inline, or whose data this reader cannot
// read (external raw data) becomes an _EXTERNAL_ARRAY_LINK
// instead of an error; a virtual dataset, which has no chunks of its own,
// is refs to its sources' chunks where they are its chunks, else inlined
// with its values up to 1 MiB (lindi inlines fewer than 1000 numbers and
// writes a ref with no offset for more), else linked too (read through the
// HDF5 file, its sources are found beside it); h5py's complex numbers
// become zarr's complex dtypes
// (lindi refuses them); opaque data and h5py's datetime64/timedelta64
// (opaque types tagged "NUMPY:<M8[s]") keep their numpy dtype (|V n, <M8[s])
// and are inlined or referenced like numbers; external links are left out.
//
// What h5py reads and lindi cannot write is kept in a form lindi-go reads
// back as it reads the HDF5 file. A dataset with a null dataspace
// (h5py.Empty) is an array of shape [0] marked {"_EMPTY": true}
// (zarrmeta.AttrEmpty), which Python lindi shows as an empty array with an
// _EMPTY attribute; an attribute with a null dataspace is JSON null and a
// compound attribute a JSON object of its members (a list of them for an
// array), which Python lindi raises on when the attribute is read. An
// opaque attribute, h5py's datetime64 and timedelta64 included, is a flat
// list of strings, ["_OPAQUE", "<M8[s]", "()", "1645568542"]
// (zarrmeta.Opaque: dtype, shape, elements as hex or int64 counts), which
// Python lindi reads without error as an object array of those strings and
// lindi-go as the bytes, h5.Datetime or h5.Timedelta values the HDF5 file
// gives. A committed datatype is a group with no members whose .zattrs hold
// its attributes and {"_DATATYPE": {"dtype": …, "enum": {…}}}
// (zarrmeta.AttrDatatype), which lindi-go reads as an h5.Datatype (its
// dtype, enum mapping and attributes); Python lindi lists it as an empty
// group whose _DATATYPE attribute it cannot read (it raises on objects as
// attribute values) and reads every other object as before. A dataset of a
// committed type names it by "_NAMED_TYPE" in its .zarray
// (zarrmeta.ArrayNamedType; Zarr readers, Python lindi's included, ignore
// it) and keeps the type's dtype; an enum's mapping is kept only in its
// datatype. Region reference attributes and types this reader cannot
// decode are left out. _COMPOUND_DTYPE holds no offsets, so an inlined
// compound with padding is repacked (its members in order, no padding: the
// values are h5py's, the itemsize is not), as lindi's is; a compound it
// cannot name (nested compounds, array members) stays in the HDF5 file, an
// _EXTERNAL_ARRAY_LINK whose .zarray dtype is the compound's numpy dtype
// (padding and subarrays included).
//
// WriteFile's refs name a local file by its absolute path, which Python
// lindi reads; RelativeRefs names one beside the output "./NAME", which only
// lindi-go reads.
//
// Build is safe to call concurrently; it reads the metadata and chunk indexes
// of up to WithConcurrency objects at once. Errors wrap those of package hdf5.
package index
